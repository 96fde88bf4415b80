# shellcheck shell=bash
# Figure verbs-lat: native RDMA latency with perftest (ib_write_lat,
# ib_read_lat, ib_send_lat) for message sizes 8 B, then 16 B..64 KiB in
# powers of four (a perftest run costs about 6 s under TCG: 42 took 241 s
# at d85134e), between the first two nodes of the inventory. perftest
# reports write/send latency as RTT/2 and read latency as the full RTT.
# The three tools run back to back for each size in a shuffled order
# (order.csv, lib/bench.sh; one run per point: perftest's report holds its
# own distribution of the iterations).
# Knobs: QUICK=1 (200 iterations per point), FULL=1 (10000), default 1000;
# SIZES="8 64 ..." overrides the size list; SEED=N the shuffle.

figure_run() {
	local out=$1 op size iters=1000 row order
	[ "${QUICK:-0}" = 1 ] && iters=200
	[ "${FULL:-0}" = 1 ] && iters=10000
	# Native verbs only: this figure runs where LITE does not (yet).
	mb_two_nodes verbs-lat --no-lite
	local -a sizes
	read -r -a sizes <<<"${SIZES:-8 16 64 256 1024 4096 16384 65536}"
	echo "op,bytes,iters,min_us,median_us,avg_us,stdev_us,p99_us,p999_us,max_us" >"$out/data.csv"
	mb_note "$out" "method: ops shuffled per size with seed $MB_SEED (order.csv), one run each"
	for size in "${sizes[@]}"; do
		order=$(mb_order "$out" 1 "$size" write read send) || ae_die "verbs-lat: cannot shuffle"
		for op in $order; do
			pt_run "ib_${op}_lat" "$MB_SRV" "$MB_CLI" "$size" "$iters" "$out/raw" "$op-$size" ||
				ae_die "verbs-lat: $(cat "$out/raw/$op-$size.error" 2>/dev/null)"
			[ "$AE_DRY_RUN" = 1 ] && continue
			row=$("$AE_ROOT/ae-scripts/parse-perftest" "$out/raw/$op-$size.json") ||
				ae_die "verbs-lat: unusable report $out/raw/$op-$size.json"
			echo "$op,$row" >>"$out/data.csv"
			printf 'verbs-lat: %-5s %6s B  median %8s us  p99 %8s us\n' "$op" "$size" \
				"$(cut -d, -f4 <<<"$row")" "$(cut -d, -f7 <<<"$row")"
		done
	done
}
