# shellcheck shell=bash
# Figure mr-count: 64 B write throughput at random offsets vs the number of
# memory regions written to (1..4096, x4 steps, 64 KiB each), node1 to
# node2: native verbs with that many MRs (ibv_reg_mr each, 16 writes in
# flight on one QP) against LITE with that many LMRs (one global key, no
# NIC registration; 16 writes in flight too: one thread posting with
# lite_post_write, --depth 16). Interleaved (lib/bench.sh): for each
# repetition and count the two run back to back in a shuffled order
# (order.csv), each for that one count (-r 1).
# Knobs: QUICK=1 (1 s windows, 1 repetition, up to 256), FULL=1 (10 s);
# default 2 s windows, 3 repetitions. THREADS=N LITE client threads (1),
# DEPTH=N posted writes in flight per LITE thread (16; 0: synchronous);
# SEED=N the shuffle.

# mrcount_case OUTDIR REP COUNT SYSTEM: one system at one count, one rep.
mrcount_case() {
	local out=$1 rep=$2 n=$3 sys=$4
	MB_REP=$rep mb_write_tput "$out" "$4-$3-$2" "$sys" "--mr-total $((n * 64))K --param-name mr-count $common $n" ||
		ae_die "mr-count: $sys with $n regions, repetition $rep failed"
}

figure_run() {
	local out=$1 dur=2 reps=3 counts common
	counts="1 4 16 64 256 1024 4096"
	[ "${QUICK:-0}" = 1 ] && dur=1 reps=1 counts="1 16 256"
	[ "${FULL:-0}" = 1 ] && dur=10
	mb_two_nodes mr-count
	common="-s 64 -D $dur -w 0.5 -r 1 --mr-count"
	mb_note "$out" "method: interleaved, $reps repetitions x counts ${COUNTS:-$counts}, systems shuffled per (repetition, count) with seed $MB_SEED (order.csv)"
	mb_write_tput_note "$out"
	mb_interleave "$out" "$reps" "${COUNTS:-$counts}" mrcount_case verbs lite
	mb_summarize "$out"
}
