#!/usr/bin/env bash
# make image: snowidd and snowid as OCI images, built without a container
# daemon, the same digest from the same commit.
#
#   scripts/image.sh           build both into bin/image/{snowidd,snowid} (OCI
#                              layouts), print each digest, pin snowidd's in
#                              snowidd/deploy/k8s/kustomization.yaml
#
# Environment:
#   IMAGE_REPO       where the deploy manifests pull snowidd from
#                    (default localhost/snowidd: not pushed; podman names
#                    what it loads so). Any other value is pushed to, tagged
#                    with the commit (crane push: credentials from
#                    ~/.docker/config.json), and written as the kustomization's
#                    newName.
#   IMAGE_ARCH       GOARCH of the images (default go env GOARCH)
#   IMAGE_OUT        the folder the layouts go to (default bin/image)
#   IMAGE_KUSTOMIZATION  the kustomization to pin (default the one above;
#                    empty: none)
#   SOURCE_DATE_EPOCH    the time stamped on the files and the image
#                    (default the commit's time, git log -1 --format=%ct)
#
# Each image is one layer on nothing: the static binary (CGO_ENABLED=0,
# -trimpath, no VCS stamp: the revision is a label instead, so the
# kustomization this writes does not change the next build), /etc/passwd
# and /etc/group naming the user it runs as (nonroot, 65532, as distroless
# images do), and /tmp. No shell, no libc, no package manager. The layer's
# tar is written by GNU tar with every variable field fixed (names sorted,
# owner 0, mtimes SOURCE_DATE_EPOCH, no atime/ctime), crane compresses it
# (Go's gzip) and sets the config (user, entrypoint, platform, labels).
# crane, a Go tool of tools/go.mod (go-containerregistry), edits images on
# a registry only, so a throwaway `crane registry serve` on loopback holds
# them while they are assembled; `crane pull --format oci` then writes
# each as an OCI layout, which podman runs (podman pull oci:bin/image/snowidd)
# and crane push sends anywhere with the same digest.
set -euo pipefail
cd "$(dirname "$0")/.."
say() { echo "image.sh: $*" >&2; }

out=${IMAGE_OUT:-bin/image}
arch=${IMAGE_ARCH:-$(go env GOARCH)}
repo=${IMAGE_REPO:-localhost/snowidd}
kust=${IMAGE_KUSTOMIZATION-snowidd/deploy/k8s/kustomization.yaml}
rev=$(git rev-parse HEAD)
epoch=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct HEAD)}
[[ $epoch =~ ^[0-9]+$ ]] || { say "SOURCE_DATE_EPOCH=$epoch is not a number of seconds"; exit 2; }
created=$(date -u -d "@$epoch" +%Y-%m-%dT%H:%M:%SZ)
# The kustomization this script writes and the build outputs do not make
# the tree dirty for this purpose; any other change does.
if [[ -n $(git status --porcelain -- . ':(exclude)snowidd/deploy/k8s/kustomization.yaml') ]]; then
	say "uncommitted changes: the images hold them, labelled revision $rev-dirty"
	rev=$rev-dirty
fi

