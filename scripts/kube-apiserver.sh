#!/usr/bin/env bash
# A throwaway kube-apiserver on loopback for the k8slease tests.
#
#   scripts/kube-apiserver.sh start   build kube-apiserver v1.37.2 from the Go module proxy if
#                                     it is not in the cache, start an etcd (scripts/etcd.sh)
#                                     and kube-apiserver on free loopback ports, wait for
#                                     /readyz, write a kubeconfig, and print
#                                     `export KUBECONFIG=...` (eval "$(scripts/kube-apiserver.sh start)")
#   scripts/kube-apiserver.sh env     print the same line for the running server
#   scripts/kube-apiserver.sh build   only build (or find) the binary; print its path
#   scripts/kube-apiserver.sh stop    stop both servers and remove their data
#
# The binary is cached outside the checkout, keyed by version:
# ${SNOWLAB_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/snowlab}/kube-apiserver-v1.37.2/kube-apiserver,
# built from the scratch module in scripts/kube-apiserver/ (about 13
# CPU-minutes cold; the build's time is printed). State (pids, token
# file, service-account keys, certificates, kubeconfig, logs) lives in
# $KUBE_STATE_DIR, by default ${TMPDIR:-/tmp}/snowlab-kube. The user is
# in system:masters through a bearer token from a token file. Messages go
# to stderr; stdout carries only the export lines.
set -euo pipefail

version=v1.37.2
here=$(cd "$(dirname "$0")" && pwd)
cache="${SNOWLAB_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/snowlab}/kube-apiserver-$version"
bin="$cache/kube-apiserver"
state="${KUBE_STATE_DIR:-${TMPDIR:-/tmp}/snowlab-kube}"
say() { echo "kube-apiserver.sh: $*" >&2; }

running() {
	[[ -f "$state/pid" ]] && kill -0 "$(cat "$state/pid")" 2>/dev/null
}

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

# build: the cached binary, built under a lock (two callers build once).
# The lock's descriptor is closed before build returns: start runs the
# server in the background after it, and a server that inherited the
# descriptor held the lock for its whole life, so every other start on the
# machine waited until it stopped.
build() {
	mkdir -p "$cache"
	exec 9>"$cache/build.lock"
	flock 9
	if [[ -x "$bin" ]]; then
		exec 9>&-
		return 0
	fi
	say "no $bin: building kube-apiserver $version from the Go module proxy (about 13 CPU-minutes)"
	mkdir -p "$cache/src"
	cp "$here/kube-apiserver/go.mod" "$here/kube-apiserver/go.sum" "$here/kube-apiserver/tools.go" "$cache/src/"
	local t0=$SECONDS
	(cd "$cache/src" && GOWORK=off GOFLAGS=-mod=mod go build -o "$bin.tmp" k8s.io/kubernetes/cmd/kube-apiserver) >&2
	mv "$bin.tmp" "$bin"
	say "built $bin in $((SECONDS - t0)) s"
	exec 9>&-
}

start() {
	if running; then
		say "already running (pid $(cat "$state/pid"))"
		env_line
		return 0
	fi
	build
	mkdir -p "$state"
	local etcd_ep
	etcd_ep=$(ETCD_STATE_DIR="$state/etcd" "$here/etcd.sh" start | sed -n 's/^export ETCD_ENDPOINTS=//p')
	[[ -n "$etcd_ep" ]] || { say "etcd did not start"; return 1; }
	local token
	token=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
	echo "$token,snowlab-admin,snowlab-admin,\"system:masters\"" >"$state/tokens.csv"
	chmod 600 "$state/tokens.csv"
	openssl genrsa -out "$state/sa.key" 2048 2>/dev/null
	openssl rsa -in "$state/sa.key" -pubout -out "$state/sa.pub" 2>/dev/null
	local try port pid
	for try in 1 2 3; do
		port=$(free_port)
		"$bin" --etcd-servers="$etcd_ep" --token-auth-file="$state/tokens.csv" \
			--authorization-mode=RBAC --secure-port="$port" --bind-address=127.0.0.1 \
			--advertise-address=127.0.0.1 --endpoint-reconciler-type=none \
			--service-account-issuer=https://kubernetes.default.svc \
			--service-account-key-file="$state/sa.pub" --service-account-signing-key-file="$state/sa.key" \
			--cert-dir="$state/certs" --service-cluster-ip-range=10.96.0.0/24 \
			>"$state/kube-apiserver.log" 2>&1 </dev/null &
		pid=$!
		for _ in $(seq 1 1200); do # 120 s: a loaded 2-core machine is slow
			kill -0 "$pid" 2>/dev/null || break
			if curl -sfk -H "Authorization: Bearer $token" "https://127.0.0.1:$port/readyz" >/dev/null 2>&1; then
				echo "$pid" >"$state/pid"
				kubeconfig "$port" "$token"
				say "kube-apiserver $version ready at https://127.0.0.1:$port (pid $pid, etcd $etcd_ep, log $state/kube-apiserver.log)"
				env_line
				return 0
			fi
			sleep 0.1
		done
		say "try $try: kube-apiserver did not become ready on port $port:"
		tail -n 20 "$state/kube-apiserver.log" >&2 || true
		kill "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
	ETCD_STATE_DIR="$state/etcd" "$here/etcd.sh" stop
	say "could not start kube-apiserver"
	return 1
}

# kubeconfig PORT TOKEN: $state/kubeconfig for the server, trusting the
# self-signed certificate it made in its cert dir.
kubeconfig() {
	cat >"$state/kubeconfig" <<EOC
apiVersion: v1
kind: Config
clusters:
- name: snowlab
  cluster:
    server: https://127.0.0.1:$1
    certificate-authority: $state/certs/apiserver.crt
users:
- name: snowlab-admin
  user:
    token: $2
contexts:
- name: snowlab
  context:
    cluster: snowlab
    user: snowlab-admin
    namespace: default
current-context: snowlab
EOC
	chmod 600 "$state/kubeconfig"
}

env_line() {
	running || { say "not running"; return 1; }
	echo "export KUBECONFIG=$state/kubeconfig"
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
		say "stopped kube-apiserver (pid $pid)"
	fi
	ETCD_STATE_DIR="$state/etcd" "$here/etcd.sh" stop
	rm -rf "$state/pid" "$state/certs" "$state/tokens.csv" "$state/sa.key" "$state/sa.pub" "$state/kubeconfig"
}

case "${1:-}" in
start) start ;;
stop) stop ;;
env) env_line ;;
build)
	build
	echo "$bin"
	;;
*)
	echo "usage: $0 start|stop|env|build" >&2
	exit 2
	;;
esac
