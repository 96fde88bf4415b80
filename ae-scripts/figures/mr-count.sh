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
# default 2 s windows, MB_REPS_SHOWN repetitions (lib/bench.sh; no target
# judges it). THREADS=N LITE client threads (1),
# DEPTH=N posted writes in flight per LITE thread (16; 0: synchronous);
# SEED=N the shuffle.

# mrcount_args COUNT: the clients' arguments for COUNT regions of 64 KiB.
mrcount_args() { echo "--mr-total $(($1 * 64))K --param-name mr-count -s 64 $MB_WINDOW --mr-count $1"; }

figure_run() {
	MB_WRITE_ARGS=mrcount_args \
		mb_sweep "$1" mr-count COUNTS count "1 4 16 64 256 1024 4096" "1 16 256" mb_write_tput_case verbs lite
}
