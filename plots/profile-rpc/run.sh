#!/usr/bin/env bash
# Where a LITE RPC's time goes under the busy wait policy, next to the
# native write-imm RPC: 64 B calls node1 -> node2 (N each), function_graph
# on both sides (../profile-write/trace-op.sh, graph-summary.awk):
#  - lite-client.csv, lite-server.csv: below lite_ioctl (DEPTH levels) in
#    the caller and in the echo server (its reply-and-receive calls);
#  - verbs-client.csv, verbs-server.csv: below ib_uverbs_write, the only
#    system call of the native RPC on rxe (the doorbell; both sides poll
#    their CQs in user space);
#  - <name>.txt beside each: one call's graph (the 100th).
# wait_policy=busy on both nodes while it runs, put back afterwards. The
# tracer costs about 1 us per traced function; compare rows with each other.
set -euo pipefail
here=$(dirname "$(readlink -f "$0")")
AE=$here/../../ae-scripts/lite-ae
B=/root/lite-ae/microbench
T=/tmp/lite-trace-op.sh
S=$here/../profile-write/graph-summary.awk
N=${N:-300} DEPTH=${DEPTH:-5} OUT=${OUT:-$here}
P=/sys/module/lite/parameters/wait_policy
ip2=$("$AE" inventory node2 fabric_ip)
was1=$("$AE" exec node1 -- "cat $P") was2=$("$AE" exec node2 -- "cat $P")
trap '"$AE" exec node1 -- "echo $was1 >$P"; "$AE" exec node2 -- "echo $was2 >$P"' EXIT
"$AE" exec node1 -- "echo busy >$P"
"$AE" exec node2 -- "echo busy >$P"
"$AE" sync >/dev/null
# lite-ae sync leaves plots/ out: the tracer script goes by ssh.
for h in node1 node2; do
	"$AE" exec "$h" -- "cat >$T && chmod 755 $T" <"$here/../profile-write/trace-op.sh"
done

# pair NAME TOP SERVER_CMD CLIENT_CMD: both traced below TOP.
pair() {
	"$AE" exec node2 -- "$T /tmp/srv.trace $2 $DEPTH -- timeout 120 $3 >/dev/null; cat /tmp/srv.trace" >"$OUT/srv.tmp" &
	sleep 3
	"$AE" exec node1 -- "$T /tmp/cli.trace $2 $DEPTH -- $4 >/dev/null; cat /tmp/cli.trace" >"$OUT/cli.tmp"
	wait
	for side in cli srv; do
		f=$OUT/$1-$([ "$side" = cli ] && echo client || echo server)
		awk -v top="$2" -f "$S" "$OUT/$side.tmp" | sort -t, -k5 -gr >"$f.csv"
		awk -v top="$2" -f "$here/../profile-write/graph-call.awk" "$OUT/$side.tmp" >"$f.txt"
	done
	rm -f "$OUT/cli.tmp" "$OUT/srv.tmp"
}
pair lite lite_ioctl "$B/lite_bench -m rpc --lite-port 3" "$B/lite_bench -m rpc --lite-port 3 -s 64 -n $N -r 1 -w 0.2 2"
pair verbs ib_uverbs_write "$B/verbs_bench -p 18691" "$B/verbs_bench -m rpc -o writeimm -s 64 -n $N -r 1 -w 0.2 -p 18691 $ip2"
echo "done: $OUT"
