# shellcheck shell=bash
# Figure rpc-lat: RPC latency vs request size (8 B..64 KiB, reply of the
# same size) between the first two nodes: LITE RPC (write-with-immediate,
# shared polling, sleeping waiters), a native verbs RPC with write-imm
# ping-pong and one with send/recv (both busy-polling), and TCP
# request/response. Medians of 3 repetitions.
# Knobs: QUICK=1 (200 calls per point, 1 repetition), FULL=1 (10000);
# default 1000. SIZES="8,64,..." overrides the sizes.

figure_run() {
	local out=$1 srv cli node iters=1000 reps=3 sizes op common ip
	[ "${QUICK:-0}" = 1 ] && iters=200 reps=1
	[ "${FULL:-0}" = 1 ] && iters=10000
	[ "${#INV_NODES[@]}" -ge 2 ] || ae_die "rpc-lat needs two nodes; $INV_FILE has ${#INV_NODES[@]}"
	srv=${INV_NODES[1]} cli=${INV_NODES[0]}
	node=$(mb_node_id "$srv") ip=$(inv_var "$srv" fabric_ip)
	sizes=${SIZES:-8,64,512,4096,65536}
	common="-s $sizes -n $iters -r $reps -w 0.5"
	mb_ensure_lite
	mb_pair "$out" lite "$srv" "$(mb_bin "$srv" lite_bench) -m rpc" "$cli" \
		"$(mb_bin "$cli" lite_bench) -m rpc $common $node" "$MB_LITE_READY" ||
		ae_die "rpc-lat: LITE RPC failed"
	for op in writeimm sendrecv; do
		mb_pair "$out" "verbs-$op" "$srv" "$(mb_bin "$srv" verbs_bench) -p $MB_PORT" "$cli" \
			"$(mb_bin "$cli" verbs_bench) -m rpc -o $op $common -p $MB_PORT $ip" "$MB_LISTENING" ||
			ae_die "rpc-lat: verbs $op failed"
	done
	mb_pair "$out" tcp "$srv" "$(mb_bin "$srv" tcp_bench) -p $MB_PORT" "$cli" \
		"$(mb_bin "$cli" tcp_bench) -m lat $common -p $MB_PORT $ip" "$MB_LISTENING" ||
		ae_die "rpc-lat: TCP failed"
	mb_summarize "$out"
}
