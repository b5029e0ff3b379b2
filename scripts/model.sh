#!/usr/bin/env bash
# The Quint model of the lease-and-fence protocol (model/README.md), for
# make model and .ci/run:
#
#   1. installs Quint with `npm ci` in model/ (the versions package-lock.json
#      pins; Node.js 18 or later with npm, Debian's nodejs and npm installed
#      when either is missing);
#   2. simulates the protocol as the code has it (module correct) for a
#      fixed budget, MODEL_SAMPLES random runs of MODEL_STEPS steps from
#      MODEL_SEED, and fails when an invariant is violated;
#   3. runs each mutant (offbyone, undurable, holderexpiry: a deliberate bug
#      each, described in model/lease.qnt) from the same seed for at most
#      MODEL_MUTANT_SAMPLES runs, and fails when Quint does NOT find a
#      counterexample: the invariants must catch every one of them.
#
# A failing run prints the seed that replays it (Quint's "Use --seed=...").
# Quint runs offline (--backend=typescript): only npm ci needs the network.
set -euo pipefail
cd "$(dirname "$0")/../model"
say() { echo "model.sh: $*" >&2; }

samples="${MODEL_SAMPLES:-500}"
steps="${MODEL_STEPS:-40}"
seed="${MODEL_SEED:-1}"
mutant_samples="${MODEL_MUTANT_SAMPLES:-5000}"
for v in "$samples" "$steps" "$mutant_samples"; do
	[[ "$v" =~ ^[1-9][0-9]*$ ]] || { say "bad count $v: want a positive integer"; exit 2; }
done
[[ "$seed" =~ ^(0x[0-9a-fA-F]+|[0-9]+)$ ]] || { say "bad MODEL_SEED $seed: want an integer"; exit 2; }

if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
	sudo=()
	if [[ $(id -u) -ne 0 ]]; then
		command -v sudo >/dev/null 2>&1 || { say "need root (or sudo) to apt-get install nodejs npm"; exit 1; }
		sudo=(sudo)
	fi
	say "installing nodejs and npm from Debian"
	"${sudo[@]}" apt-get update -qq >&2
	DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends nodejs npm >&2
fi
node -e 'process.exit(Number(process.versions.node.split(".")[0]) >= 18 ? 0 : 1)' ||
	{ say "node $(node --version) is older than 18, the oldest Quint 0.33 runs on"; exit 1; }
say "npm ci in model/ (node $(node --version), npm $(npm --version))"
npm ci --no-audit --no-fund >&2
quint=(node node_modules/@informalsystems/quint/dist/src/cli.js)

# The four runs at once, each with its output in a file of its own: on CI's
# two cores that halves the step's time (the runs are single-threaded,
# about 5 s of it each Quint's start).
outs="$(mktemp -d)"
trap 'rm -rf "$outs"' EXIT
# run MAIN SAMPLES: simulate module MAIN of lease.qnt into $outs/MAIN, its
# exit status into $outs/MAIN.rc.
run() {
	local t=$SECONDS rc=0
	"${quint[@]}" run --backend=typescript --main="$1" --max-samples="$2" --max-steps="$steps" \
		--seed="$seed" --invariant=safe lease.qnt >"$outs/$1" 2>&1 || rc=$?
	echo "$rc" >"$outs/$1.rc"
	say "$1: $2 runs of at most $steps steps from seed $seed took $((SECONDS - t)) s (exit $rc): $(grep -E '^\[(ok|violation)\]' "$outs/$1" || echo 'no verdict')"
}
run correct "$samples" &
for m in offbyone undurable holderexpiry; do
	run "$m" "$mutant_samples" &
done
wait
if [[ "$(cat "$outs/correct.rc")" != 0 ]]; then
	cat "$outs/correct" >&2
	say "the protocol violates an invariant (or Quint failed): see above"
	exit 1
fi
for m in offbyone undurable holderexpiry; do
	if [[ "$(cat "$outs/$m.rc")" == 0 ]]; then
		say "mutant $m: no counterexample in $mutant_samples runs: the invariants no longer catch it"
		exit 1
	fi
	if ! grep -q '^\[violation\]' "$outs/$m"; then
		cat "$outs/$m" >&2
		say "mutant $m: Quint failed without a counterexample: see above"
		exit 1
	fi
done
say "the protocol holds its invariants; every mutant has a counterexample"