crane=$(cd tools && GOWORK=off go tool -n crane)
tmp=$(mktemp -d)
reg_pid=
cleanup() {
	if [[ -n $reg_pid ]]; then
		kill "$reg_pid" 2>/dev/null || true
		wait "$reg_pid" 2>/dev/null || true
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT

# The throwaway registry, on loopback, in memory; it logs its port. The
# log is created first: the shell opens it in the background process,
# maybe after the loop below first reads it.
: >"$tmp/registry.log"
"$crane" registry serve --address 127.0.0.1:0 2>"$tmp/registry.log" &
reg_pid=$!
port=
for _ in $(seq 1 100); do
	port=$(sed -n 's/.*serving on port \([0-9]*\).*/\1/p' "$tmp/registry.log")
	[[ -n $port ]] && break
	kill -0 "$reg_pid" 2>/dev/null || { cat "$tmp/registry.log" >&2; say "crane registry serve exited"; exit 1; }
	sleep 0.1
done
[[ -n $port ]] || { cat "$tmp/registry.log" >&2; say "crane registry serve named no port"; exit 1; }
reg=127.0.0.1:$port

# image NAME DESCRIPTION: build cmd/NAME of the snowidd module into an
# image, written to $out/NAME; prints its digest.
image() {
	local name=$1 desc=$2 root=$tmp/$1
	mkdir -p "$root/usr/local/bin" "$root/etc" "$root/tmp"
	(cd snowidd && CGO_ENABLED=0 GOOS=linux GOARCH="$arch" go build -trimpath -buildvcs=false -ldflags='-s -w' \
		-o "$root/usr/local/bin/$name" "./cmd/$name")
	printf 'root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n' >"$root/etc/passwd"
	printf 'root:x:0:\nnonroot:x:65532:\n' >"$root/etc/group"
	chmod 0755 "$root" "$root/usr" "$root/usr/local" "$root/usr/local/bin" "$root/etc" "$root/usr/local/bin/$name"
	chmod 0644 "$root/etc/passwd" "$root/etc/group"
	chmod 1777 "$root/tmp"
	tar -C "$root" --sort=name --format=posix \
		--pax-option=exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime \
		--mtime="@$epoch" --owner=0 --group=0 --numeric-owner \
		-cf "$tmp/$name.tar" etc tmp usr
	"$crane" append --oci-empty-base -f "$tmp/$name.tar" -t "$reg/$name:build" >/dev/null 2>"$tmp/crane.log" ||
		{ cat "$tmp/crane.log" >&2; return 1; }
	local ref
	ref=$("$crane" mutate "$reg/$name:build" --set-platform "linux/$arch" \
		--user 65532:65532 --workdir / --entrypoint "/usr/local/bin/$name" \
		--env PATH=/usr/local/bin "${extra[@]}" \
		--label org.opencontainers.image.title="$name" \
		--label org.opencontainers.image.description="$desc" \
		--label org.opencontainers.image.source=https://github.com/snowlab/snowlab \
		--label org.opencontainers.image.revision="$rev" \
		--label org.opencontainers.image.created="$created" \
		--label org.opencontainers.image.licenses=BSD-3-Clause 2>"$tmp/crane.log") ||
		{ cat "$tmp/crane.log" >&2; return 1; }
	rm -rf "${out:?}/$name"
	mkdir -p "$out"
	"$crane" pull --format oci "$ref" "$out/$name" 2>"$tmp/crane.log" || { cat "$tmp/crane.log" >&2; return 1; }
	echo "${ref#*@}" >"$out/$name.digest"
	echo "${ref#*@}"
}

# snowidd listens on every address of the container (its default is
# loopback, which nothing outside the container reaches); -listen overrides.
extra=(--env SNOWIDD_LISTEN=0.0.0.0:8080 --exposed-ports 8080/tcp)
d_snowidd=$(image snowidd "snowidd: Snowflake-style 64-bit IDs over gRPC, gRPC-Web and Connect, node ids from a lease store")
extra=()
d_snowid=$(image snowid "snowid: decode, mint and describe snowlab IDs")

if [[ $repo != localhost/* ]]; then
	"$crane" push "$out/snowidd" "$repo:$rev" >/dev/null 2>"$tmp/crane.log" || { cat "$tmp/crane.log" >&2; exit 1; }
	say "pushed $repo:$rev@$d_snowidd"
fi
if [[ -n $kust ]]; then
	# The one images entry's newName and digest lines.
	sed -i -e "s|^\(  newName:\).*|\1 $repo|" -e "s|^\(  digest:\).*|\1 $d_snowidd|" "$kust"
	grep -q "^  digest: $d_snowidd\$" "$kust" || { say "$kust: no '  digest:' line to pin"; exit 1; }
	say "pinned $repo@$d_snowidd in $kust"
fi
echo "snowidd $out/snowidd $d_snowidd"
echo "snowid $out/snowid $d_snowid"
