# shellcheck shell=bash
# Figure rpc-tput: RPC throughput (64 B request and reply) vs client
# threads on node1 against one server on node2: LITE RPC, native verbs RPC
# (write-imm and send/recv, one QP per thread, busy polling) and TCP (one
# connection per thread); one call in flight per thread everywhere.
# Interleaved (lib/bench.sh): for each repetition and thread count the four
# run back to back in a shuffled order (order.csv), each for that one point
# (-r 1).
# Knobs: QUICK=1 (1 s windows, 1 repetition, 1/4/16 threads), FULL=1
# (10 s); default 2 s windows, MB_REPS_SHOWN repetitions (lib/bench.sh; no
# target judges it); SEED=N the shuffle.

# rpctput_case OUTDIR REP THREADS SYSTEM: one system at one thread count.
rpctput_case() {
	local out=$1 rep=$2 t=$3 sys=$4 tag="$4-$3-$2" common="-s 64 $MB_WINDOW"
	case $sys in
	lite)
		MB_REP=$rep mb_lite_rpc "$out" "$tag" "-t $t $common" ;;
	verbs-*)
		MB_REP=$rep mb_verbs "$out" "$tag" "-m rpc -o ${sys#verbs-} -t $t --param-name threads $common" ;;
	tcp)
		MB_REP=$rep mb_tcp "$out" "$tag" "-m rpc -t $t --param-name threads $common" ;;
	esac || ae_die "rpc-tput: $sys with $t threads, repetition $rep failed"
}

figure_run() {
	MB_METHOD_MORE="; one call in flight per thread" \
		mb_sweep "$1" rpc-tput THREADS threads "1 2 4 8 16" "1 4 16" rpctput_case lite verbs-writeimm verbs-sendrecv tcp
}
