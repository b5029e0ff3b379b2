#!/usr/bin/env bash
# The real clients snowidd's tests call it with, installed from Debian when
# missing: curl (the JSON path) and python3-grpcio (a client in another
# language, run by /usr/bin/python3). grpcurl needs nothing here: the tests
# run it as a Go tool of snowidd/tools.mod.
#
#   scripts/snowidd-clients.sh     install what is missing; says so on stderr
set -euo pipefail
say() { echo "snowidd-clients.sh: $*" >&2; }

missing=()
command -v curl >/dev/null 2>&1 || missing+=(curl)
/usr/bin/python3 -c 'import grpc' >/dev/null 2>&1 || missing+=(python3-grpcio)
if [[ ${#missing[@]} -eq 0 ]]; then
	say "curl and python3-grpcio are installed"
	exit 0
fi
sudo=()
if [[ $(id -u) -ne 0 ]]; then
	command -v sudo >/dev/null 2>&1 || { say "need root (or sudo) to apt-get install ${missing[*]}"; exit 1; }
	sudo=(sudo)
fi
say "installing ${missing[*]} from Debian"
"${sudo[@]}" apt-get update -qq >&2
DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
/usr/bin/python3 -c 'import grpc' || { say "python3-grpcio installed, but /usr/bin/python3 cannot import grpc"; exit 1; }
