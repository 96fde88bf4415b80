#!/usr/bin/env bash
# Where a LITE-Kernel-DSM read fault's time goes, next to the RDMA read in
# it: dsm_bench -o read_fault (the dsm figure's read_fault: the first load
# of a one-page block homed on another node) on node1, N samples, under
# the function_graph tracer limited to dsm_fault and DEPTH levels below it
# (../profile-write/trace-op.sh, graph-summary.awk):
#  - fault.csv: per fault, mean inclusive us of each function below
#    dsm_fault (liteapi_rdma_read_offset among them);
#  - fault.txt: one fault's graph (the 100th);
#  - samples.csv: dsm_bench's own rows, traced and untraced (the tracer's
#    cost per fault is their difference).
# lite_dsm.ko is loaded on every node for the run if it was not, and
# unloaded after. The tracer costs about 1 us per traced function.
set -euo pipefail
here=$(dirname "$(readlink -f "$0")")
AE=$here/../../ae-scripts/lite-ae
R=/root/lite-ae
S=$here/../profile-write/graph-summary.awk
N=${N:-200} DEPTH=${DEPTH:-4} OUT=${OUT:-$here}
nodes=$("$AE" hosts | wc -l)
"$AE" sync >/dev/null
# lite-ae sync leaves plots/ out: the tracer script goes by ssh.
T=/tmp/lite-trace-op.sh
"$AE" exec node1 -- "cat >$T && chmod 755 $T" <"$here/../profile-write/trace-op.sh"
loaded=()
for h in $("$AE" hosts); do
	if ! "$AE" exec "$h" -- "[ -e /sys/module/lite_dsm ]"; then
		"$AE" exec "$h" -- "insmod $R/lite/dsm/lite_dsm.ko"
		loaded+=("$h")
	fi
done
unload() {
	local h
	for h in "${loaded[@]}"; do "$AE" exec "$h" -- "rmmod lite_dsm" || true; done
}
trap unload EXIT
# LITE ids follow the inventory's order (lite-ae join): node1 is 1.
id1=1
bench() { echo "$R/microbench/dsm_bench -o read_fault --nodes $nodes --node $id1 --run $1 -n $N -w 0.2"; }
"$AE" exec node1 -- "$(bench "prof$$a")" >"$OUT/samples.csv"
"$AE" exec node1 -- "$T /tmp/fault.trace dsm_fault $DEPTH -- $(bench "prof$$b") >/tmp/fault.out; cat /tmp/fault.out >&2; cat /tmp/fault.trace" \
	>"$OUT/fault.tmp" 2> >(grep -v '^#' >>"$OUT/samples.csv")
awk -v top=dsm_fault -f "$S" "$OUT/fault.tmp" | sort -t, -k5 -gr >"$OUT/fault.csv"
awk -v top=dsm_fault -f "$here/../profile-write/graph-call.awk" "$OUT/fault.tmp" >"$OUT/fault.txt"
rm -f "$OUT/fault.tmp"
echo "done: $OUT"
