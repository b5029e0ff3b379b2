#!/usr/bin/env bash
# A throwaway ZooKeeper (standalone, or an ensemble) for the zklease tests.
#
#   scripts/zk.sh install    apt-get install Debian's zookeeper (with its JRE) when missing
#   scripts/zk.sh start [N]  install if needed, start 1 (standalone) or N servers on free
#                            loopback ports, each with its own data folder and a heap of at
#                            most 128 MiB, wait until each serves, and print
#                            `export ZK_HOSTS=...` (use: eval "$(scripts/zk.sh start 3)")
#   scripts/zk.sh env        print the same line for the running servers
#   scripts/zk.sh stop       stop them and remove their data
#   scripts/zk.sh dir        print the folder their state lives in
#
# State lives in $ZK_STATE_DIR, by default ${TMPDIR:-/tmp}/snowlab-zk-UID-KEY:
# this user's and this checkout's (KEY is the checksum of the checkout's
# path), so that another user's or another checkout's stop never stops
# these servers. Messages go to stderr; stdout carries only the export
# line.
set -euo pipefail

# default_state is the state folder when $ZK_STATE_DIR is not set.
default_state() {
	local root
	root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
	echo "${TMPDIR:-/tmp}/snowlab-zk-$(id -u)-$(printf %s "$root" | cksum | cut -d' ' -f1)"
}
state="${ZK_STATE_DIR:-$(default_state)}"
jar=/usr/share/java/zookeeper.jar
say() { echo "zk.sh: $*" >&2; }

install_zk() {
	[[ -f $jar ]] && command -v java >/dev/null 2>&1 && return 0
	say "no ZooKeeper at $jar: installing zookeeper from Debian"
	local sudo=()
	if [[ $(id -u) -ne 0 ]]; then
		command -v sudo >/dev/null 2>&1 || { say "need root (or sudo) to apt-get install zookeeper"; return 1; }
		sudo=(sudo)
	fi
	local t0=$SECONDS
	"${sudo[@]}" apt-get update -qq >&2
	DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends zookeeper >&2
	[[ -f $jar ]] || { say "still no $jar after installing zookeeper"; return 1; }
	say "installed zookeeper in $((SECONDS - t0)) s"
}

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

free_port() {
	local p
	for _ in $(seq 1 100); do
		p=$((20000 + RANDOM % 40000))
		if port_free "$p" && ! grep -qx "$p" "$state/ports" 2>/dev/null; then
			echo "$p" >>"$state/ports"
			echo "$p"
			return 0
		fi
	done
	say "no free port found"
	return 1
}

# serving PORT: the server answers "srvr" with its mode.
serving() {
	local reply
	reply=$( (exec 3<>"/dev/tcp/127.0.0.1/$1" && printf srvr >&3 && timeout 2 cat <&3) 2>/dev/null) || return 1
	[[ "$reply" == *"Mode: "* ]]
}

start() {
	local n=${1:-1}
	[[ "$n" =~ ^[1-9]$ ]] || { say "start: want a number of servers 1..9, not $n"; exit 2; }
	if [[ -f "$state/hosts" ]]; then
		say "already running"
		env_line
		return 0
	fi
	install_zk
	mkdir -p "$state"
	: >"$state/ports"
	local i peers=() clients=() t0=$SECONDS
	for i in $(seq 1 "$n"); do
		clients+=("$(free_port)")
		peers+=("server.$i=127.0.0.1:$(free_port):$(free_port)")
	done
	for i in $(seq 1 "$n"); do
		local dir="$state/$i"
		mkdir -p "$dir/data"
		{
			echo "tickTime=200"; echo "initLimit=20"; echo "syncLimit=10"
			echo "dataDir=$dir/data"; echo "clientPort=${clients[i - 1]}"; echo "clientPortAddress=127.0.0.1"
			echo "admin.enableServer=false"; echo "4lw.commands.whitelist=srvr,ruok"
			[[ $n -eq 1 ]] || printf '%s\n' "${peers[@]}"
		} >"$dir/zoo.cfg"
		[[ $n -eq 1 ]] || echo "$i" >"$dir/data/myid"
		java -Xmx128m -XX:+UseSerialGC -cp "/etc/zookeeper/conf_example:$jar" -Dzookeeper.log.dir="$dir" \
			org.apache.zookeeper.server.quorum.QuorumPeerMain "$dir/zoo.cfg" >"$dir/log" 2>&1 </dev/null &
		echo $! >"$dir/pid"
	done
	for i in $(seq 1 "$n"); do
		local ok=0
		for _ in $(seq 1 600); do # 60 s
			if serving "${clients[i - 1]}"; then ok=1; break; fi
			sleep 0.1
		done
		if [[ $ok -eq 0 ]]; then
			say "server $i did not serve on 127.0.0.1:${clients[i - 1]} within 60 s:"
			tail -n 20 "$state/$i/log" >&2 || true
			stop
			return 1
		fi
	done
	local hosts
	hosts=$(printf '127.0.0.1:%s,' "${clients[@]}")
	echo "${hosts%,}" >"$state/hosts"
	say "$n ZooKeeper server(s) serving at ${hosts%,} after $((SECONDS - t0)) s (state $state)"
	env_line
}

env_line() {
	[[ -f "$state/hosts" ]] || { say "not running"; return 1; }
	echo "export ZK_HOSTS=$(cat "$state/hosts")"
}

stop() {
	local pidf pid
	for pidf in "$state"/*/pid; do
		[[ -f $pidf ]] || continue
		pid=$(cat "$pidf")
		kill "$pid" 2>/dev/null || true
		for _ in $(seq 1 100); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		kill -9 "$pid" 2>/dev/null || true
		say "stopped ZooKeeper (pid $pid)"
	done
	rm -rf "$state"
}

case "${1:-}" in
install) install_zk ;;
start) start "${2:-1}" ;;
stop) stop ;;
env) env_line ;;
dir) echo "$state" ;;
*)
	echo "usage: $0 install|start [N]|stop|env|dir" >&2
	exit 2
	;;
esac
