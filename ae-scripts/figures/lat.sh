# shellcheck shell=bash
# Figure lat: write and read latency vs size (8 B..64 KiB) between the
# first two nodes: LITE from user space (lite_bench, an LMR on the second
# node) and from kernel space (microbench/kernel/lite_kbench.ko), under
# LITE's default wait policy (adaptive: spin a while, then sleep) and, as
# lite_lat_busy, under the busy policy; native verbs (verbs_bench, one RC
# QP) busy-polling its CQ and, as verbs_lat_event (--client-wait event),
# sleeping on the CQ's completion channel; perftest's ib_write_lat and
# ib_read_lat (busy polling); and TCP request/response on the same link
# (tcp_bench). The targets pair the wait policies (exp.md, Targets):
# LITE's busy policy against busy-polling verbs, LITE's default against
# event-driven verbs.
# Interleaved (lib/bench.sh, mb_interleave_runs): for each repetition the
# thirteen series run back to back in a shuffled order (order.csv), each
# client once for all the sizes (-r 1, 0.5 s warm-up before each size;
# perftest, which takes one size, once per size); every sample of the
# microbench programs is kept in samples.csv.gz (perftest reports only its
# statistics). Medians of the repetitions (lib/bench.sh: MB_REPS_JUDGED of
# a judged series, MB_REPS_SHOWN of the rest).
# Knobs: QUICK=1 (200 operations per point, 1 repetition), FULL=1 (10000);
# default 1000. SIZES="8,64,..." (bytes, no suffixes) overrides the sizes;
# SEED=N the shuffle.

# lat_policy POLICY: LITE's wait policy for the next series, set only when
# it changes (LAT_POLICY: what the nodes have now).
lat_policy() {
	[ "$LAT_POLICY" = "$1" ] && return 0
	if [ "$1" = busy ]; then mb_lite_policy busy 1000; else mb_lite_policy adaptive 1000; fi
	LAT_POLICY=$1
}

# lat_case OUTDIR REP "SIZE..." SYSTEM: one series at its sizes, one
# repetition: one run of its program (perftest: one per size).
lat_case() {
	local out=$1 rep=$2 sizes=${3// /,} sys=$4 tag="$4-$2" sp op=${4##*-} ko size
	sp=$(mb_samples_path "$tag")
	case $sys in
	litebusy-*) [ "$AE_DRY_RUN" = 1 ] || lat_policy busy ;;
	lite-* | kernel-*) [ "$AE_DRY_RUN" = 1 ] || lat_policy adaptive ;;
	esac
	case $sys in
	lite-*)
		MB_REP=$rep MB_SAMPLES=$sp mb_lite "$out" "$tag" "-m lat -o $op -s $sizes $common --samples $sp" ;;
	litebusy-*)
		MB_SERIES=lite_lat_busy MB_REP=$rep MB_SAMPLES=$sp mb_lite "$out" "$tag" "-m lat -o $op -s $sizes $common --samples $sp" ;;
	kernel-*)
		ko=$(mb_bin "$MB_CLI" kernel/lite_kbench.ko)
		MB_REP=$rep MB_SAMPLES=$sp mb_pair "$out" "$tag" "" "" "$MB_CLI" \
			"sh -c '[ ! -e /sys/module/lite_kbench ] || rmmod lite_kbench; insmod $ko node=$MB_NODE ops=$op sizes=$sizes iters=$iters reps=1 warmup_ms=500 samples=1 || exit 1; cat /proc/lite_kbench; cat /proc/lite_kbench_samples >$sp; rmmod lite_kbench'" - ;;
	verbs-event-*)
		MB_SERIES=verbs_lat_event MB_REP=$rep MB_SAMPLES=$sp mb_verbs "$out" "$tag" \
			"-m lat -o $op --client-wait event -s $sizes $common --samples $sp" ;;
	verbs-*)
		MB_REP=$rep MB_SAMPLES=$sp mb_verbs "$out" "$tag" "-m lat -o $op -s $sizes $common --samples $sp" ;;
	tcp)
		MB_REP=$rep MB_SAMPLES=$sp mb_tcp "$out" "$tag" "-m lat -s $sizes $common --samples $sp" ;;
	perftest-*)
		for size in ${sizes//,/ }; do
			lat_perftest "$out" "$rep" "$size" "$op" "$sys-$size-$rep" || return 1
		done ;;
	esac || ae_die "lat: $sys at $sizes B, repetition $rep failed"
}

# lat_perftest OUTDIR REP SIZE OP TAG: perftest's ib_OP_lat at one size;
# its row into OUTDIR/raw.csv.
lat_perftest() {
	local out=$1 rep=$2 size=$3 op=$4 tag=$5 row
	pt_run "ib_${op}_lat" "$MB_SRV" "$MB_CLI" "$size" "$iters" "$out/raw" "$tag" ||
		ae_die "lat: $(cat "$out/raw/$tag.error" 2>/dev/null)"
	[ "$AE_DRY_RUN" = 1 ] && return 0
	row=$("$AE_ROOT/ae-scripts/parse-perftest" "$out/raw/$tag.json") ||
		ae_die "lat: unusable report $out/raw/$tag.json"
	# row: bytes,iters,min,median,avg,stdev,p99,p999,max
	awk -F, -v OFS=, -v op="$op" -v rep="$rep" '{ print "perftest", op, $1, 0, rep, $2, $3, $4, $7, $8, $9 }' \
		<<<"$row" >>"$out/raw.csv"
}

# mb_judged SIZE SERIES: the targets judge, writes and reads at every
# size, each LITE policy against verbs waiting the same way: the busy
# policy against busy-polling verbs, the default (adaptive) against
# event-driven verbs; the rest is shown.
mb_judged() {
	case $2 in
	litebusy-write | litebusy-read | verbs-write | verbs-read) return 0 ;;
	lite-write | lite-read | verbs-event-write | verbs-event-read) return 0 ;;
	*) return 1 ;;
	esac
}

figure_run() {
	local out=$1 iters=1000 reps=$MB_REPS_JUDGED sizes common
	[ "${QUICK:-0}" = 1 ] && iters=200
	[ "${FULL:-0}" = 1 ] && iters=10000
	mb_two_nodes lat
	sizes=${SIZES:-8,64,512,4096,65536}
	common="-n $iters -r 1 -w 0.5"
	mkdir -p "$out"
	[ "$AE_DRY_RUN" = 1 ] ||
		echo "bench,op,size,param,rep,samples,min_us,median_us,p99_us,p999_us,max_us" >"$out/raw.csv"
	mb_note "$out" "method: interleaved, $reps repetitions, series shuffled per repetition with seed $MB_SEED (order.csv), each series' client once per repetition for sizes $sizes (perftest once per size); one operation in flight everywhere"
	mb_reps_note "$out"
	LAT_POLICY=unknown
	mb_interleave_runs "$out" "$reps" "${sizes//,/ }" lat_case lite-write lite-read \
		litebusy-write litebusy-read kernel-write kernel-read verbs-write verbs-read \
		verbs-event-write verbs-event-read tcp perftest-write perftest-read
	[ "$AE_DRY_RUN" = 1 ] || lat_policy adaptive	# lite.ko's default again
	mb_summarize "$out"
}
