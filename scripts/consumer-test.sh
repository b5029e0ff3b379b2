#!/usr/bin/env bash
# What a user outside the tree gets from this repository's HEAD commit.
#
#   scripts/consumer-test.sh          (make consumer-test; .ci/run runs it)
#
# The go command is served this repository as github.com/snowlab/snowlab
# from a bare copy holding HEAD (scripts/localrepo.sh: git url.insteadOf,
# GOPRIVATE, no workspace), third-party modules coming from the module
# proxy as usual. Then, as the README's Install section says a user can:
#   1. go install snowid, loadgen, snowidd and the etcd-enabled snowid at
#      HEAD (a fresh GOBIN), and run each once;
#   2. build a new module requiring the library and etcdlease at HEAD, and
#      check that its go.sum holds nothing of the lab (plotting, database
#      drivers, peer libraries, the lab and loadgen modules themselves).
#
# go install builds a module at a version with the versions its go.mod
# requires, so snowidd at HEAD is built with the library at the commit
# snowidd/go.mod pins, not at HEAD. Before building anything this checks
# that every such pin holds HEAD's code of the module it names (its Go
# files, embedded files and go.mod requirements), and fails, saying to run
# make pin-modules, when one does not: otherwise this would pass while
# testing older code than HEAD's.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/localrepo.sh
. scripts/localrepo.sh

head=$(git rev-parse HEAD)
if [ -n "$(git status --porcelain --untracked-files=no)" ]; then
	echo "consumer-test: uncommitted changes are not tested: this serves HEAD, ${head:0:12}" >&2
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

