#!/usr/bin/env bash
# Where a LITE write's time goes, in the guest, next to a verbs write: SIZE
# byte writes (default 8) node1 -> node2 (N each) with lite_qp_post()'s bottom-half bracket
# on (inline, the default) and off (deferred):
#  - sched.csv: context switches during the run, by the task switched to
#    (sched_switch events; no function tracer, so undistorted timing);
#  - graph-<config>.csv: function_graph below lite_ioctl (DEPTH levels),
#    per function: calls, calls per ioctl, mean and total inclusive us
#    (graph-summary.awk); example-<config>.txt: one write's call graph;
#  - graph-verbs.csv, example-verbs.txt (graph-call.awk): the same below ib_uverbs_write,
#    the only system call of a verbs write on rxe (the doorbell; the
#    completion is polled in user space).
# The tracer costs about 1 us per traced function on these guests, so
# graph durations are inflated; compare them with each other, not with the
# latency figures. Needs LITE installed (lite-ae install).
set -euo pipefail
here=$(dirname "$(readlink -f "$0")")
AE=$here/../../ae-scripts/lite-ae
B=/root/lite-ae/microbench
T=/root/lite-ae/plots/profile-write/trace-op.sh
N=${N:-500} DEPTH=${DEPTH:-6} SIZE=${SIZE:-8} OUT=${OUT:-$here}
P=/sys/module/lite/parameters/post_inline_softirq
ip2=$("$AE" inventory node2 fabric_ip)
lite="$B/lite_bench -m lat -o write -s $SIZE -n $N -r 1 -w 0.2 2"
was=$("$AE" exec node1 -- "cat $P")
trap '"$AE" exec node1 -- "echo $was >$P"' EXIT
"$AE" sync >/dev/null

echo "config,task,switches,per_op" >"$OUT/sched.csv"
for cfg in inline deferred; do
	v=$([ "$cfg" = inline ] && echo Y || echo N)
	"$AE" exec node1 -- "echo $v >$P; t=/sys/kernel/tracing; mountpoint -q \$t || mount -t tracefs nodev \$t;
		echo >\$t/trace; echo 1 >\$t/events/sched/sched_switch/enable; echo 1 >\$t/tracing_on;
		$lite >/dev/null; echo 0 >\$t/tracing_on; echo 0 >\$t/events/sched/sched_switch/enable;
		grep -o 'next_comm=[^ ]*' \$t/trace | sort | uniq -c" |
		awk -v c="$cfg" -v n="$N" '{ sub("next_comm=", "", $2); printf "%s,%s,%d,%.2f\n", c, $2, $1, $1 / n }' |
		sort -t, -k3 -nr | head -n 5 >>"$OUT/sched.csv"
	"$AE" exec node1 -- "$T /tmp/profile.trace lite_ioctl $DEPTH -- $lite >/dev/null; cat /tmp/profile.trace" >"$OUT/trace.tmp"
	awk -v top=lite_ioctl -f "$here/graph-summary.awk" "$OUT/trace.tmp" | sort -t, -k5 -gr >"$OUT/graph-$cfg.csv"
	awk -v top=lite_ioctl -f "$here/graph-call.awk" "$OUT/trace.tmp" >"$OUT/example-$cfg.txt"
done

"$AE" exec node2 -- "timeout 120 $B/verbs_bench -p 18690" >/dev/null 2>&1 &
sleep 2
"$AE" exec node1 -- "$T /tmp/profile.trace ib_uverbs_write $((DEPTH - 2)) -- $B/verbs_bench -m lat -o write -s $SIZE -n $N -r 1 -w 0.2 -p 18690 $ip2 >/dev/null; cat /tmp/profile.trace" >"$OUT/trace.tmp"
wait
awk -v top=ib_uverbs_write -f "$here/graph-summary.awk" "$OUT/trace.tmp" | sort -t, -k5 -gr >"$OUT/graph-verbs.csv"
awk -v top=ib_uverbs_write -f "$here/graph-call.awk" "$OUT/trace.tmp" >"$OUT/example-verbs.txt"
rm -f "$OUT/trace.tmp"
echo "done: $OUT"
