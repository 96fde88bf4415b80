# shellcheck shell=bash
# Figure qos: latency of a high-priority LITE RPC stream (64 B, node1 to an
# echo server on node2) alone, and under low-priority background traffic
# from the same node (2 threads of 64 KiB LITE writes to node2), with the
# priority policy on (prio_low_max_wait_us=2000, the default) and off (0).
# In every repetition the three cases run back to back in a shuffled order
# (order.csv, lib/bench.sh), one call in flight; every call's latency is in
# samples.csv.gz.
# Knobs: QUICK=1 (100 calls per repetition, 1 repetition), FULL=1 (3000);
# default 300 calls, 3 repetitions; SEED=N the shuffle.

# qos_case OUTDIR REP SERIES: one measurement of the stream (SERIES: idle,
# load-prio or load-noprio).
qos_case() {
	local out=$1 rep=$2 series=$3 tag="$3-$2" load=1 wait=2000 bg="" rc=0 sp
	[ "$series" = idle ] && load=0
	[ "$series" = load-noprio ] && wait=0
	sp=$(mb_samples_path "$tag")
	ae_ssh "$cli" "echo $wait >/sys/module/lite/parameters/prio_low_max_wait_us" ||
		ae_die "qos: cannot set prio_low_max_wait_us on $cli"
	if [ "$load" = 1 ] && [ "$AE_DRY_RUN" = 0 ]; then
		timeout --kill-after=5 "$AE_TIMEOUT" ssh -F "$AE_SSH_CONFIG" "$cli" -- \
			"timeout $AE_TIMEOUT $(mb_bin "$cli" lite_bench) -m tput -o write --prio low -t 2 -s 64K --mr-total 16M -D $bgdur -w 0 -r 1 $node" \
			>"$out/raw/$tag.background.csv" 2>&1 &
		bg=$!
		sleep 2
	fi
	MB_SERIES=$series MB_REP=$rep MB_SAMPLES=$sp mb_pair "$out" "$tag" "$srv" "$(mb_bin "$srv" lite_bench) -m rpc --prio high" "$cli" \
		"$(mb_bin "$cli" lite_bench) -m rpc --prio high -s 64 -n $iters -r 1 -w 0.5 --samples $sp $node" "$MB_LITE_READY" || rc=1
	[ -z "$bg" ] || wait "$bg" || rc=1
	[ "$rc" = 0 ] || ae_die "qos: case $series, repetition $rep failed"
}

figure_run() {
	local out=$1 srv cli node iters=300 reps=3 bgdur=20 rep order series
	[ "${QUICK:-0}" = 1 ] && iters=100 reps=1 bgdur=15
	[ "${FULL:-0}" = 1 ] && iters=3000 bgdur=120
	[ "${#INV_NODES[@]}" -ge 2 ] || ae_die "qos needs two nodes; $INV_FILE has ${#INV_NODES[@]}"
	srv=${INV_NODES[1]} cli=${INV_NODES[0]}
	node=$(mb_node_id "$srv")
	mkdir -p "$out/raw"
	mb_note "$out" "method: interleaved, $reps repetitions, cases shuffled per repetition with seed $MB_SEED (order.csv); one high-priority call in flight; background: 2 threads of synchronous 64 KiB writes for $bgdur s"
	mb_ensure_lite
	for rep in $(seq "$reps"); do
		order=$(mb_order "$out" "$rep" 64 idle load-prio load-noprio) || ae_die "qos: cannot shuffle"
		for series in $order; do
			qos_case "$out" "$rep" "$series"
		done
	done
	ae_ssh "$cli" "echo 2000 >/sys/module/lite/parameters/prio_low_max_wait_us" || true
	mb_summarize "$out"
}
