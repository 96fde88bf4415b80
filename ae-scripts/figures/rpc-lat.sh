# shellcheck shell=bash
# Figure rpc-lat: RPC latency vs request size (8 B..64 KiB, reply of the
# same size) between the first two nodes: LITE RPC (write-with-immediate,
# shared polling, waiters under LITE's default adaptive wait policy: spin a
# while, then sleep), a native verbs RPC with write-imm ping-pong and one
# with send/recv (both busy-polling on both sides), the write-imm RPC once
# more with callers and server sleeping on their CQs' completion channels
# (verbs-event-writeimm: verbs_bench --client-wait event --server-wait
# event; bench column verbs_rpc_event), and TCP request/response. One call
# in flight for every system. Interleaved (lib/bench.sh,
# mb_interleave_runs): for each repetition the five run back to back in a
# shuffled order (order.csv), each client (and server) once for all its
# sizes of that repetition (-r 1, 0.5 s warm-up before each size); every
# call's latency is in samples.csv.gz. Medians of the repetitions
# (lib/bench.sh: MB_REPS_JUDGED of a judged point, MB_REPS_SHOWN of the
# rest; after those repetitions only the judged systems run, at 64 B).
# The target compares like with like (exp.md, Targets): LITE's default
# policy, which sleeps, against the event-driven native RPC; the
# busy-polling native RPCs are shown (LITE's busy policy against the
# busy-polling RPC is rpc-spin's target).
# Knobs: QUICK=1 (200 calls per point, 1 repetition), FULL=1 (10000);
# default 1000. SIZES="8,64,..." overrides the sizes; SEED=N the shuffle.

# rpclat_case OUTDIR REP "SIZE..." SYSTEM: one system at its sizes, one
# repetition: one run of its client (and server).
rpclat_case() {
	local out=$1 rep=$2 size=${3// /,} sys=$4 tag="$4-$2" sp
	sp=$(mb_samples_path "$tag")
	case $sys in
	lite)
		MB_REP=$rep MB_SAMPLES=$sp mb_lite_rpc "$out" "$tag" "-s $size $common --samples $sp" ;;
	verbs-event-*)
		MB_SERIES=verbs_rpc_event MB_REP=$rep MB_SAMPLES=$sp mb_verbs "$out" "$tag" \
			"-m rpc -o ${sys#verbs-event-} --client-wait event -s $size $common --samples $sp" \
			"--server-wait event" ;;
	verbs-*)
		MB_REP=$rep MB_SAMPLES=$sp mb_verbs "$out" "$tag" \
			"-m rpc -o ${sys#verbs-} -s $size $common --samples $sp" ;;
	tcp)
		MB_REP=$rep MB_SAMPLES=$sp mb_tcp "$out" "$tag" "-m lat -s $size $common --samples $sp" ;;
	esac || ae_die "rpc-lat: $sys at $size B, repetition $rep failed"
}

# mb_judged SIZE SYSTEM: the targets judge LITE's RPC (default policy)
# against the event-driven native write-imm RPC at 64 B, and against TCP
# there where the device is not Soft-RoCE (on rxe that row is not
# testable); the busy-polling native RPCs are shown.
mb_judged() {
	[ "$1" = 64 ] || return 1
	case $2 in
	lite | verbs-event-writeimm) return 0 ;;
	tcp) ! mb_softroce ;;
	*) return 1 ;;
	esac
}

figure_run() {
	local out=$1 iters=1000 reps=$MB_REPS_JUDGED sizes common
	[ "${QUICK:-0}" = 1 ] && iters=200
	[ "${FULL:-0}" = 1 ] && iters=10000
	mb_two_nodes rpc-lat
	sizes=${SIZES:-8,64,512,4096,65536}
	common="-n $iters -r 1 -w 0.5"
	mb_note "$out" "method: interleaved, $reps repetitions, systems shuffled per repetition with seed $MB_SEED (order.csv), each system's client once per repetition for its sizes of $sizes; one call in flight everywhere"
	mb_reps_note "$out"
	mb_interleave_runs "$out" "$reps" "${sizes//,/ }" rpclat_case lite verbs-writeimm verbs-sendrecv \
		verbs-event-writeimm tcp
	mb_summarize "$out"
}
