#!/usr/bin/env bash
# A throwaway single-member etcd for the etcdlease tests.
#
#   scripts/etcd.sh start   install etcd-server from Debian if `etcd` is missing,
#                           start etcd on free loopback ports with its data in a
#                           temporary folder, wait until it is healthy, and print
#                           `export ETCD_ENDPOINTS=...` (use: eval "$(scripts/etcd.sh start)")
#   scripts/etcd.sh env     print the same line for the running server
#   scripts/etcd.sh stop    stop it and remove its data
#
#   scripts/etcd.sh dir     print the folder its state lives in
#
# State (pid, endpoints, data, log) lives in $ETCD_STATE_DIR, by default
# ${TMPDIR:-/tmp}/snowlab-etcd-UID-KEY: this user's and this checkout's
# (KEY is the checksum of the checkout's path), so that another user's
# or another checkout's stop never stops this server. Messages go to
# stderr; stdout carries only the export line.
set -euo pipefail

# default_state is the state folder when $ETCD_STATE_DIR is not set.
default_state() {
	local root
	root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
	echo "${TMPDIR:-/tmp}/snowlab-etcd-$(id -u)-$(printf %s "$root" | cksum | cut -d' ' -f1)"
}
state="${ETCD_STATE_DIR:-$(default_state)}"
say() { echo "etcd.sh: $*" >&2; }

running() {
	[[ -f "$state/pid" ]] && kill -0 "$(cat "$state/pid")" 2>/dev/null
}

# port_free PORT: nothing accepts connections on 127.0.0.1:PORT.
port_free() {
	! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

free_port() {
	local p
	for _ in $(seq 1 100); do
		p=$((20000 + RANDOM % 40000))
		if port_free "$p"; then
			echo "$p"
			return 0
		fi
	done
	say "no free port found"
	return 1
}

# healthy URL_PORT: etcd's /health says true.
healthy() {
	local reply
	reply=$( (exec 3<>"/dev/tcp/127.0.0.1/$1" &&
		printf 'GET /health HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' >&3 &&
		timeout 2 cat <&3) 2>/dev/null) || return 1
	[[ "$reply" == *'"health":"true"'* ]]
}

install_etcd() {
	command -v etcd >/dev/null 2>&1 && return 0
	say "no etcd on PATH: installing etcd-server from Debian"
	local sudo=()
	if [[ $(id -u) -ne 0 ]]; then
		command -v sudo >/dev/null 2>&1 || { say "need root (or sudo) to apt-get install etcd-server"; return 1; }
		sudo=(sudo)
	fi
	"${sudo[@]}" apt-get update -qq >&2
	# The package's service is not wanted (and cannot start in a container).
	DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends etcd-server >&2
	command -v etcd >/dev/null 2>&1 || { say "etcd still missing after installing etcd-server"; return 1; }
}

start() {
	if running; then
		say "already running (pid $(cat "$state/pid"))"
		env_line
		return 0
	fi
	install_etcd
	mkdir -p "$state"
	local try client peer data pid
	for try in 1 2 3 4 5; do
		client=$(free_port)
		peer=$(free_port)
		[[ "$client" != "$peer" ]] || continue
		data=$(mktemp -d "$state/data.XXXXXX")
		etcd --name default --data-dir "$data" \
			--listen-client-urls "http://127.0.0.1:$client" --advertise-client-urls "http://127.0.0.1:$client" \
			--listen-peer-urls "http://127.0.0.1:$peer" --initial-advertise-peer-urls "http://127.0.0.1:$peer" \
			--initial-cluster "default=http://127.0.0.1:$peer" --initial-cluster-state new \
			--logger zap --log-outputs stderr --log-level warn \
			>"$state/etcd.log" 2>&1 </dev/null &
		pid=$!
		for _ in $(seq 1 300); do # 30 s
			if ! kill -0 "$pid" 2>/dev/null; then
				break
			fi
			if healthy "$client"; then
				echo "$pid" >"$state/pid"
				echo "$data" >"$state/data"
				echo "http://127.0.0.1:$client" >"$state/endpoints"
				say "etcd $(etcd --version | awk '/^etcd Version/ {print $3}') healthy at http://127.0.0.1:$client (pid $pid, data $data)"
				env_line
				return 0
			fi
			sleep 0.1
		done
		say "try $try: etcd did not come up on ports $client/$peer:"
		tail -n 20 "$state/etcd.log" >&2 || true
		kill "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
		rm -rf "$data"
	done
	say "could not start etcd"
	return 1
}

env_line() {
	running || { say "not running"; return 1; }
	echo "export ETCD_ENDPOINTS=$(cat "$state/endpoints")"
}

stop() {
	if running; then
		local pid
		pid=$(cat "$state/pid")
		kill "$pid" 2>/dev/null || true
		for _ in $(seq 1 100); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		kill -9 "$pid" 2>/dev/null || true
		say "stopped etcd (pid $pid)"
	fi
	if [[ -f "$state/data" ]]; then
		rm -rf "$(cat "$state/data")"
	fi
	rm -f "$state/pid" "$state/data" "$state/endpoints"
}

case "${1:-}" in
start) start ;;
stop) stop ;;
env) env_line ;;
dir) echo "$state" ;;
*)
	echo "usage: $0 start|stop|env|dir" >&2
	exit 2
	;;
esac
