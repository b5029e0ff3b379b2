#!/usr/bin/env bash
# What a user outside the tree gets from this repository's HEAD commit.
#
#   scripts/consumer-test.sh          (make consumer-test; .ci/run runs it)
#
# The go command is served this repository as github.com/snowlab/snowlab
# from a bare copy holding HEAD (scripts/localrepo.sh: git url.insteadOf,
# GOPRIVATE, no workspace), third-party modules coming from the module
# proxy as usual. Then, as the README's Install section says a user can:
#   1. go install snowid (every lease store in one command), loadgen and
#      snowidd at HEAD (a fresh GOBIN), and run each once, snowid on each
#      of its lease stores;
#   2. build two new modules, one requiring the library at HEAD and one
#      the library and etcdlease, run them, print their go list -m all,
#      and check that their go.sum holds nothing of the lab (plotting,
#      database drivers, peer libraries, the lab module).
#
# A module at a version builds with the versions its go.mod requires:
# snowidd at HEAD with the library at the commit snowidd/go.mod pins, not
# at HEAD. A pin need not move with every commit, only when a module
# needs another's newer code. So before anything else, every module that
# pins another at a commit lacking HEAD's code of it (its Go files,
# embedded files and go.mod requirements) is vetted at HEAD outside the
# workspace, against the versions it pins (go vet type-checks its
# packages and their tests): this fails, saying to run make pin-modules,
# only when one does not build so. It also fails when a go.mod replaces a
# module of this repository (go install refuses it) or go.work does not
# stand the working copy in for a pinned version (inside the tree the go
# command would fetch it).
set -euo pipefail
export LC_ALL=C # sort and comm below must agree on the order
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
bad=0
declare -A behind=() # module folder -> the pins of it that lack HEAD's code
for m in "${modules[@]}"; do
	dir=${m%% *} mod=${m#* }
	if git show "HEAD:$dir/go.mod" | grep -qE 'github\.com/snowlab/snowlab[^[:space:]]*([[:space:]]+v[^[:space:]]+)?[[:space:]]+=>'; then
		echo "consumer-test: $dir/go.mod replaces a module of this repository, which go install refuses" >&2
		bad=1
	fi
	while read -r path v; do
		if ! git show HEAD:go.work | grep -qE "^[[:space:]]*${path//./\\.} $v => "; then
			echo "consumer-test: go.work does not stand the working copy in for $path@$v, which $mod pins, so that inside the tree the go command would fetch it" >&2
			bad=1
		fi
		if ! full=$(localrepo_commit "${dir_of[$path]}" "$v") || [ -n "$(localrepo_changed "${dir_of[$path]}" "$full")" ]; then
			behind[$dir]+=" $path@$v"
		fi
	done < <(git show "HEAD:$dir/go.mod" | awk '
		/^require[[:space:]]*\(/ { block = 1; next }
		block && /^\)/ { block = 0; next }
		/^require[[:space:]]+[^(]/ { print $2, $3; next }
		block { print $1, $2 }' | grep '^github.com/snowlab/snowlab[/ ]' || true)
done
[ "$bad" -eq 0 ] || exit 1

localrepo_serve "$tmp" "$head"
echo "consumer-test: serving ${head:0:12} as github.com/snowlab/snowlab, no workspace"
if [ "${#behind[@]}" -gt 0 ]; then
	mkdir "$tmp/src"
	git archive HEAD | tar -x -C "$tmp/src"
	for dir in $(printf '%s\n' "${!behind[@]}" | sort); do
		echo "consumer-test: go vet ./... in $dir at ${head:0:12}, against the versions it pins older than HEAD's code:${behind[$dir]}"
		if ! (cd "$tmp/src/$dir" && GOFLAGS=-mod=readonly go vet ./...); then
			echo "consumer-test: FAIL: $dir at HEAD does not build against the versions it pins:${behind[$dir]}. It needs a newer one: run make pin-modules (scripts/pin-modules.sh), commit the go.mod, go.sum and go.work files it rewrites, and run this again." >&2
			exit 1
		fi
	done
fi

# 1. The commands, as the README installs them.
bin=$tmp/bin
mkdir -p "$bin"
install() { # GOBIN PACKAGE
	echo "consumer-test: go install $2@${head:0:12}"
	GOBIN=$1 GOFLAGS= go install "$2@$head"
}
install "$bin" github.com/snowlab/snowlab/snowidd/cmd/snowid
install "$bin" github.com/snowlab/snowlab/lab/cmd/loadgen
install "$bin" github.com/snowlab/snowlab/snowidd/cmd/snowidd

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
# The one snowid links every lease store: a dir: lease mints, and an
# etcd: or pg: lease on a port nothing listens on reaches the store's
# client (exit 1, the store is down) rather than an unknown scheme (exit 2).
expect "snowid lease stores" 2 'lease stores here: dir, etcd, k8s, pg, zk\)' "$bin/snowid" gen -lease nosuch:x
expect "snowid gen -lease dir:" 0 '^[0-9]+$' "$bin/snowid" gen -lease "dir:$tmp/nodeids" -n 2
expect "snowid gen -lease static:" 0 '^[0-9]+$' "$bin/snowid" gen -lease static:7
expect "snowid gen -lease etcd:" 1 'etcdlease: no etcd at http://127.0.0.1:1' "$bin/snowid" gen -lease etcd:http://127.0.0.1:1/app
expect "snowid gen -lease pg:" 1 'pglease: .*connection refused' "$bin/snowid" gen -lease "pg:postgres://snow@127.0.0.1:1/db?sslmode=disable"
expect "snowid gen -lease zk:" 1 'zklease: ZooKeeper unreachable' "$bin/snowid" gen -lease zk:127.0.0.1:1/app
expect "loadgen list" 0 'atomicgen' "$bin/loadgen" list
expect "snowidd -h" 0 '-lease' "$bin/snowidd" -h

# 2. Consumers: a service of the library alone, and one that also takes
# its node id from etcd. What the lab requires (its direct requirements,
# and the lab module) must reach neither's go.sum, except,
# for the second, what etcdlease's own build list holds too (grpc's tests
# require google/uuid and gonum, x/net's x/term): those come with etcd.
labmods=$(
	for d in lab; do
		git show "HEAD:$d/go.mod" | awk '
			/^module/ { print $2 }
			/^require[[:space:]]*\(/ { block = 1; next }
			block && /^\)/ { block = 0; next }
			block && !/\/\/ indirect/ { print $1 }'
	done | grep -vxE 'github.com/snowlab/snowlab(/snowidd)?|github.com/stretchr/testify|golang.org/x/sys' | sort -u
)
git show HEAD:etcdlease/go.mod >"$tmp/etcdlease.mod"
git show HEAD:etcdlease/go.sum >"$tmp/etcdlease.sum"
etcdmods=$(cd etcdlease && go list -modfile="$tmp/etcdlease.mod" -m -f '{{.Path}}' all | sort -u)

# consumer NAME WITH-ETCD: build and run a module requiring the library
# (and etcdlease when WITH-ETCD is 1) at HEAD; check its go.sum.
consumer() {
	local name=$1 etcd=$2 app=$tmp/$1 allowed=
	mkdir -p "$app"
	# The lease store is linked, not dialled: there is no etcd here. The
	# library's consumer is the same program without the lines marked etcd.
	cat >"$app/main.go" <<'EOF'
// A service's use of the library: a generator on a node id.
package main

import (
	"fmt"
	"os"
	"time" // etcd

	"github.com/snowlab/snowlab"
	"github.com/snowlab/snowlab/atomicgen"
	"github.com/snowlab/snowlab/etcdlease" // etcd
	"github.com/snowlab/snowlab/nodeid"    // etcd
)

// open is where the service would take its node id from. // etcd
var open nodeid.Opener = etcdlease.Opener(10 * time.Second) // etcd

func main() {
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
	[ "$etcd" = 1 ] || sed -i '/\/\/ etcd$/d' "$app/main.go"
	local get=("github.com/snowlab/snowlab@$head")
	[ "$etcd" = 0 ] || get+=("github.com/snowlab/snowlab/etcdlease@$head")
	(
		cd "$app"
		go mod init "example.com/$name" 2>/dev/null
		go get "${get[@]}"
		go mod tidy
		go build -o "$name" .
	)
	expect "$name" 0 '^node 7$' "$app/$name"
	echo "consumer-test: $name's go.mod:"
	sed 's/^/  /' "$app/go.mod"
	echo "consumer-test: go list -m all of $name:"
	(cd "$app" && go list -m all) | sed 's/^/  /'
	[ "$etcd" = 0 ] || allowed=$etcdmods
	local leaked
	leaked=$(awk '{ print $1 }' "$app/go.sum" | sort -u | comm -12 - <(echo "$labmods") | comm -23 - <(echo "$allowed"))
	if [ -n "$leaked" ]; then
		echo "consumer-test: FAIL: $name's go.sum holds modules of the lab:" >&2
		sed 's/^/  /' <<<"$leaked" >&2
		exit 1
	fi
	echo "consumer-test: $name's go.sum: $(wc -l <"$app/go.sum") lines, none of the lab's $(wc -l <<<"$labmods") modules$([ -z "$allowed" ] || echo " but those etcdlease brings itself: $(comm -12 <(echo "$labmods") <(echo "$allowed") | tr '\n' ' ')")"
}
consumer library 0
consumer service 1
echo "consumer-test: PASS: at ${head:0:12} the commands install and run, and the library and etcdlease build for a consumer without the lab"
