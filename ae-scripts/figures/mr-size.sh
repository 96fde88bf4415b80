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

# mrsize_args TOTAL: the clients' arguments for one region of TOTAL bytes.
mrsize_args() { echo "--mr-total $1 --mr-count 1 --param-name mr-total -s 64,1K $MB_WINDOW"; }

# mb_judged TOTAL SYSTEM: the target, LITE at 1 GiB against 1 MiB, only
# hardware decides: judged, so repeated, off Soft-RoCE only.
mb_judged() { ! mb_softroce && [ "$2" = lite ] && { [ "$1" = 1M ] || [ "$1" = 1G ]; }; }

figure_run() {
	mb_reps_note "$1"
	MB_SWEEP_REPS=$MB_REPS_JUDGED MB_WRITE_ARGS=mrsize_args \
		mb_sweep "$1" mr-size TOTALS total "1M 4M 16M 64M 256M 1G" "1M 4M 16M 64M" mb_write_tput_case verbs lite
}