mapfile -t modules < <(localrepo_modules)
declare -A dir_of
for m in "${modules[@]}"; do
	dir_of[${m#* }]=${m%% *}
done
# Folders of modules (tools/ included) that a module's tree stops at.
mapfile -t nested < <(git ls-files '*/go.mod' | xargs -n1 dirname)
# Files the go command embeds into a build (//go:embed), which count as
# code below.
mapfile -t embedded < <(go list -f '{{$d := .Dir}}{{range .EmbedFiles}}{{$d}}/{{.}}{{"\n"}}{{end}}' ./... | sed "s#^$localrepo_root/##")

# lacks MODDIR REV: the files of the module in MODDIR that differ between
# REV and HEAD in a way a build of it sees.
lacks() {
	local moddir=$1 rev=$2 f
	local excl=() n
	for n in "${nested[@]}"; do
		if [ "$moddir" = . ] || [[ $n == "$moddir"/* ]]; then
			excl+=(":(exclude)$n")
		fi
	done
	git diff --name-only "$rev" HEAD -- "$moddir" "${excl[@]}" | while read -r f; do
		case "$f" in
		*_test.go | */testdata/*) ;;
		*.go) echo "$f" ;;
		*go.mod)
			# A pin on this repository's modules moves with every commit;
			# the other requirements are code.
			if ! diff -q <(git show "$rev:$f" 2>/dev/null | grep -v 'github.com/snowlab/snowlab') \
				<(git show "HEAD:$f" | grep -v 'github.com/snowlab/snowlab') >/dev/null; then
				echo "$f"
			fi
			;;
		*) if printf '%s\n' "${embedded[@]}" | grep -qxF "$f"; then echo "$f"; fi ;;
		esac
	done
}

# commit_of PATH VERSION: the commit that VERSION of module PATH names. A
# pseudo-version ends with the commit's first 12 hex digits; a release is
# the tag of the module's folder (v0.1.0 for the library, lab/v0.1.0).
commit_of() {
	local v=$2 d=${dir_of[$1]} ref
	if [[ ${v##*-} =~ ^[0-9a-f]{12}$ ]]; then
		ref=${v##*-}
	elif [ "$d" = . ]; then
		ref=refs/tags/$v
	else
		ref=refs/tags/$d/$v
	fi
	git rev-parse --verify --quiet "$ref^{commit}"
}

# Every pin of a module of this repository on another one names a commit
# holding HEAD's code of that module.
stale=0
for m in "${modules[@]}"; do
	dir=${m%% *} mod=${m#* }
	if git show "HEAD:$dir/go.mod" | grep -qE 'github\.com/snowlab/snowlab[^[:space:]]*([[:space:]]+v[^[:space:]]+)?[[:space:]]+=>'; then
		echo "consumer-test: $dir/go.mod replaces a module of this repository, which go install refuses" >&2
		stale=1
	fi
	while read -r path v; do
		if ! full=$(commit_of "$path" "$v"); then
			echo "consumer-test: $mod requires $path@$v, which names no commit of this repository" >&2
			stale=1
			continue
		fi
		files=$(lacks "${dir_of[$path]}" "$full")
		if [ -n "$files" ]; then
			echo "consumer-test: $mod pins $path@$v, which lacks HEAD's changes to:" >&2
			sed -n 's/^/  /;1,20p' <<<"$files" >&2
			[ "$(wc -l <<<"$files")" -le 20 ] || echo "  and $(($(wc -l <<<"$files") - 20)) more" >&2
			stale=1
		fi
	done < <(git show "HEAD:$dir/go.mod" | awk '
		/^require[[:space:]]*\(/ { block = 1; next }
		block && /^\)/ { block = 0; next }
		/^require[[:space:]]+[^(]/ { print $2, $3; next }
		block { print $1, $2 }' | grep '^github.com/snowlab/snowlab[/ ]' || true)
done
if [ "$stale" -ne 0 ]; then
	echo "consumer-test: FAIL: the modules' pins are older than HEAD's code. Run make pin-modules (scripts/pin-modules.sh), commit the go.mod and go.sum files it rewrites, and run this again." >&2
	exit 1
fi

localrepo_serve "$tmp" "$head"
echo "consumer-test: serving ${head:0:12} as github.com/snowlab/snowlab, no workspace"

# 1. The commands, as the README installs them.
bin=$tmp/bin
mkdir -p "$bin/etcd"
install() { # GOBIN PACKAGE
	echo "consumer-test: go install $2@${head:0:12}"
	GOBIN=$1 GOFLAGS= go install "$2@$head"
}
install "$bin" github.com/snowlab/snowlab/cmd/snowid
install "$bin" github.com/snowlab/snowlab/cmd/loadgen
install "$bin" github.com/snowlab/snowlab/snowidd/cmd/snowidd
install "$bin/etcd" github.com/snowlab/snowlab/etcdlease/cmd/snowid

# expect NAME WANT-STATUS PATTERN CMD...: run CMD, check its exit status
# and that its output holds PATTERN.
expect() {
	local name=$1 want=$2 pattern=$3 got=0
	shift 3
	"$@" >"$tmp/out" 2>&1 || got=$?
	if [ "$got" -ne "$want" ] || ! grep -qE -- "$pattern" "$tmp/out"; then
		echo "consumer-test: FAIL: $name: exit status $got (want $want), output:" >&2
		cat "$tmp/out" >&2
		exit 1
	fi
	echo "consumer-test: $name: ok ($(grep -E -m1 -- "$pattern" "$tmp/out"))"
}
expect "snowid layout" 0 '41/10/12' "$bin/snowid" layout
expect "snowid without etcd" 2 'lease stores here: dir\)' "$bin/snowid" gen -lease nosuch:x
expect "etcd snowid" 2 'lease stores here: dir, etcd' "$bin/etcd/snowid" gen -lease nosuch:x
expect "loadgen list" 0 'atomicgen' "$bin/loadgen" list
expect "snowidd -h" 0 '-lease' "$bin/snowidd" -h

# 2. A consumer of the library and etcdlease.
app=$tmp/consumer
mkdir -p "$app"
cat >"$app/main.go" <<'EOF'
// A service's use of the library: a generator on a node id, and the etcd
// lease store it would take its node id from (linked, not dialled: there
// is no etcd here).
package main

import (
	"fmt"
	"os"
	"time"

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/atomicgen"
	"github.com/snowlab/snowlab/etcdlease"
	"github.com/snowlab/snowlab/nodeid"
)

func main() {
	var open nodeid.Opener = etcdlease.Opener(10 * time.Second)
	_ = open
	g, err := atomicgen.New(snowlab.Config{Node: 7})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	id, err := g.NextID()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println("node", snowlab.DefaultLayout.Decode(id).Node)
}
EOF
(
	cd "$app"
	go mod init example.com/consumer 2>/dev/null
	go get "github.com/snowlab/snowlab@$head" "github.com/snowlab/snowlab/etcdlease@$head"
	go mod tidy
	go build -o consumer .
)
expect "consumer" 0 '^node 7$' "$app/consumer"
lab='chromedp|jackc/pgx|modernc.org/sqlite|gonum.org|influxdata|golang.org/x/perf|HdrHistogram|go-perfevent|sony/sonyflake|bwmarrin/snowflake|oklog/ulid|google/uuid|klauspost/cpuid|schollz/progressbar|github.com/snowlab/snowlab/(lab|cmd/loadgen|snowidd)[ /]'
echo "consumer-test: the consumer's go.mod:"
sed 's/^/  /' "$app/go.mod"
echo "consumer-test: go list -m all of the consumer:"
(cd "$app" && go list -m all) | sed 's/^/  /'
if grep -E "$lab" "$app/go.sum" >"$tmp/lab"; then
	echo "consumer-test: FAIL: the consumer's go.sum holds modules of the lab:" >&2
	sed 's/^/  /' "$tmp/lab" >&2
	exit 1
fi
echo "consumer-test: PASS: the commands install and run at ${head:0:12}; the consumer's go.sum ($(wc -l <"$app/go.sum") lines) holds nothing of the lab"
