# shellcheck shell=bash
# Figure lat: write and read latency vs size (8 B..64 KiB) between the
# first two nodes: LITE from user space (lite_bench, an LMR on the second
# node), native verbs (verbs_bench, one RC QP, busy polling) and TCP
# request/response on the same link (tcp_bench). Medians of 3 repetitions.
# Knobs: QUICK=1 (200 operations per point, 1 repetition), FULL=1 (10000);
# default 1000. SIZES="8,64,..." overrides the sizes.

figure_run() {
	local out=$1 srv cli node iters=1000 reps=3 sizes op common
	[ "${QUICK:-0}" = 1 ] && iters=200 reps=1
	[ "${FULL:-0}" = 1 ] && iters=10000
	[ "${#INV_NODES[@]}" -ge 2 ] || ae_die "lat needs two nodes; $INV_FILE has ${#INV_NODES[@]}"
	srv=${INV_NODES[1]} cli=${INV_NODES[0]}
	node=$(mb_node_id "$srv")
	sizes=${SIZES:-8,64,512,4096,65536}
	common="-s $sizes -n $iters -r $reps -w 0.5"
	mb_ensure_lite
	for op in write read; do
		mb_pair "$out" "lite-$op" "" "" "$cli" \
			"$(mb_bin "$cli" lite_bench) -m lat -o $op $common $node" - ||
			ae_die "lat: LITE $op failed"
		mb_pair "$out" "verbs-$op" "$srv" "$(mb_bin "$srv" verbs_bench) -p $MB_PORT" "$cli" \
			"$(mb_bin "$cli" verbs_bench) -m lat -o $op $common -p $MB_PORT $(inv_var "$srv" fabric_ip)" "$MB_LISTENING" ||
			ae_die "lat: verbs $op failed"
	done
	mb_pair "$out" tcp "$srv" "$(mb_bin "$srv" tcp_bench) -p $MB_PORT" "$cli" \
		"$(mb_bin "$cli" tcp_bench) -m lat $common -p $MB_PORT $(inv_var "$srv" fabric_ip)" "$MB_LISTENING" ||
		ae_die "lat: TCP failed"
	mb_summarize "$out"
}
