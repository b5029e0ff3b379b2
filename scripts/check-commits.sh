#!/usr/bin/env bash
# Check the commits since BASE (default: the first commit this rule
# applies after) against the commit style CONTRIBUTING.md asks for:
#
#   scripts/check-commits.sh [BASE]        (make check-commits)
#
# Every commit but a merge has a subject `pkg: summary` of at most 72
# characters (pkg: the package, module or file it changes; several joined
# by ", ") and a body giving the reason. History is not rewritten, so
# the commits before BASE stay as they are.
set -euo pipefail
cd "$(dirname "$0")/.."
base=${1:-8fd0030389674a2ad890149e1a7600ccd395eaaf}
if ! git cat-file -e "$base^{commit}" 2>/dev/null; then
	echo "check-commits: $base is not in this clone (shallow?): fetch the history to check it" >&2
	exit 1
fi
bad=0
while read -r c; do
	subject=$(git log -1 --format=%s "$c")
	body=$(git log -1 --format=%b "$c" | grep -c . || true)
	why=()
	[ "${#subject}" -le 72 ] || why+=("subject of ${#subject} characters, over 72")
	[[ $subject =~ ^[A-Za-z0-9._/{},*-]+(,\ [A-Za-z0-9._/{},*-]+)*:\ [^\ ] ]] || why+=("subject is not \"pkg: summary\"")
	[ "$body" -gt 0 ] || why+=("no body giving the reason")
	if [ "${#why[@]}" -gt 0 ]; then
		printf "check-commits: %s \"%s\": %s\n" "${c:0:7}" "$subject" "$(IFS=';'; echo "${why[*]}")" >&2
		bad=1
	fi
done < <(git rev-list --no-merges "$base..HEAD")
[ "$bad" = 0 ] && echo "check-commits: $(git rev-list --no-merges --count "$base..HEAD") commits since ${base:0:7} keep the style"
exit "$bad"
