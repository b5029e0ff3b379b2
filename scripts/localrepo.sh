# shellcheck shell=bash
# Sourced by scripts/pin-modules.sh and scripts/consumer-test.sh: this
# repository's modules, their versions, and the repository served to the
# go command as github.com/snowlab/snowlab the way a user outside the tree
# reaches it, without the network.
#
#   localrepo_modules               "DIR PATH" of each module in go.work
#   localrepo_changed DIR FROM [TO] what a build of the module in DIR sees
#                                   change from commit FROM to TO (HEAD)
#   localrepo_commit DIR VERSION    the commit VERSION of that module names
#   localrepo_serve TMPDIR COMMIT   serve COMMIT and the tags; GOWORK=off
#   localrepo_pin DIR PATH COMMIT   the version to pin the module at
#

localrepo_root=$(git rev-parse --show-toplevel)
localrepo_prefix=github.com/snowlab/snowlab

# localrepo_dirs: the folders of go.work's modules.
localrepo_dirs() {
	go work edit -json "$localrepo_root/go.work" | sed -n 's/.*"DiskPath": "\(.*\)".*/\1/p'
}
# The files of the tree that the go command embeds into a build, each
# module's listed in its folder.
localrepo_embedded=$(for d in $(localrepo_dirs); do
	(cd "$localrepo_root/$d" && GOWORK= GOFLAGS= go list -f '{{$d := .Dir}}{{range .EmbedFiles}}{{$d}}/{{.}}{{"\n"}}{{end}}' ./...)
done | sed "s#^$localrepo_root/##" | sort -u)

localrepo_modules() {
	local d
	for d in $(localrepo_dirs); do
		d=${d#./}
		echo "$d $(sed -n 's/^module[[:space:]]*//p' "$localrepo_root/$d/go.mod")"
	done
}

# localrepo_changed DIR FROM [TO]: the files of the module in DIR that
# differ between commits FROM and TO (default HEAD) in a way a build of it
# sees: its Go files other than tests, the files it embeds (//go:embed),
# and its go.mod's requirements other than on this repository's modules,
# whose pins move. The folders of nested modules, in either commit, are
# not the module's.
localrepo_changed() {
	local dir=$1 from=$2 to=${3:-HEAD} f n excl=()
	for n in $(for c in "$from" "$to"; do git -C "$localrepo_root" ls-tree -r --name-only "$c"; done |
		grep '/go\.mod$' | xargs -r -n1 dirname | sort -u); do
		if [ "$dir" = . ] || [[ $n == "$dir"/* ]]; then
			excl+=(":(exclude)$n")
		fi
	done
	git -C "$localrepo_root" diff --name-only "$from" "$to" -- "$dir" "${excl[@]}" | while read -r f; do
		case "$f" in
		*_test.go | */testdata/*) ;;
		*.go) echo "$f" ;;
		go.mod | */go.mod)
			if ! diff -q <(git -C "$localrepo_root" show "$from:$f" 2>/dev/null | grep -vF "$localrepo_prefix") \
				<(git -C "$localrepo_root" show "$to:$f" 2>/dev/null | grep -vF "$localrepo_prefix") >/dev/null; then
				echo "$f"
			fi
			;;
		*) if grep -qxF "$f" <<<"$localrepo_embedded"; then echo "$f"; fi ;;
		esac
	done
}

# localrepo_commit DIR VERSION: the commit that VERSION of the module in
# DIR names. A pseudo-version ends with the commit's first 12 hex digits;
# a release is the tag of the module's folder (v0.1.0 for the library,
# lab/v0.1.0 for the lab).
localrepo_commit() {
	local dir=$1 v=$2 ref
	if [[ ${v##*-} =~ ^[0-9a-f]{12}$ ]]; then
		ref=${v##*-}
	elif [ "$dir" = . ]; then
		ref=refs/tags/$v
	else
		ref=refs/tags/$dir/$v
	fi
	git -C "$localrepo_root" rev-parse --verify --quiet "$ref^{commit}"
}

# localrepo_serve TMPDIR COMMIT makes a bare repository under TMPDIR holding
# COMMIT (as the branch main) and every tag, because a pseudo-version
# counts from the newest tag below its commit, and points git's
# url.insteadOf for https://github.com/snowlab/snowlab at it through a git
# config file of its own (GIT_CONFIG_GLOBAL). GOPRIVATE sends the go
# command to git for this repository's modules, and only those:
# third-party modules still come from the module proxy, and no checksum of
# this repository's modules is looked up in the public checksum database.
# GOWORK=off: a user has no go.work.
localrepo_serve() {
	local dir=$1 commit=$2
	local bare=$dir/snowlab.git
	rm -rf "$bare"
	git init --quiet --bare "$bare"
	git -C "$localrepo_root" push --quiet --force "$bare" "$commit:refs/heads/main" 'refs/tags/*:refs/tags/*'
	git -C "$bare" symbolic-ref HEAD refs/heads/main
	printf '[url "file://%s"]\n\tinsteadOf = https://%s\n' "$bare" "$localrepo_prefix" >"$dir/gitconfig"
	export GIT_CONFIG_GLOBAL=$dir/gitconfig
	export GOPRIVATE=github.com/snowlab/*
	export GOWORK=off
	export GOFLAGS=-mod=mod
}

# localrepo_pin DIR PATH COMMIT: the version to pin module PATH (in folder
# DIR) at for COMMIT: its newest release below COMMIT when nothing a build
# sees has changed since (so that the modules of a release require each
# other's releases, not the commits after them), else COMMIT's own version
# (a pseudo-version, or a release tagged on COMMIT), as the go command
# reads it from the served repository.
localrepo_pin() {
	local dir=$1 path=$2 commit=$3 prefix= tag
	[ "$dir" = . ] || prefix=$dir/
	if tag=$(git -C "$localrepo_root" describe --tags --abbrev=0 --match "${prefix}v[0-9]*" "$commit" 2>/dev/null) &&
		[ -z "$(localrepo_changed "$dir" "$tag" "$commit")" ]; then
		echo "${tag#"$prefix"}"
		return
	fi
	go list -m -f '{{.Version}}' "$path@$commit"
}
