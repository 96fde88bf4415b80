#!/usr/bin/env bash
# A/B of lite/wait.c and cq.c, interleaved: LITE write and read latency
# (node1 to an LMR on node2) with a spinning waiter that polls the CQ itself
# (poll, the default), that leaves it to softirq (nopoll: spin_polls_cq=N),
# and under the busy policy; next to verbs. R rounds; in each, the four in
# an order shuffled by the round number. Needs LITE installed
# (lite-ae install) on the local cluster's paths (remote_dir /root/lite-ae).
set -euo pipefail
AE=$(dirname "$(readlink -f "$0")")/../../ae-scripts/lite-ae
# INVENTORY and AE_STATE_DIR as for lite-ae; the controller is ae-scripts/lite-ae.
R=${R:-4} OUT=${OUT:-lat.csv} SIZES=${SIZES:-8,64,512,4096} N=${N:-500}
B=/root/lite-ae/microbench
ip2=$("$AE" inventory | awk '$1 == "node2" { for (i = 1; i <= NF; i++) if ($i ~ /^fabric_ip=/) { sub("fabric_ip=", "", $i); print $i } }')
echo "round,config,bench,op,size,param,rep,samples,min_us,median_us,p99_us,p999_us,max_us" >"$OUT"
port=18600
for r in $(seq 1 "$R"); do
	for cfg in $(printf "%s\n" poll nopoll busy verbs | shuf --random-source=<(yes "$r")); do
		for op in write read; do
			case $cfg in
			poll|nopoll|busy)
				v=$([ "$cfg" = nopoll ] && echo N || echo Y)
				w=$([ "$cfg" = busy ] && echo busy || echo adaptive)
				"$AE" exec node1 -- "echo $v > /sys/module/lite/parameters/spin_polls_cq; echo $w > /sys/module/lite/parameters/wait_policy"
				out=$("$AE" exec node1 -- "$B/lite_bench -m lat -o $op -s $SIZES -n $N -r 1 -w 0.5 2") ;;
			verbs)
				port=$((port + 1))
				"$AE" exec node2 -- "timeout 120 $B/verbs_bench -p $port" >/dev/null 2>&1 &
				sleep 2
				out=$("$AE" exec node1 -- "$B/verbs_bench -m lat -o $op -s $SIZES -n $N -r 1 -w 0.5 -p $port $ip2")
				wait ;;
			esac
			awk -v r="$r" -v c="$cfg" '!/^#/ && !/^bench/ && NF { print r "," c "," $0 }' <<<"$out" >>"$OUT"
		done
	done
done
echo "done: $OUT"
