#!/usr/bin/env bash
# The many-core sweep: the limit ladder and the lab's standard suite at
# GOMAXPROCS 1, 2, 4, 8 and 16 (saturate sweeping 1..32 goroutines), from
# static binaries built beforehand on another host:
#
#   CGO_ENABLED=0 go test -c -ldflags='-s -w' -o bin/device/atomicgen.test ./atomicgen
#   (the same for ./shardedgen, an atomicgen.test from the commit before a
#   change as atomicgen-before.test, and go build ./lab/cmd/loadgen), gzip -9 each
#   scripts/device-sweep.sh OUTDIR
#
# Everything lands in OUTDIR: host.txt, ladder.txt and sharded.txt (Go
# benchmark format, for benchstat), results.tgz (the lab's result files)
# and contention/ (loadgen contention's files: oversubscription beside a
# CPU hog, and the padding A/B at every placement the host has, with
# hardware cache counters where it has a PMU), which `loadgen publish
# OUTDIR/contention/*.json` copies into results/ for committing.
set -u
out=${1:?usage: device-sweep.sh OUTDIR}
bin=${BIN:-bin/device}
mkdir -p "$out" /tmp/sweep
for f in "$bin"/*.gz; do gunzip -c "$f" >"/tmp/sweep/$(basename "${f%.gz}")"; done
chmod +x /tmp/sweep/*
b=/tmp/sweep
{ nproc; lscpu; } >"$out/host.txt" 2>&1
# 1. The ladder, before and after, interleaved: 10 rounds of one count each.
for r in $(seq 10); do
	"$b/atomicgen-before.test" -test.run '^$' -test.bench 'Ladder' -test.benchtime 200ms -test.count 1 |
		sed 's#^BenchmarkLadder/#BenchmarkLadderBefore/#'
	"$b/atomicgen.test" -test.run '^$' -test.bench 'Ladder' -test.benchtime 200ms -test.count 1
done >"$out/ladder.txt" 2>&1
echo "ladder done $(date +%T)"
# 2. shardedgen against its per-P limit at 1..16 Ps, 3 interleaved rounds.
for r in 1 2 3; do
	"$b/shardedgen.test" -test.run '^$' -test.bench 'Bare|NextIDParallel' -test.cpu 1,2,4,8,16 -test.benchtime 200ms -test.count 1
done >"$out/sharded.txt" 2>&1
echo "sharded done $(date +%T)"
# 3. The lab's standard suite per GOMAXPROCS; steady only at 16 to fit the time.
for p in 16 1 2 4 8; do
	w=burst,saturate
	[ "$p" = 16 ] && w=burst,saturate,steady
	GOMAXPROCS=$p "$b/loadgen" run -q -out "$out/results" -sweep 1,2,4,8,16,32 -workloads "$w" >"$out/lab-$p.txt" 2>&1
	echo "lab GOMAXPROCS=$p done $(date +%T)"
done
# 4. Oversubscription and placement: the G=P and G=8P points at every
# GOMAXPROCS the host has, and 8 goroutines placed (SMT siblings, cores,
# packages: whatever the host lacks is listed as skipped, with why).
"$b/loadgen" contention -q -out "$out/contention" -place-g 8 >"$out/contention.txt" 2>&1
echo "contention done $(date +%T)"
tar czf "$out/results.tgz" -C "$out" results && rm -rf "$out/results"
tar czf "$out/lab-tables.tgz" -C "$out" $(cd "$out" && ls lab-*.txt) && rm -f "$out"/lab-*.txt
ls -la "$out"
