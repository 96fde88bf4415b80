# shellcheck shell=bash
# Figure reg-cost: time to make N bytes remotely accessible (4 KiB..1 GiB,
# x4 steps) on the first node and to give them back: ibv_reg_mr/ibv_dereg_mr
# (verbs_bench, buffer allocated and touched beforehand) against LITE's
# allocation and free of a local LMR (lite_bench: zeroed pages, DMA-mapped,
# no NIC registration). Interleaved (lib/bench.sh): for each repetition and
# size the two run back to back in a shuffled order (order.csv), each
# timing one pair after 0.2 s of untimed pairs (at least one). Medians of 3
# repetitions; every timing is also in samples.csv.gz.
# Knobs: QUICK=1 (up to 64 MiB, 1 repetition), FULL=1 (9 repetitions);
# SIZES="4K,..." overrides the sizes; SEED=N the shuffle.

# regcost_case OUTDIR REP SIZE SYSTEM: one system at one size, one rep.
regcost_case() {
	local out=$1 rep=$2 size=$3 sys=$4 tag="$4-$3-$2" sp
	sp=$(mb_samples_path "$tag")
	case $sys in
	verbs)
		MB_REP=$rep MB_SAMPLES=$sp mb_pair "$out" "$tag" "" "" "$h" \
			"$(mb_bin "$h" verbs_bench) -m reg -d $(inv_var "$h" rdma_dev) -s $size -r 1 -w 0.2 --samples $sp" - ;;
	lite)
		MB_REP=$rep MB_SAMPLES=$sp mb_pair "$out" "$tag" "" "" "$h" \
			"$(mb_bin "$h" lite_bench) -m reg -s $size -r 1 -w 0.2 --samples $sp $node" - ;;
	esac || ae_die "reg-cost: $sys at $size, repetition $rep failed"
}

# mb_judged SIZE SYSTEM: the target judges 1 GiB.
mb_judged() { [ "$1" = 1G ]; }

figure_run() {
	local out=$1 h node reps=$MB_REPS_JUDGED sizes="4K,16K,64K,256K,1M,4M,16M,64M,256M,1G"
	[ "${QUICK:-0}" = 1 ] && sizes="4K,64K,1M,16M,64M"
	[ "${FULL:-0}" = 1 ] && reps=9
	sizes=${SIZES:-$sizes}
	h=${INV_NODES[0]}
	node=$(mb_node_id "$h")
	mb_note "$out" "method: interleaved, $reps repetitions x sizes $sizes, systems shuffled per (repetition, size) with seed $MB_SEED (order.csv)"
	mb_reps_note "$out"
	mb_ensure_lite
	mb_interleave "$out" "$reps" "${sizes//,/ }" regcost_case verbs lite
	mb_summarize "$out"
}
