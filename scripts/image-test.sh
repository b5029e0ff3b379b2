#!/usr/bin/env bash
# The snowidd image run as a user runs it (.ci/run calls this):
#
#   scripts/image-test.sh
#
#  1. builds the images (scripts/image.sh), pushing snowidd's to a
#     registry on loopback (crane registry serve) and pinning it in a copy
#     of the kustomization (the checkout stays clean), and the client
#     packages (scripts/client-packages.sh);
#  2. pulls the reference the kustomization pins into podman (Debian's,
#     with runc: crun cannot set the ulimits on this kernel's hybrid
#     cgroups; both installed when missing) and checks the digest podman
#     reports, the user it runs as (65532) and that it has no shell;
#  3. runs it with a bad flag: exit 2 and one line;
#  4. runs it as the manifests do (non-root, read-only root, no
#     capabilities) on a dir: lease in a host folder, its port published on
#     loopback; waits for /readyz; mints over Connect JSON with curl from
#     the host; installs the npm package into a fresh project and the wheel
#     into a fresh venv and runs each client's test suite against it;
#  5. sends SIGTERM: the replica drains, releases its lease and exits 0.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS
say() { echo "image-test: $*"; }
fail() {
	echo "image-test: FAIL: $*" >&2
	exit 1
}

missing=()
command -v podman >/dev/null 2>&1 || missing+=(podman)
command -v runc >/dev/null 2>&1 || missing+=(runc)
command -v curl >/dev/null 2>&1 || missing+=(curl)
if [[ ${#missing[@]} -gt 0 ]]; then
	sudo=()
	[[ $(id -u) -eq 0 ]] || sudo=(sudo)
	say "installing ${missing[*]} from Debian"
	"${sudo[@]}" apt-get update -qq
	DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
podman=(podman --runtime runc)
limits=(--ulimit nofile=1024:1024 --ulimit nproc=1000:1000)

tmp=$(mktemp -d)
cid=
img=
reg_pid=
cleanup() {
	if [[ -n $reg_pid ]]; then
		kill "$reg_pid" 2>/dev/null || true
		wait "$reg_pid" 2>/dev/null || true
	fi
	if [[ -n $cid ]]; then "${podman[@]}" rm -f "$cid" >/dev/null 2>&1 || true; fi
	if [[ -n $img ]]; then "${podman[@]}" rmi -f "$img" >/dev/null 2>&1 || true; fi
	rm -rf "$tmp"
}
trap cleanup EXIT

# 1. The images and the packages. snowidd's is pushed to a registry on
# loopback (crane registry serve) as IMAGE_REPO makes image.sh do, and
# the container below runs what the kustomization then pins.
crane=$(cd tools && GOWORK=off go tool -n crane)
: >"$tmp/registry.log"
"$crane" registry serve --address 127.0.0.1:0 2>"$tmp/registry.log" &
reg_pid=$!
port=
for _ in $(seq 1 100); do
	port=$(sed -n 's/.*serving on port \([0-9]*\).*/\1/p' "$tmp/registry.log")
	[[ -n $port ]] && break
	sleep 0.1
done
[[ -n $port ]] || { cat "$tmp/registry.log" >&2; fail "crane registry serve named no port"; }
cp -r snowidd/deploy/k8s "$tmp/k8s"
t=$SECONDS
IMAGE_REPO=127.0.0.1:$port/snowidd IMAGE_OUT=$tmp/image IMAGE_KUSTOMIZATION=$tmp/k8s/kustomization.yaml \
	scripts/image.sh >"$tmp/image.out"
cat "$tmp/image.out"
digest=$(awk '$1 == "snowidd" {print $3}' "$tmp/image.out")
name=$(sed -n 's/^  newName: //p' "$tmp/k8s/kustomization.yaml")
grep -q "^  digest: $digest\$" "$tmp/k8s/kustomization.yaml" || fail "the kustomization does not pin $digest"
ref=$name@$digest
say "images built in $((SECONDS - t)) s; the kustomization pins $ref"
t=$SECONDS
mapfile -t pkgs < <(scripts/client-packages.sh "$tmp/packages" 2>"$tmp/packages.log") ||
	{ cat "$tmp/packages.log" >&2; fail "scripts/client-packages.sh"; }
say "client packages built in $((SECONDS - t)) s: ${pkgs[*]##*/}"

# 2. Into podman: the reference the kustomization pins, pulled from the
# loopback registry (plain HTTP there).
img=$("${podman[@]}" pull -q --tls-verify=false "$ref")
got=$("${podman[@]}" image inspect --format '{{.Digest}}' "$img")
[[ $got == "$digest" ]] || fail "podman holds the image as $got, make image printed $digest"
user=$("${podman[@]}" image inspect --format '{{.Config.User}}' "$img")
[[ $user == 65532:65532 ]] || fail "the image runs as user '$user', want 65532:65532"
if "${podman[@]}" run --rm "${limits[@]}" --entrypoint /bin/sh "$img" -c true >/dev/null 2>&1; then
	fail "the image has a shell"
fi
say "podman holds $digest, user $user, no /bin/sh"

# 3. A bad flag: exit 2, one line.
rc=0
"${podman[@]}" run --rm "${limits[@]}" "$img" -lease static:1 -bogus >"$tmp/bad.out" 2>&1 || rc=$?
[[ $rc -eq 2 && $(wc -l <"$tmp/bad.out") -eq 1 ]] ||
	{ cat "$tmp/bad.out" >&2; fail "a bad flag exited $rc with $(wc -l <"$tmp/bad.out") lines, want 2 and one line"; }
say "a bad flag: exit $rc, '$(cat "$tmp/bad.out")'"

# 4. The replica, as the manifests run it, on a dir: lease in a host
# folder the image's user owns.
mkdir "$tmp/leases"
chown 65532:65532 "$tmp/leases"
cid=$("${podman[@]}" run -d "${limits[@]}" --read-only --cap-drop ALL --security-opt no-new-privileges \
	-p 127.0.0.1::8080 -v "$tmp/leases:/leases" "$img" -lease dir:/leases -grace 5s)
hostport=$("${podman[@]}" port "$cid" 8080/tcp)
url=http://$hostport
say "container ${cid:0:12} on $url (-lease dir:/leases)"
ready=
for _ in $(seq 1 600); do
	if ready=$(curl -fsS "$url/readyz" 2>/dev/null); then break; fi
	[[ $("${podman[@]}" inspect --format '{{.State.Running}}' "$cid") == true ]] ||
		{ "${podman[@]}" logs "$cid" >&2; fail "the container exited before it was ready"; }
	sleep 0.1
done
[[ $ready == "ready: node id "* ]] || { "${podman[@]}" logs "$cid" >&2; fail "/readyz never answered ready"; }
node=${ready##* }
say "/readyz: $ready"
ids=$(curl -fsS -H 'Content-Type: application/json' -d '{"count":5}' "$url/snowlab.v1.IDService/NextIDs")
say "NextIDs over Connect JSON from the host: $ids"
mapfile -t list < <(echo "$ids" | grep -o '"[0-9]*"' | tr -d '"')
[[ ${#list[@]} -eq 5 ]] || fail "NextIDs count 5 answered ${#list[@]} IDs"
for ((i = 1; i < 5; i++)); do
	[[ ${list[i]} -gt ${list[i - 1]} ]] || fail "the batch does not increase at $i: ${list[*]}"
done
decoded=$(curl -fsS -H 'Content-Type: application/json' -d "{\"id\":\"${list[0]}\"}" "$url/snowlab.v1.IDService/Decode")
[[ $decoded == *"\"node\":$node,"* ]] || fail "Decode of ${list[0]} does not name node $node: $decoded"
say "Decode: $decoded"

# The npm package in a fresh project: the client's own test suite, its
# imports pointed at the package, compiled against the package's types.
t=$SECONDS
app=$tmp/ts-app
mkdir -p "$app/src"
echo '{"name": "ts-app", "private": true, "type": "module"}' >"$app/package.json"
tsc_version=$(node -p "require('./snowidd/clients/ts/package.json').devDependencies.typescript")
types_version=$(node -p "require('./snowidd/clients/ts/package.json').devDependencies['@types/node']")
(cd "$app" && npm install --no-audit --no-fund --silent "${pkgs[0]}" "typescript@$tsc_version" "@types/node@$types_version")
sed -e 's|"\./gen/snowlab/v1/id_pb\.js"|"@snowlab/snowidd-client/gen/snowlab/v1/id_pb.js"|' \
	-e 's|"\./snowidd\.js"|"@snowlab/snowidd-client"|' snowidd/clients/ts/src/snowidd.test.ts >"$app/src/snowidd.test.ts"
if grep -n 'from "\./' "$app/src/snowidd.test.ts"; then fail "the TypeScript test still imports the client's own files"; fi
cp snowidd/clients/ts/tsconfig.json "$app/"
(cd "$app" && npx tsc && SNOWIDD_URL=$url SNOWIDD_NODE=$node node --test --test-reporter=tap dist/snowidd.test.js) >"$tmp/ts.out" 2>&1 ||
	{ cat "$tmp/ts.out" >&2; fail "the TypeScript client from the npm package"; }
grep -E '^# (pass|fail)' "$tmp/ts.out" | tr '\n' ' ' | sed 's/^/image-test: npm package in a fresh project: /; s/ $/\n/'
say "TypeScript: $(grep -c '^ok ' "$tmp/ts.out") tests ok in $((SECONDS - t)) s ($(grep '"version"' "$app/node_modules/@snowlab/snowidd-client/package.json" | tr -d ' ,'))"

# The wheel in a fresh venv: Debian's grpcio and protobuf seen through
# --system-site-packages (PyPI is not reachable), the client's own test
# suite run from a folder without its sources.
t=$SECONDS
# (--without-pip: Debian's pip, seen the same way, installs into the venv,
# and the venv is made in 0.03 s rather than 4 s.)
/usr/bin/python3 -m venv --system-site-packages --without-pip "$tmp/venv"
"$tmp/venv/bin/python" -m pip install --no-index --quiet "${pkgs[1]}"
mkdir "$tmp/py-app"
cp snowidd/clients/python/test_snowidd.py "$tmp/py-app/"
where=$(cd "$tmp/py-app" && "$tmp/venv/bin/python" -c 'import snowidd, snowlab.v1.id_pb2 as p; print(snowidd.__file__, p.__file__)')
[[ $where == "$tmp/venv/"*" $tmp/venv/"* ]] || fail "the client is not imported from the venv: $where"
(cd "$tmp/py-app" && SNOWIDD_TARGET=$hostport SNOWIDD_NODE=$node SNOWIDD_EPOCH=2024-01-01T00:00:00Z \
	"$tmp/venv/bin/python" -m unittest -v test_snowidd) >"$tmp/py.out" 2>&1 ||
	{ cat "$tmp/py.out" >&2; fail "the Python client from the wheel"; }
say "Python: wheel in a fresh venv: $(tail -1 "$tmp/py.out"), $(grep -c ' ok$' "$tmp/py.out") tests ok in $((SECONDS - t)) s"

# 5. SIGTERM: drain, release the lease, exit 0.
"${podman[@]}" kill --signal TERM "$cid" >/dev/null
code=$("${podman[@]}" wait "$cid")
"${podman[@]}" logs "$cid" 2>&1 | sed 's/^/image-test: container: /'
[[ $code -eq 0 ]] || fail "the container exited $code after SIGTERM, want 0"
"${podman[@]}" logs "$cid" 2>&1 | grep -q 'msg="lease released"' || fail "no 'lease released' in the container's log"
say "SIGTERM: drained, lease released, exit $code"
say "passed in $((SECONDS - start)) s"
