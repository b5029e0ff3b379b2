#!/usr/bin/env bash
# Interleaved benchmark rounds for benchstat: each round runs every
# package's benchmarks once (-count 1), so that drift on the host (another
# process, frequency changes) moves every benchmark alike instead of
# landing on whichever ran while it lasted. ROUNDS rounds give benchstat
# ROUNDS samples per benchmark: 10 is enough for a verdict at p<0.05.
#
#   scripts/bench.sh [-rounds N] [-bench REGEXP] [-benchtime D] [-o FILE] [PKG...]
#
# PKG defaults to the generator packages and clocksrc. The output is Go's
# benchmark format: go run golang.org/x/perf/cmd/benchstat FILE.
set -euo pipefail
rounds=10 bench=. benchtime=300ms out=bench.txt
while [ $# -gt 0 ]; do
	case "$1" in
	-rounds) rounds=$2; shift 2 ;;
	-bench) bench=$2; shift 2 ;;
	-benchtime) benchtime=$2; shift 2 ;;
	-o) out=$2; shift 2 ;;
	-*) echo "bench.sh: unknown flag $1" >&2; exit 2 ;;
	*) break ;;
	esac
done
pkgs=("$@")
[ ${#pkgs[@]} -gt 0 ] || pkgs=(./atomicgen ./mutexgen ./shardedgen ./clocksrc)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
bins=()
for p in "${pkgs[@]}"; do
	b="$dir/$(echo "$p" | tr -c 'A-Za-z0-9\n' '_').test"
	go test -c -o "$b" "$p"
	bins+=("$b")
done
: >"$out"
for r in $(seq "$rounds"); do
	echo "round $r/$rounds" >&2
	for b in "${bins[@]}"; do
		"$b" -test.run '^$' -test.bench "$bench" -test.benchtime "$benchtime" -test.count 1 >>"$out"
	done
done
echo "wrote $out ($rounds interleaved rounds); summarise with: go run golang.org/x/perf/cmd/benchstat $out" >&2
