#!/usr/bin/env bash
# lat and rpc-lat on guests running Linux 6.1, then on guests running 6.12
# (ae-scripts/lib/kernels.sh: the newest of each series whose headers are
# installed), one after the other on this machine, at one clean commit:
# into plots/kernels/<series>/<figure>/ (the layout of plots/reference/),
# and summary.md, the targets those figures judge, per kernel
# (ae-scripts/targets). Boots and stops its own cluster (INVENTORY,
# default inventory/local); refuses to start while that one runs.
set -euo pipefail

here=$(cd "$(dirname "$(readlink -f "$0")")" && pwd)
root=$(cd "$here/../.." && pwd)
ae="$root/ae-scripts/lite-ae"
# shellcheck source=ae-scripts/lib/kernels.sh
. "$root/ae-scripts/lib/kernels.sh"
export INVENTORY=${INVENTORY:-$root/inventory/local}
FIGS=(lat rpc-lat)

die() {
	echo "plots/kernels/run.sh: $*" >&2
	exit 1
}

[ -z "$(git -C "$root" status --porcelain --untracked-files=normal)" ] ||
	die "the tree is not clean: the data must name one commit"
commit=$(git -C "$root" rev-parse HEAD)
rc=0
"$ae" status >/dev/null 2>&1 || rc=$?
[ "$rc" = 3 ] || die "a cluster of $INVENTORY is running: 'make down' first (this script boots its own)"

booted=0
cleanup() { [ "$booted" = 0 ] || "$ae" down || true; }
trap cleanup EXIT

new=$here/.new
rm -rf "$new"
mkdir -p "$new"
start=$(date -u +%Y-%m-%dT%H:%M:%SZ)
for series in "${AE_KERNEL_SERIES[@]}"; do
	kver=$(kv_series_headers "$series")
	[ -n "$kver" ] || die "no headers of Linux $series installed ('make deps')"
	KVER=$kver "$root/ae-scripts/deps.sh"
	booted=1
	KVER=$kver "$ae" up
	"$ae" install
	for fig in "${FIGS[@]}"; do
		"$ae" run "$fig"
		d=$(find "${AE_RESULTS:-$root/results}" -maxdepth 1 -type d -name "*Z-$fig" | sort | tail -n 1)
		[ -n "$d" ] || die "$fig: no result directory"
		grep -qx "git_commit: ${commit:0:12}" "$d/provenance.txt" ||
			die "$d: not made at $commit"
		mkdir -p "$new/$series"
		cp -a "$d" "$new/$series/$fig"
	done
	"$ae" uninstall
	"$ae" down
	booted=0
	echo "$kver" >"$new/$series/kernel"
done
end=$(date -u +%Y-%m-%dT%H:%M:%SZ)

{
	echo "# lat and rpc-lat per guest kernel (plots/kernels/run.sh)"
	echo
	echo "commit $commit, $start .. $end, inventory ${INVENTORY#"$root"/}."
	for series in "${AE_KERNEL_SERIES[@]}"; do
		echo
		echo "## Linux $(cat "$new/$series/kernel")"
		echo
		# The rows of the targets these two figures judge; the others have no data.
		"$root/ae-scripts/targets" "$new/$series" | grep -v 'no data' || true
	done
} >"$new/summary.md"

for series in "${AE_KERNEL_SERIES[@]}"; do
	rm -rf "${here:?}/$series"
	mv "$new/$series" "$here/$series"
done
mv "$new/summary.md" "$here/summary.md"
rmdir "$new"
cat "$here/summary.md"
