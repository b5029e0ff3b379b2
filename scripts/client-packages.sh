#!/usr/bin/env bash
# snowidd's clients as packages a team installs instead of copying the
# client and the .proto into its tree, versioned with the proto.
#
#   scripts/client-packages.sh [OUT]    (default bin/clients)
#
# writes and prints the paths of
#   OUT/snowlab-snowidd-client-VERSION.tgz   npm pack of snowidd/clients/ts,
#       its code generated from snowidd/proto inside (dist/ and src/gen/),
#       built by npm run build (buf and protoc-gen-es from its
#       package-lock.json; npm ci first when node_modules is missing);
#   OUT/snowidd_client-VERSION-py3-none-any.whl   snowidd/clients/python's
#       snowidd.py and the stubs grpc_tools.protoc generates from
#       snowidd/proto, built offline with what Debian's python3 has: pip
#       wheel --no-build-isolation --no-deps (setuptools, wheel).
#
# Versioned with the proto: each package's major version is the proto
# package's (snowlab.v1: 1), both packages have one version, and each
# records the sha256 of the id.proto that version was given for
# (package.json's snowlab.protoSha256, pyproject.toml's
# [tool.snowlab] proto-sha256). A proto that differs from the recorded one
# is refused: bump the version and the hashes together.
#
# Installs from Debian when missing: python3-grpc-tools, python3-pip,
# python3-venv (as scripts/snowidd-clients.sh installs its tools).
set -euo pipefail
cd "$(dirname "$0")/.."
say() { echo "client-packages.sh: $*" >&2; }

out=${1:-bin/clients}
proto=snowidd/proto/snowlab/v1/id.proto
ts=snowidd/clients/ts
py=snowidd/clients/python

missing=()
/usr/bin/python3 -c 'import grpc_tools.protoc' >/dev/null 2>&1 || missing+=(python3-grpc-tools python3-grpcio)
/usr/bin/python3 -m pip --version >/dev/null 2>&1 || missing+=(python3-pip)
/usr/bin/python3 -c 'import ensurepip, venv' >/dev/null 2>&1 || missing+=(python3-venv)
if [[ ${#missing[@]} -gt 0 ]]; then
	sudo=()
	[[ $(id -u) -eq 0 ]] || sudo=(sudo)
	say "installing ${missing[*]} from Debian"
	"${sudo[@]}" apt-get update -qq >&2
	DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi

# The versions and the proto they were given for.
sum=$(sha256sum "$proto" | cut -d' ' -f1)
major=$(sed -n 's/^package snowlab\.v\([0-9][0-9]*\);$/\1/p' "$proto")
[[ -n $major ]] || { say "$proto: no 'package snowlab.vN;' line"; exit 1; }
ts_version=$(node -p "require('./$ts/package.json').version")
ts_sum=$(node -p "require('./$ts/package.json').snowlab.protoSha256")
py_version=$(sed -n 's/^version = "\(.*\)"$/\1/p' "$py/pyproject.toml")
py_sum=$(sed -n 's/^proto-sha256 = "\(.*\)"$/\1/p' "$py/pyproject.toml")
for p in "$ts/package.json $ts_version $ts_sum" "$py/pyproject.toml $py_version $py_sum"; do
	read -r file version recorded <<<"$p"
	if [[ $recorded != "$sum" ]]; then
		say "$file: version $version was given for the id.proto of sha256 $recorded; $proto is now $sum: bump the version (and the hash) in $ts/package.json and $py/pyproject.toml"
		exit 1
	fi
	if [[ ${version%%.*} != "$major" ]]; then
		say "$file: version $version, but the proto is snowlab.v$major: the major version is the proto package's"
		exit 1
	fi
done
[[ $ts_version == "$py_version" ]] || { say "$ts/package.json says $ts_version, $py/pyproject.toml $py_version: one version for both"; exit 1; }

mkdir -p "$out"
out=$(cd "$out" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# TypeScript: npm run build runs buf generate and tsc (npm pack's prepack
# does the same, but npm may be set to ignore scripts, as it is here).
[[ -d $ts/node_modules ]] || (cd "$ts" && npm ci >&2)
(cd "$ts" && npm run build >&2 && npm pack --ignore-scripts --pack-destination "$out" >"$tmp/pack.out" 2>&1) ||
	{ cat "$tmp/pack.out" >&2; exit 1; }
tgz=$out/$(tail -1 "$tmp/pack.out")
[[ -f $tgz ]] || { cat "$tmp/pack.out" >&2; say "npm pack wrote no $tgz"; exit 1; }

# Python: the client module and the stubs in a staging folder, the
# stubs' packages made regular ones (protoc writes no __init__.py).
stage=$tmp/python
mkdir -p "$stage"
cp "$py/pyproject.toml" "$py/snowidd.py" "$stage/"
/usr/bin/python3 -m grpc_tools.protoc -I snowidd/proto --python_out="$stage" --grpc_python_out="$stage" snowlab/v1/id.proto
touch "$stage/snowlab/__init__.py" "$stage/snowlab/v1/__init__.py"
rm -f "$out"/snowidd_client-*.whl
/usr/bin/python3 -m pip wheel --no-build-isolation --no-deps --no-index --quiet -w "$out" "$stage" >&2
whl=$(ls "$out"/snowidd_client-"$py_version"-*.whl)
echo "$tgz"
echo "$whl"
