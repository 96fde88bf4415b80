# shellcheck shell=bash
# Figure qp-count: 64 B write throughput (random offsets in 16 MiB) vs
# connections, node1 to node2: native verbs with one RC QP per connection
# (1..256 QPs, driven by up to 8 threads, 16 writes in flight per QP)
# against LITE with 1..64 client threads sharing the node pair's K pooled
# QPs, each thread keeping 16 posted writes in flight (lite_post_write,
# --depth 16): at N connections both have 16 x N writes in flight.
# DEPTH=N changes LITE's (0: synchronous writes).
# Knobs: QUICK=1 (1 s windows, 1 repetition, fewer points), FULL=1 (10 s);
# default 2 s windows, 3 repetitions.

figure_run() {
	local out=$1 srv cli node ip dur=2 reps=3 qps threads n t common
	qps="1 2 4 8 16 32 64 128 256" threads="1 2 4 8 16 32 64"
	[ "${QUICK:-0}" = 1 ] && dur=1 reps=1 qps="1 8 64" threads="1 8 32"
	[ "${FULL:-0}" = 1 ] && dur=10
	[ "${#INV_NODES[@]}" -ge 2 ] || ae_die "qp-count needs two nodes; $INV_FILE has ${#INV_NODES[@]}"
	srv=${INV_NODES[1]} cli=${INV_NODES[0]}
	node=$(mb_node_id "$srv") ip=$(inv_var "$srv" fabric_ip)
	common="-s 64 -D $dur -w 0.5 -r $reps --mr-total 16M"
	mb_ensure_lite
	for n in ${QPS:-$qps}; do
		t=$((n < 8 ? n : 8))
		mb_pair "$out" "verbs-$n" "$srv" "$(mb_bin "$srv" verbs_bench) -p $MB_PORT" "$cli" \
			"$(mb_bin "$cli" verbs_bench) -m tput -o write -q $n -t $t --param-name qps $common -p $MB_PORT $ip" "$MB_LISTENING" ||
			ae_die "qp-count: verbs with $n QPs failed"
	done
	for t in ${THREADS:-$threads}; do
		mb_pair "$out" "lite-$t" "" "" "$cli" \
			"$(mb_bin "$cli" lite_bench) -m tput -o write -t $t --depth ${DEPTH:-16} --param-name threads $common $node" - ||
			ae_die "qp-count: LITE with $t threads failed"
	done
	mb_summarize "$out"
}
