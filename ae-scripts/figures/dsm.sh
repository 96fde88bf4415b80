# shellcheck shell=bash
# Figure dsm: LITE-Kernel-DSM's operations (docs/dsm.md) timed one at a
# time from user space on the first node (microbench/dsm_bench, through
# liblite-dsm; microbench/README.md says what each sample is), beside
# LITE's own one-sided read (lite_bench -m lat -o read, as the lat figure
# runs it, of an LMR on the second node) and Global Arrays' get and put
# (ga_bench under mpirun, rank 0 on the first node, rank 1 on the second,
# as ga-graph runs), in one interleaved run. The DSM series, each against
# pages, homes and locks of other nodes:
#   dsm-read-fault     a remote read fault of one page (4 KiB, one RDMA
#                      read: a block of a single page, nothing to fetch
#                      ahead) after an acquire
#   dsm-block-fault    the first touch of a whole remote block: one RDMA
#                      read of its 16 pages (64 KiB, fetch-ahead)
#   dsm-cached-fault   a fault on a page that fetch brought in (no RDMA)
#   dsm-write-fault    the first write to a cached clean page
#                      (page_mkwrite, twin)
#   dsm-acquire        an acquire, nothing cached (LITE's lock on the
#                      region's meta node, another node)
#   dsm-release-K      a release with K dirty pages (K in PAGES, every
#                      byte changed: DIRTY=byte for one byte per page)
#   dsm-barrier        a barrier of every node (dsm_bench on each; the
#                      first node's samples)
#   lite-read-4096, lite-read-65536   LITE's read of 4 KiB and 64 KiB
#   ga-get, ga-put     GA's get and fenced put of 4 KiB
# Interleaved (lib/bench.sh): each repetition runs every series once, in
# a shuffled order (order.csv, point "all"), each program for that one
# series (-r 1, 0.5 s warm-up; the barrier's warm-up is 10 barriers on
# every node); every sample of every series is kept in samples.csv.gz.
# The target judges the remote read fault of a single-page block against
# LITE's 4 KiB read (mb_judged: 7 repetitions of those two, 3 of the
# rest); the 64 KiB block fault against LITE's 64 KiB read is shown in
# its row, not judged. lite_dsm.ko
# must be loaded on every node: where it is not (an inventory with
# dsm = no), the figure loads it for its run and unloads it at the end,
# also when the run fails, after stopping what it still runs on any node
# (lib/bench.sh, mb_ensure_dsm, mb_dsm_cleanup).
# Knobs: QUICK=1 (100 samples per series, 1 repetition), FULL=1 (5000);
# default 1000 (a release of K pages: 1000 x 16 / (K + 16), at least 20,
# as each takes its blocks' fetches and writes). PAGES="1 16 256" the
# release's page counts (default 1 4 16 64 256: one block and powers of
# 4 around it; releases are shown, not judged, and nine counts made them
# the figure's longest part), DIRTY=page|byte, SEED=N the shuffle.

# dsm_run: the region name's RUN for a case (lib: dsm_bench --run).
dsm_run() { echo "f$DSM_STAMP-$1"; }

# dsm_cmd OP RUN ARGS...: dsm_bench's command line on the first node.
dsm_cmd() {
	local op=$1 run=$2
	shift 2
	echo "$(mb_bin "$MB_CLI" dsm_bench) -o $op --nodes ${#INV_NODES[@]} --node $(mb_node_id "$MB_CLI") --run $run $*"
}

# dsm_release_iters K: samples of a release of K dirty pages.
dsm_release_iters() {
	local n=$((DSM_ITERS * 16 / ($1 + 16)))
	[ "$n" -ge 20 ] || n=20
	echo "$n"
}

# dsm_barrier OUTDIR TAG REP SAMPLES: dsm_bench -o barrier on every other
# node in the background, then on the first node (its rows and samples
# collected), then the others' ends awaited.
dsm_barrier() {
	local out=$1 tag=$2 rep=$3 sp=$4 h rc=0 run args
	run=$(dsm_run "$tag")
	args="-n $DSM_ITERS -r 1"
	mkdir -p "$out/raw"
	for h in "${INV_NODES[@]:1}"; do
		ae_bg_start "dsm-barrier-$h" "$h" "$AE_TIMEOUT" "$out/raw/$tag.$h.log" \
			"$(mb_bin "$h" dsm_bench) -o barrier --nodes ${#INV_NODES[@]} --node $(mb_node_id "$h") --run $run $args"
	done
	MB_REP=$rep MB_SAMPLES=$sp mb_pair "$out" "$tag" "" "" "$MB_CLI" \
		"$(dsm_cmd barrier "$run" "$args --samples $sp")" - || rc=1
	for h in "${INV_NODES[@]:1}"; do
		if [ "$rc" = 0 ]; then
			ae_bg_wait "dsm-barrier-$h" || { ae_warn "dsm: barrier on $h: $(ae_tail "$out/raw/$tag.$h.log")"; rc=1; }
		else
			# Killed in its barrier: mb_dsm_cleanup says what that leaves.
			mb_bg_stop "dsm-barrier-$h" || true
		fi
	done
	return "$rc"
}

