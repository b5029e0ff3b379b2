#!/usr/bin/env bash
# scripts/instr-gate.sh [loadgen instr flags]: the instruction-count gate
# (lab/internal/instr). It installs valgrind from Debian when it is missing
# and apt-get can run (as root, or through sudo without a password), builds
# the target the gate counts, bin/instrpath, static (CGO_ENABLED=0: no
# dynamic loader or libc start-up in the counts), builds bin/loadgen, and
# runs loadgen instr on it with the flags given (-write-baseline
# re-baselines: make instr-baseline). Where valgrind cannot be had (macOS,
# Windows, no apt-get) it says so and exits 0, unless
# SNOWLAB_REQUIRE_VALGRIND=1 (as .ci/run sets), which makes that a failure.
set -euo pipefail
cd "$(dirname "$0")/.."
GO="${GO:-go}"
if ! command -v valgrind >/dev/null 2>&1; then
	sudo=""
	if [ "$(id -u)" != 0 ] && command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then sudo="sudo -n"; fi
	if [ "$(uname -s)" = Linux ] && command -v apt-get >/dev/null 2>&1 && { [ "$(id -u)" = 0 ] || [ -n "$sudo" ]; }; then
		echo "instr-gate: installing valgrind from Debian (apt-get install -y valgrind)"
		$sudo apt-get update -qq
		DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq valgrind >/dev/null
	fi
fi
if ! command -v valgrind >/dev/null 2>&1; then
	if [ "${SNOWLAB_REQUIRE_VALGRIND:-}" = 1 ]; then
		echo "instr-gate: valgrind is missing and could not be installed, and SNOWLAB_REQUIRE_VALGRIND=1" >&2
		exit 1
	fi
	echo "instr-gate: skipped: no valgrind on $(uname -s) (it runs on Linux; apt-get install valgrind); SNOWLAB_REQUIRE_VALGRIND=1 makes this fail"
	exit 0
fi
mkdir -p bin
CGO_ENABLED=0 "$GO" build -o bin/instrpath ./lab/internal/instr/instrpath
"$GO" build -o bin/loadgen ./lab/cmd/loadgen
exec bin/loadgen instr -target bin/instrpath "$@"
