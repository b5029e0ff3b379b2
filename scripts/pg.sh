#!/usr/bin/env bash
# A throwaway PostgreSQL for the tests (pglease, snowidd and snowid on -lease pg:).
#
#   scripts/pg.sh start        start one; prints its DSN on stdout (only that)
#   scripts/pg.sh stop DSN     stop the one that DSN names and delete its files
#   scripts/pg.sh crash DSN    stop it at once (pg_ctl stop -m immediate: no
#                              checkpoint, what was not flushed is lost), keeping
#                              its files, as a power cut would
#   scripts/pg.sh restart DSN  start a crashed or stopped one again on the same
#                              port and data folder; it recovers from its WAL
#   scripts/pg.sh datadir DSN  print its data folder
#
# crash and restart are for the pglease tests that restart the server under
# a lease (make test-pg).
#
# start uses Debian's PostgreSQL (apt-get install -y postgresql when no initdb
# is found, which needs root), runs initdb in a fresh folder under
# ${TMPDIR:-/tmp}, and listens on 127.0.0.1 only, on a free port from 54320 up,
# with trust authentication for the loopback. PostgreSQL refuses to run as root,
# so as root the server runs as the postgres user (runuser), in a folder it
# owns. Server settings are the defaults but for the listening address, the
# port and the socket folder: the tests meet what a stock server does.
# Example:
#
#   PG_DSN=$(scripts/pg.sh start) && make test-pg; scripts/pg.sh stop "$PG_DSN"
set -euo pipefail

die() { echo "pg.sh: $*" >&2; exit 1; }

find_bin() {
	local name=$1 d
	if command -v "$name" >/dev/null 2>&1; then command -v "$name"; return 0; fi
	for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
		if [ -x "$d/$name" ]; then echo "$d/$name"; return 0; fi
	done
	return 1
}

ensure_postgres() {
	if find_bin initdb >/dev/null && find_bin pg_ctl >/dev/null; then return 0; fi
	[ "$(id -u)" = 0 ] || die "no initdb found and not root: install Debian's postgresql package (apt-get install postgresql)"
	echo "pg.sh: installing postgresql from Debian's packages" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq >&2
	apt-get install -y -qq postgresql postgresql-contrib >&2
	find_bin initdb >/dev/null || die "initdb still missing after installing postgresql"
}

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# as_owner runs a command as the data folder's owner: postgres when we are root.
as_owner() {
	if [ "$(id -u)" = 0 ]; then
		runuser -u postgres -- "$@"
	else
		"$@"
	fi
}

state_dir() { echo "${TMPDIR:-/tmp}/snowlab-pg.$1"; }

start() {
	ensure_postgres
	local initdb port dir fresh
	initdb=$(find_bin initdb)
	if [ "$(id -u)" = 0 ]; then
		id postgres >/dev/null 2>&1 || useradd --system --home-dir /var/lib/postgresql --shell /bin/bash postgres
	fi
	# initdb once, in a folder of no port yet: the data folder moves to the
	# port's state folder, and on to the next port if this one is taken.
	fresh=$(mktemp -d "${TMPDIR:-/tmp}/snowlab-pg.new.XXXXXX")
	[ "$(id -u)" = 0 ] && chown postgres: "$fresh"
	chmod 700 "$fresh"
	if ! as_owner "$initdb" -D "$fresh/data" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 --no-sync >"$fresh/initdb.log" 2>&1; then
		cat "$fresh/initdb.log" >&2
		rm -rf "$fresh"
		die "initdb failed"
	fi
	for port in $(seq 54320 54420); do
		dir=$(state_dir "$port")
		port_free "$port" && mkdir "$dir" 2>/dev/null || continue
		[ "$(id -u)" = 0 ] && chown postgres: "$dir"
		chmod 700 "$dir"
		mv "$fresh/data" "$dir/data"
		if run_server "$dir" "$port"; then
			rm -rf "$fresh"
			echo "postgres://postgres@127.0.0.1:$port/postgres?sslmode=disable"
			return 0
		fi
		# A connect test cannot see every holder of a port (a server
		# still closing its listener, one bound but not yet listening):
		# the server's own bind is the test that counts.
		if grep -q "could not bind\|Address already in use" "$dir/server.log" 2>/dev/null; then
			echo "pg.sh: port $port taken after all; trying the next" >&2
			mv "$dir/data" "$fresh/data"
			rm -rf "$dir"
			continue
		fi
		cat "$dir/server.log" >&2 || true
		rm -rf "$fresh"
		die "the server did not start"
	done
	rm -rf "$fresh"
	die "no free port in 54320..54420"
}

# dsn_port is the port of a DSN pg.sh start printed (dies on any other).
dsn_port() {
	local dsn=$1 port
	[ -n "$dsn" ] || die "usage: pg.sh $2 DSN (the line pg.sh start printed)"
	port=$(echo "$dsn" | sed -n 's/.*127\.0\.0\.1:\([0-9]*\).*/\1/p')
	[ -n "$port" ] || die "no 127.0.0.1:PORT in the DSN: not a server pg.sh started"
	echo "$port"
}

# server_dir is the state folder of the server a DSN names.
server_dir() {
	local port dir
	port=$(dsn_port "$1" "$2") || exit 1
	dir=$(state_dir "$port")
	[ -d "$dir/data" ] || die "$dir holds no server"
	echo "$dir"
}

# run_server starts the server in folder $1 on port $2; it fails, leaving
# the server's log in $1/server.log, when the server does not start.
run_server() {
	local dir=$1 port=$2 pg_ctl
	pg_ctl=$(find_bin pg_ctl) || die "no pg_ctl"
	as_owner "$pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
		-o "-c listen_addresses=127.0.0.1 -p $port -k $dir" start >&2
}

stop() {
	local dir pg_ctl
	dir=$(server_dir "${1:-}" stop) || exit 1
	pg_ctl=$(find_bin pg_ctl) || die "no pg_ctl"
	as_owner "$pg_ctl" -D "$dir/data" -m fast -w stop >&2 || true
	rm -rf "$dir"
}

crash() {
	local dir pg_ctl
	dir=$(server_dir "${1:-}" crash) || exit 1
	pg_ctl=$(find_bin pg_ctl) || die "no pg_ctl"
	as_owner "$pg_ctl" -D "$dir/data" -m immediate -w stop >&2
}

restart() {
	local dir port
	dir=$(server_dir "${1:-}" restart) || exit 1
	port=$(dsn_port "$1" restart)
	if ! run_server "$dir" "$port"; then
		cat "$dir/server.log" >&2 || true
		die "the server did not start"
	fi
}

case "${1:-}" in
start) start ;;
stop) stop "${2:-}" ;;
crash) crash "${2:-}" ;;
restart) restart "${2:-}" ;;
datadir) d=$(server_dir "${2:-}" datadir) && echo "$d/data" ;;
*) die "usage: pg.sh start | pg.sh stop|crash|restart|datadir DSN" ;;
esac
