#!/usr/bin/env bash
# Pin the modules of this repository to one commit of each other.
#
#   scripts/pin-modules.sh [COMMIT]        (make pin-modules [COMMIT=...])
#
# Every module in go.work that requires another module of this repository
# (lab requires the library and snowidd, snowidd etcdlease, ...) gets that
# requirement set to the other module's version at COMMIT
# (default HEAD): its newest release (v0.1.0, lab/v0.1.0) when nothing a
# build of it sees has changed since, else COMMIT's own version, until
# there are tags the pseudo-version of the commit, such as
# v0.0.0-20261201093000-0123456789ab. A replace directive on one of these
# modules is dropped. Then each module is tidied outside the workspace, the
# go command reading this repository from a bare copy of it
# (scripts/localrepo.sh), so that go.sum gets the checksums a user outside
# the tree will check, and go.work's replace block is rewritten to stand
# the working copies in for the pinned versions, so that inside the tree
# the go command builds the working copies and fetches nothing.
#
# A module can only require a commit that exists, and that commit must have
# the API its requirers use: commit the change first, then run this and
# commit what it rewrote (go.mod, go.sum and go.work). Running it again
# with the same COMMIT changes nothing. Pins move only when a module needs
# another's newer code: scripts/consumer-test.sh fails, saying to run
# this, when a module at HEAD does not build against the versions it pins.
# A new module requires the others at the versions the rest pin, never at
# v0.0.0, which nothing outside the tree can resolve.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/localrepo.sh
. scripts/localrepo.sh

commit=$(git rev-parse --verify --quiet "${1:-HEAD}^{commit}") || {
	echo "pin-modules: ${1:-HEAD} is not a commit of this repository" >&2
	exit 2
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
localrepo_serve "$tmp" "$commit"

mapfile -t modules < <(localrepo_modules)
declare -A version
for m in "${modules[@]}"; do
	dir=${m%% *} path=${m#* }
	if ! v=$(localrepo_pin "$dir" "$path" "$commit" 2>"$tmp/err"); then
		echo "pin-modules: no module $path at ${commit:0:12}:" >&2
		cat "$tmp/err" >&2
		exit 1
	fi
	version[$path]=$v
	echo "pin-modules: $path@$v"
done

# ours DIR: "PATH VERSION" of each requirement of the module in DIR on a
# module of this repository.
ours() {
	(cd "$1" && go mod edit -json) | awk '
		/^\t"[A-Za-z]+":/ { section = $1 }
		section == "\"Require\":" && /"Path":/ { gsub(/[",]/, "", $2); path = $2 }
		section == "\"Require\":" && /"Version":/ && path ~ /^github\.com\/snowlab\/snowlab(\/|$)/ {
			gsub(/[",]/, "", $2); print path, $2 }'
}

# stale DIR: go mod edit's -require flags that would pin the module in DIR.
stale() {
	local path v
	while read -r path v; do
		if [ -n "${version[$path]:-}" ] && [ "$v" != "${version[$path]}" ]; then
			echo "-require=$path@${version[$path]}"
		fi
	done < <(ours "$1")
}

for m in "${modules[@]}"; do
	dir=${m%% *}
	[ "$dir" != . ] || continue # the library requires no module of this repository
	args=()
	for path in "${!version[@]}"; do
		args+=("-dropreplace=$path")
	done
	(cd "$dir" && go mod edit "${args[@]}")
	# Tidying can add a requirement on one of this repository's modules (an
	# indirect one, at whatever version the graph holds): pin it, tidy again.
	for round in 1 2 3; do
		mapfile -t args < <(stale "$dir")
		if [ ${#args[@]} -eq 0 ] && [ "$round" -gt 1 ]; then
			break
		fi
		[ ${#args[@]} -eq 0 ] || (cd "$dir" && go mod edit "${args[@]}")
		(cd "$dir" && go mod tidy)
	done
	if [ -n "$(stale "$dir")" ]; then
		echo "pin-modules: $dir: tidying keeps moving its requirements: $(stale "$dir" | tr '\n' ' ')" >&2
		exit 1
	fi
	echo "pin-modules: $dir requires $(ours "$dir" | tr '\n' ' ')"
done
# go.work: inside the tree, each version of this repository's modules that
# a module pins is the working copy. Adding a module to a workspace does not
# stand it in for the versions other modules require: the go command would
# still read those versions' go.mod files, from the network. The replace
# block is go.work's last part, after the marker line, and is rewritten
# whole.
declare -A dir_of
for m in "${modules[@]}"; do
	dir_of[${m#* }]=${m%% *}
done
declare -A pinned
for m in "${modules[@]}"; do
	while read -r path v; do
		if [ -n "${dir_of[$path]:-}" ]; then
			d=${dir_of[$path]}
			[ "$d" != . ] || d=
			pinned["$path $v"]=./$d
		fi
	done < <(ours "${m%% *}")
done
marker='// The versions of these modules that the modules pin are their working copies:'
{
	sed "\#^$marker#,\$d" go.work
	echo "$marker"
	echo '// scripts/pin-modules.sh writes this block.'
	echo 'replace ('
	for pv in "${!pinned[@]}"; do
		printf '\t%s => %s\n' "$pv" "${pinned[$pv]}"
	done | LC_ALL=C sort
	echo ')'
} >"$tmp/go.work"
cp "$tmp/go.work" go.work
go work edit -fmt go.work
echo "pin-modules: go.work stands the working copies in for the ${#pinned[@]} pinned versions"
