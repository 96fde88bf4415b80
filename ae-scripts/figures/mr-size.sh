# shellcheck shell=bash
# Figure mr-size: write throughput at random 64 B-aligned offsets vs the
# total memory written to (1 MiB..1 GiB, x4 steps), for 64 B and 1 KiB
# writes, from the first node to the second: native verbs with one MR of
# that size (verbs_bench, 16 writes in flight on one QP) against LITE with
# one LMR of that size (lite_bench, 16 writes in flight too: one thread
# posting with lite_post_write, --depth 16). Interleaved (lib/bench.sh):
# for each repetition and total the two run back to back in a shuffled
# order (order.csv), each for that one total (both write sizes, -r 1).
# Knobs: QUICK=1 (1 s windows, 1 repetition, up to 64 MiB), FULL=1 (10 s);
# default 2 s windows, 3 repetitions. THREADS=N LITE client threads (1),
# DEPTH=N posted writes in flight per LITE thread (16; 0: synchronous);
# SEED=N the shuffle.

# mrsize_case OUTDIR REP TOTAL SYSTEM: one system at one total, one rep.
mrsize_case() {
	local out=$1 rep=$2 total=$3 sys=$4
	MB_REP=$rep mb_write_tput "$out" "$4-$3-$2" "$sys" "--mr-total $total --mr-count 1 --param-name mr-total $common" ||
		ae_die "mr-size: $sys at $total, repetition $rep failed"
}

figure_run() {
	local out=$1 dur=2 reps=3 totals common
	totals="1M 4M 16M 64M 256M 1G"
	[ "${QUICK:-0}" = 1 ] && dur=1 reps=1 totals="1M 4M 16M 64M"
	[ "${FULL:-0}" = 1 ] && dur=10
	mb_two_nodes mr-size
	common="-s 64,1K -D $dur -w 0.5 -r 1"
	mb_note "$out" "method: interleaved, $reps repetitions x totals ${TOTALS:-$totals}, systems shuffled per (repetition, total) with seed $MB_SEED (order.csv)"
	mb_write_tput_note "$out"
	mb_interleave "$out" "$reps" "${TOTALS:-$totals}" mrsize_case verbs lite
	mb_summarize "$out"
}
