# shellcheck shell=bash
# Figure reg-cost: time to make N bytes remotely accessible (4 KiB..1 GiB,
# x4 steps) on the first node and to give them back: ibv_reg_mr/ibv_dereg_mr
# (verbs_bench, buffer allocated and touched beforehand) against LITE's
# allocation and free of a local LMR (lite_bench: zeroed pages, DMA-mapped,
# no NIC registration). Medians of 3 repetitions.
# Knobs: QUICK=1 (up to 64 MiB, 1 repetition), FULL=1 (9 repetitions).

figure_run() {
	local out=$1 h node reps=3 sizes="4K,16K,64K,256K,1M,4M,16M,64M,256M,1G"
	[ "${QUICK:-0}" = 1 ] && reps=1 sizes="4K,64K,1M,16M,64M"
	[ "${FULL:-0}" = 1 ] && reps=9
	sizes=${SIZES:-$sizes}
	h=${INV_NODES[0]}
	node=$(mb_node_id "$h")
	mb_ensure_lite
	mb_pair "$out" verbs "" "" "$h" \
		"$(mb_bin "$h" verbs_bench) -m reg -d $(inv_var "$h" rdma_dev) -s $sizes -r $reps" - ||
		ae_die "reg-cost: ibv_reg_mr failed"
	mb_pair "$out" lite "" "" "$h" \
		"$(mb_bin "$h" lite_bench) -m reg -s $sizes -r $reps $node" - ||
		ae_die "reg-cost: LITE allocation failed"
	mb_summarize "$out"
}
