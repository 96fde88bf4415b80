#!/usr/bin/env bash
# Where the RPC server host's CPU goes at a paced load, LITE's default
# policy next to the event-driven native server (the cpu figure's judged
# pair): 64 B calls from 4 paced client threads on node1 (RATE calls/s in
# all) to an echo server on node2, each server ROUNDS times, alternating.
# On node2, inside each run:
#  - <sys>-<round>.counts: over WINDOW seconds, the busy time
#    (ae-scripts/cpu-sample) and what /proc/stat (context switches,
#    interrupts) and /proc/softirqs counted, as deltas;
#  - <sys>-<round>.events: then, over the next WINDOW seconds, trace
#    events counted by kind (evcount.sh: timers started by function,
#    interrupts by handler, softirqs by kind, wake-ups by task; the
#    tracing's own cost is kept out of the counts' window);
# and summary.csv: per call, busy us, context switches, interrupts and
# softirqs by kind, one row per run. (perf in the guests saw almost only
# the idle loop, cpu-clock sampling in a VM without a PMU: not used.)
set -euo pipefail
here=$(dirname "$(readlink -f "$0")")
AE=$here/../../ae-scripts/lite-ae
B=/root/lite-ae/microbench
RATE=${RATE:-100} ROUNDS=${ROUNDS:-2} WINDOW=${WINDOW:-8} OUT=${OUT:-$here}
dur=$((2 * WINDOW + 8))
ip2=$("$AE" inventory node2 fabric_ip)
"$AE" sync >/dev/null
# lite-ae sync leaves plots/ out: the counting script goes by ssh.
E=/tmp/lite-evcount.sh
"$AE" exec node2 -- "cat >$E && chmod 755 $E" <"$here/evcount.sh"
mkdir -p "$OUT"

# One snapshot of node2's counters, as 'key value' lines.
# shellcheck disable=SC2016 # expanded on node2
snap='{ awk '\''$1 == "ctxt" || $1 == "intr" { print $1, $2 }'\'' /proc/stat
	awk '\''NR > 1 { s = 0; for (i = 2; i <= NF; i++) s += $i; print "softirq_" $1, s }'\'' /proc/softirqs; }'

# run SYS ROUND: one measured run of SYS (lite or verbs-event).
run() {
	local sys=$1 r=$2 srv cli f=$OUT/$1-$2
	case $sys in
	lite)
		srv="$B/lite_bench -m rpc --lite-port 3"
		cli="$B/lite_bench -m rpc --lite-port 3 -s 64 -t 4 -D $dur -w 2 -r 1 --rate $RATE 2" ;;
	verbs-event)
		srv="$B/verbs_bench --server-wait event -p 18691"
		cli="$B/verbs_bench -m rpc -o writeimm -s 64 -t 4 -D $dur -w 2 -r 1 --rate $RATE -p 18691 $ip2" ;;
	esac
	"$AE" exec node2 -- "timeout $((dur + 20)) $srv >/dev/null 2>&1" &
	local spid=$!
	sleep 3
	"$AE" exec node1 -- "$cli" >"$f.client" &
	local cpid=$!
	sleep 5
	"$AE" exec node2 -- "cd /tmp && ($snap) >a.snap && c=\$(/root/lite-ae/ae-scripts/cpu-sample 0 $WINDOW) &&
		($snap) >b.snap && echo \"busy_s \${c%%,*}\" && paste a.snap b.snap | awk '{ print \$1, \$4 - \$2 }' &&
		$E $WINDOW" >"$f.raw"
	wait "$cpid"
	wait "$spid" || true
	awk '/^busy_s|^ctxt|^intr|^softirq_/' "$f.raw" >"$f.counts"
	grep -v '^busy_s\|^ctxt\|^intr\|^softirq_' "$f.raw" >"$f.events"
	rm -f "$f.raw"
}

for r in $(seq "$ROUNDS"); do
	run lite "$r"
	run verbs-event "$r"
done

# Per call: the client's achieved rate x WINDOW calls in the window.
{
	echo "system,round,calls_per_sec,busy_us,ctxt,intr,$(awk '/^softirq_/ { sub(/softirq_/, "", $1); sub(/:$/, "", $1); printf "%s%s", s, $1; s = "," }' "$OUT/lite-1.counts")"
	for f in "$OUT"/*-[0-9]*.counts; do
		b=${f##*/} b=${b%.counts}
		ops=$(grep -v '^#' "${f%.counts}.client" | awk -F, 'NR == 2 { print $8 }')
		awk -v sys="${b%-*}" -v r="${b##*-}" -v ops="$ops" -v w="$WINDOW" '
			{ v[NR] = $2 }
			END {
				n = ops * w
				printf "%s,%s,%.1f,%.0f", sys, r, ops, v[1] * 1e6 / n
				for (i = 2; i <= NR; i++) printf ",%.2f", v[i] / n
				print ""
			}' "$f"
	done
} >"$OUT/summary.csv"
column -s, -t "$OUT/summary.csv"