# dsm_case OUTDIR REP POINT SYSTEM: one series, one repetition.
dsm_case() {
	local out=$1 rep=$2 sys=$4 tag="$4-$2" sp op k
	sp=$(mb_samples_path "$tag")
	case $sys in
	dsm-barrier)
		dsm_barrier "$out" "$tag" "$rep" "$sp" ;;
	dsm-release-*)
		k=${sys#dsm-release-}
		MB_REP=$rep MB_SAMPLES=$sp mb_pair "$out" "$tag" "" "" "$MB_CLI" \
			"$(dsm_cmd release "$(dsm_run "$tag")" "--pages $k --dirty $DSM_DIRTY -n $(dsm_release_iters "$k") -r 1 -w 0.5 --samples $sp")" - ;;
	dsm-*)
		op=${sys#dsm-}
		MB_REP=$rep MB_SAMPLES=$sp mb_pair "$out" "$tag" "" "" "$MB_CLI" \
			"$(dsm_cmd "${op//-/_}" "$(dsm_run "$tag")" "$DSM_COMMON --samples $sp")" - ;;
	lite-read-*)
		MB_REP=$rep MB_SAMPLES=$sp mb_lite "$out" "$tag" "-m lat -o read -s ${sys#lite-read-} $DSM_COMMON --samples $sp" ;;
	ga-*)
		MB_REP=$rep MB_SAMPLES=$sp mb_pair "$out" "$tag" "" "" "$MB_CLI" \
			"$(mpi_cmd 2) $(mb_bin "$MB_CLI" ga_bench) -o ${sys#ga-} -s 4096 $DSM_COMMON --samples $sp" - ;;
	*) ae_die "dsm: no series '$sys'" ;;
	esac || ae_die "dsm: $sys, repetition $rep failed"
}

# mb_judged POINT SERIES: the target judges the remote read fault of a
# single-page block against LITE's 4 KiB read; the rest is shown.
mb_judged() {
	case $2 in
	dsm-read-fault | lite-read-4096) return 0 ;;
	*) return 1 ;;
	esac
}

figure_run() {
	local out=$1 reps=$MB_REPS_JUDGED k pages
	local -a series
	DSM_ITERS=1000
	[ "${QUICK:-0}" = 1 ] && DSM_ITERS=100
	[ "${FULL:-0}" = 1 ] && DSM_ITERS=5000
	DSM_COMMON="-n $DSM_ITERS -r 1 -w 0.5"
	DSM_DIRTY=${DIRTY:-page}
	[ "$DSM_DIRTY" = page ] || [ "$DSM_DIRTY" = byte ] || ae_die "dsm: DIRTY=$DSM_DIRTY: page or byte"
	pages=${PAGES:-1 4 16 64 256}
	for k in $pages; do
		{ ae_is_uint "$k" && [ "$k" -ge 1 ] && [ "$k" -le 256 ]; } || ae_die "dsm: PAGES: $k is not in 1..256"
	done
	DSM_STAMP=$(date -u +%H%M%S)-$$
	mb_two_nodes dsm --no-lite
	[ "${#INV_NODES[@]}" -le 16 ] || ae_die "dsm: the DSM's homes are the first 16 nodes; $INV_FILE has ${#INV_NODES[@]}"
	mpi_setup dsm --one-sided
	mb_ensure_lite
	# Also when the run dies: its jobs stopped on every node, then lite_dsm.
	trap 'mb_dsm_cleanup dsm || true' EXIT
	mb_ensure_dsm "$out" dsm
	mpi_need dsm "$(mb_bin "$MB_CLI" ga_bench)" "$MB_CLI" "$MB_SRV"
	series=(dsm-read-fault dsm-block-fault dsm-cached-fault dsm-write-fault dsm-acquire dsm-barrier)
	for k in $pages; do series+=("dsm-release-$k"); done
	series+=(lite-read-4096 lite-read-65536 ga-get ga-put)
	mkdir -p "$out"
	[ "$AE_DRY_RUN" = 1 ] ||
		echo "bench,op,size,param,rep,samples,min_us,median_us,p99_us,p999_us,max_us" >"$out/raw.csv"
	mb_note "$out" "method: interleaved, $reps repetitions of the judged series (mb_judged), every series shuffled per repetition (point all) with seed $MB_SEED (order.csv); $DSM_ITERS samples per series (a release of K pages: 16/(K+16) of that, at least 20), one operation at a time; DSM on ${#INV_NODES[@]} nodes, measured on $MB_CLI; LITE reads of an LMR on $MB_SRV; GA between $MB_CLI (rank 0) and $MB_SRV (rank 1); release pages $pages, dirty $DSM_DIRTY"
	mb_reps_note "$out"
	mpi_version_note "$out"
	mb_interleave "$out" "$reps" all dsm_case "${series[@]}"
	trap - EXIT
	mb_dsm_cleanup dsm
	mb_summarize "$out"
}
