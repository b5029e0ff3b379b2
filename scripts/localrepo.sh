# shellcheck shell=bash
# Sourced by scripts/pin-modules.sh and scripts/consumer-test.sh: serve
# this repository to the go command as github.com/snowlab/snowlab, the way
# a user outside the tree reaches it, without the network.
#
#   . scripts/localrepo.sh
#   localrepo_serve DIR COMMIT   # a bare repository under DIR holding COMMIT
#   localrepo_version PATH COMMIT   # the version of module PATH at COMMIT
#   localrepo_modules            # "DIR PATH" of each module in go.work
#
# localrepo_serve makes a bare repository holding COMMIT (as the branch
# main) and every tag, because a pseudo-version counts from the newest tag
# below its commit, and points git's url.insteadOf for
# https://github.com/snowlab/snowlab at it through a git config file of its
# own (GIT_CONFIG_GLOBAL). GOPRIVATE sends the go command to git for this
# repository's modules, and only those: third-party modules still come from
# the module proxy, and no checksum of this repository's modules is looked
# up in the public checksum database. GOWORK=off: a user has no go.work.

localrepo_root=$(git rev-parse --show-toplevel)

localrepo_serve() {
	local dir=$1 commit=$2
	local bare=$dir/snowlab.git
	rm -rf "$bare"
	git init --quiet --bare "$bare"
	git -C "$localrepo_root" push --quiet --force "$bare" "$commit:refs/heads/main" 'refs/tags/*:refs/tags/*'
	git -C "$bare" symbolic-ref HEAD refs/heads/main
	printf '[url "file://%s"]\n\tinsteadOf = https://github.com/snowlab/snowlab\n' "$bare" >"$dir/gitconfig"
	export GIT_CONFIG_GLOBAL=$dir/gitconfig
	export GOPRIVATE=github.com/snowlab/*
	export GOWORK=off
	export GOFLAGS=-mod=mod
}

localrepo_version() {
	go list -m -f '{{.Version}}' "$1@$2"
}

localrepo_modules() {
	local d
	for d in $(go work edit -json "$localrepo_root/go.work" | sed -n 's/.*"DiskPath": "\(.*\)".*/\1/p'); do
		d=${d#./}
		echo "$d $(sed -n 's/^module[[:space:]]*//p' "$localrepo_root/$d/go.mod")"
	done
}
