# shellcheck shell=bash
# Figure lat: write and read latency vs size (8 B..64 KiB) between the
# first two nodes: LITE from user space (lite_bench, an LMR on the second
# node) and from kernel space (microbench/kernel/lite_kbench.ko), native
# verbs (verbs_bench, one RC QP, busy polling; and perftest's ib_write_lat
# and ib_read_lat, one run per size) and TCP request/response on the same
# link (tcp_bench). Medians of 3 repetitions.
# Knobs: QUICK=1 (200 operations per point, 1 repetition), FULL=1 (10000);
# default 1000. SIZES="8,64,..." (bytes, no suffixes) overrides the sizes.

# lat_kernel OUTDIR CLIENT NODE SIZES ITERS REPS: the kernel-space curve.
lat_kernel() {
	local out=$1 cli=$2 ko
	ko=$(mb_bin "$cli" kernel/lite_kbench.ko)
	mb_pair "$out" lite-kernel "" "" "$cli" \
		"sh -c '[ ! -e /sys/module/lite_kbench ] || rmmod lite_kbench; insmod $ko node=$3 sizes=$4 iters=$5 reps=$6 warmup_ms=500 || exit 1; cat /proc/lite_kbench; rmmod lite_kbench'" -
}

# lat_perftest OUTDIR SERVER CLIENT SIZES ITERS: perftest rows appended to
# data.csv in its format (one run per point: reps 1, no spread).
lat_perftest() {
	local out=$1 srv=$2 cli=$3 iters=$5 op size row
	for op in write read; do
		for size in ${4//,/ }; do
			pt_run "ib_${op}_lat" "$srv" "$cli" "$size" "$iters" "$out/raw" "perftest-$op-$size" ||
				ae_die "lat: $(cat "$out/raw/perftest-$op-$size.error" 2>/dev/null)"
			[ "$AE_DRY_RUN" = 1 ] && continue
			row=$("$AE_ROOT/ae-scripts/parse-perftest" "$out/raw/perftest-$op-$size.json") ||
				ae_die "lat: unusable report $out/raw/perftest-$op-$size.json"
			# row: bytes,iters,min,median,avg,stdev,p99,p999,max
			awk -F, -v OFS=, -v op="$op" '{ print "perftest", op, $1, 0, 1, $4, $4, $4, $3, $7 }' \
				<<<"$row" >>"$out/data.csv"
		done
	done
}

figure_run() {
	local out=$1 srv cli node iters=1000 reps=3 sizes op common
	[ "${QUICK:-0}" = 1 ] && iters=200 reps=1
	[ "${FULL:-0}" = 1 ] && iters=10000
	[ "${#INV_NODES[@]}" -ge 2 ] || ae_die "lat needs two nodes; $INV_FILE has ${#INV_NODES[@]}"
	srv=${INV_NODES[1]} cli=${INV_NODES[0]}
	node=$(mb_node_id "$srv")
	sizes=${SIZES:-8,64,512,4096,65536}
	common="-s $sizes -n $iters -r $reps -w 0.5"
	mb_ensure_lite
	for op in write read; do
		mb_pair "$out" "lite-$op" "" "" "$cli" \
			"$(mb_bin "$cli" lite_bench) -m lat -o $op $common $node" - ||
			ae_die "lat: LITE $op failed"
		mb_pair "$out" "verbs-$op" "$srv" "$(mb_bin "$srv" verbs_bench) -p $MB_PORT" "$cli" \
			"$(mb_bin "$cli" verbs_bench) -m lat -o $op $common -p $MB_PORT $(inv_var "$srv" fabric_ip)" "$MB_LISTENING" ||
			ae_die "lat: verbs $op failed"
	done
	lat_kernel "$out" "$cli" "$node" "$sizes" "$iters" "$reps" ||
		ae_die "lat: LITE kernel space failed"
	mb_pair "$out" tcp "$srv" "$(mb_bin "$srv" tcp_bench) -p $MB_PORT" "$cli" \
		"$(mb_bin "$cli" tcp_bench) -m lat $common -p $MB_PORT $(inv_var "$srv" fabric_ip)" "$MB_LISTENING" ||
		ae_die "lat: TCP failed"
	mb_summarize "$out"
	lat_perftest "$out" "$srv" "$cli" "$sizes" "$iters"
}
