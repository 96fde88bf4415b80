# shellcheck shell=bash
# Figure rpc-tput: RPC throughput (64 B request and reply) vs client
# threads on node1 against one server on node2: LITE RPC, native verbs RPC
# (write-imm and send/recv, one QP per thread, busy polling) and TCP (one
# connection per thread).
# Knobs: QUICK=1 (1 s windows, 1 repetition, 1/4/16 threads), FULL=1
# (10 s); default 2 s windows, 3 repetitions.

figure_run() {
	local out=$1 srv cli node ip dur=2 reps=3 threads t op common
	threads="1 2 4 8 16"
	[ "${QUICK:-0}" = 1 ] && dur=1 reps=1 threads="1 4 16"
	[ "${FULL:-0}" = 1 ] && dur=10
	[ "${#INV_NODES[@]}" -ge 2 ] || ae_die "rpc-tput needs two nodes; $INV_FILE has ${#INV_NODES[@]}"
	srv=${INV_NODES[1]} cli=${INV_NODES[0]}
	node=$(mb_node_id "$srv") ip=$(inv_var "$srv" fabric_ip)
	common="-s 64 -D $dur -w 0.5 -r $reps"
	mb_ensure_lite
	for t in ${THREADS:-$threads}; do
		mb_pair "$out" "lite-$t" "$srv" "$(mb_bin "$srv" lite_bench) -m rpc" "$cli" \
			"$(mb_bin "$cli" lite_bench) -m rpc -t $t $common $node" "$MB_LITE_READY" ||
			ae_die "rpc-tput: LITE with $t threads failed"
		for op in writeimm sendrecv; do
			mb_pair "$out" "verbs-$op-$t" "$srv" "$(mb_bin "$srv" verbs_bench) -p $MB_PORT" "$cli" \
				"$(mb_bin "$cli" verbs_bench) -m rpc -o $op -t $t --param-name threads $common -p $MB_PORT $ip" "$MB_LISTENING" ||
				ae_die "rpc-tput: verbs $op with $t threads failed"
		done
		mb_pair "$out" "tcp-$t" "$srv" "$(mb_bin "$srv" tcp_bench) -p $MB_PORT" "$cli" \
			"$(mb_bin "$cli" tcp_bench) -m rpc -t $t --param-name threads $common -p $MB_PORT $ip" "$MB_LISTENING" ||
			ae_die "rpc-tput: TCP with $t threads failed"
	done
	mb_summarize "$out"
}
