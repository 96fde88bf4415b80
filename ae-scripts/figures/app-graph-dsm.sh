# shellcheck shell=bash
# Figure app-graph-dsm: LITE-Graph-DSM (lite/apps/lite-graph-dsm: the
# PageRank of LITE-Graph with its rank vectors in one LITE-Kernel-DSM
# region, plain loads and stores and a DSM barrier per superstep, no call
# into liblite) against ga-graph (the same supersteps on Global Arrays,
# mpirun across the guests as mpi-graph), LITE-Graph (its default pull
# mode) and mpi-graph (OpenMPI over TCP) on the first 1..N nodes, and the
# single-node reference (graph-ref) on the first node, in the same run:
# app-graph's method, helpers and output (ae-scripts/figures/app-graph.sh,
# sourced; its figure_run and mb_judged are replaced here). Every system
# computes the same R-MAT graph (scale SCALE, 16 edges per vertex, seed 1)
# for ITERS iterations; after each run the first node's ranks are
# compared with graph-ref's (graph-cmp, 1e-6: verified.txt), and a
# mismatch stops the figure. Interleaved: for each repetition and node
# count the systems run back to back in a shuffled order (order.csv);
# graph-ref runs at 1 node. raw.csv as app-graph's (size = scale, param =
# nodes, seconds = the slowest node's time in iterations, ops =
# iterations), data.csv summarises it, iters.csv keeps every iteration's
# time and phases (LITE-Graph-DSM's and LITE-Graph's from every node,
# ga-graph's and mpi-graph's from rank 0).
# The DSM's homes are every node of the LITE cluster, whatever the run's
# node count (docs/dsm.md, Placement): LITE-Graph-DSM on n nodes keeps
# its region's pages on all of them, so even its 1-node run reads most
# pages from other nodes; ga-graph's and mpi-graph's data stay on their
# n ranks. lite_dsm.ko must be loaded on every node: where it is not (an
# inventory with dsm = no), the figure loads it for its run and unloads
# it at the end, also when the run fails, after stopping what it still
# runs on any node (lib/bench.sh, mb_ensure_dsm, mb_dsm_cleanup).
# Knobs: QUICK=1 (1 repetition, scale 12, 5 iterations); default 7
# repetitions of the judged points (LITE-Graph-DSM, ga-graph, LITE-Graph
# from 2 nodes, where the host has a core per vCPU of the whole cluster:
# mb_judged), MB_REPS_SHOWN of the rest (lib/bench.sh), SCALE=N
# (default 16), ITERS=N (default 10), SEED=N the shuffle.

# shellcheck source=ae-scripts/figures/app-graph.sh
. "$AE_ROOT/ae-scripts/figures/app-graph.sh"

APPGRAPH_DUMP=/tmp/app-graph-dsm	# .ref .dsm .lite .mpi .ga on the first node

appgraph_bench() {
	case $1 in
	dsm) echo lite_graph_dsm ;;
	lite) echo lite_graph ;;
	mpi) echo mpi_graph ;;
	ga) echo ga_graph ;;
	ref) echo graph_ref ;;
	esac
}

agd_dsm_bin() { echo "$(lite_rdir "$1")/lite/apps/lite-graph-dsm/$2"; }

# agd_case OUTDIR REP NODES SYSTEM: one run, verified, its row and
# iterations kept (app-graph's appgraph_case for lite, mpi and ref).
agd_case() {
	local out=$1 rep=$2 n=$3 sys=$4 tag h hosts=() verdict lines=1
	case $sys in
	lite | mpi | ref)
		appgraph_case "$@"
		return ;;
	esac
	tag=$sys-$n-$rep
	hosts=("${INV_NODES[@]:0:$n}")
	mkdir -p "$out/raw"
	case $sys in
	dsm)
		# A region of its own per run (a region lives until its last
		# node detaches): lite-graph-dsm-RUN.
		mb_on_nodes appgraph "$out/raw/$tag" "app-graph-dsm: lite-graph-dsm" \
			"lite/apps/lite-graph-dsm/lite-graph-dsm -n $n --node @NODE@ --run f$AGD_STAMP-$tag $APPGRAPH_ARGS --dump $APPGRAPH_DUMP.dsm" \
			"${hosts[@]}"
		lines=$n ;;
	ga)
		mb_on_node "$out/raw/$tag" "app-graph-dsm: mpirun of ga-graph on $n nodes" "${hosts[0]}" \
			"$(mpi_cmd "$n") $(agd_dsm_bin "${hosts[0]}" ga-graph) $APPGRAPH_ARGS --dump $APPGRAPH_DUMP.ga" ;;
	*) ae_die "app-graph-dsm: no system '$sys'" ;;
	esac
	[ "$AE_DRY_RUN" = 1 ] && return 0
	verdict=$(ae_ssh "${hosts[0]}" "$(appgraph_bin "${hosts[0]}" graph-cmp) $APPGRAPH_DUMP.$sys $APPGRAPH_DUMP.ref" 2>&1) ||
		ae_die "app-graph-dsm: $sys on $n nodes: ranks differ from graph-ref's: $verdict"
	echo "$sys on $n nodes, repetition $rep: $verdict" >>"$out/verified.txt"
	# One result line from every lite-graph-dsm; one from mpirun (rank 0's).
	for h in "${hosts[@]}"; do
		[ ! -f "$out/raw/$tag.$h.log" ] || grep -h '^result ' "$out/raw/$tag.$h.log" || true
	done | appgraph_row "$out" "$sys" "$rep" "$n" "$lines"
	appgraph_iters "$out" "$sys" "$rep" "$n" "${hosts[@]}"
}

# mb_judged NODES SYSTEM: the targets judge LITE-Graph-DSM against ga-graph
# and against LITE-Graph from 2 nodes (at 1 the DSM still reads the pages
# homed on the other nodes, 2/3 of them on 3, at every superstep, while
# both baselines run locally: shown, not judged), where the host has a
# core for every busy vCPU of the whole cluster: the DSM's homes are all
# its nodes whatever the run's count, and serve its faults and DIFFs
# (Soft-RoCE's responder, lite_dsm's threads), so a DSM point on n nodes
# keeps all of them busy.
mb_judged() {
	[ "$1" -ge 2 ] && ! mb_oversubscribed "${#INV_NODES[@]}" &&
		{ [ "$2" = dsm ] || [ "$2" = ga ] || [ "$2" = lite ]; }
}

figure_run() {
	local out=$1 reps=$MB_REPS_JUDGED scale=${SCALE:-16} iters=${ITERS:-10} rep n sys order points=""
	local -a run
	[ "${QUICK:-0}" = 1 ] && scale=${SCALE:-12} iters=${ITERS:-5}
	APPGRAPH_ARGS="-s $scale -i $iters"
	AGD_STAMP=$(date -u +%H%M%S)-$$
	for n in $(seq "${#INV_NODES[@]}"); do points+="${points:+ }$n"; done
	[ "${#INV_NODES[@]}" -le 16 ] || ae_die "app-graph-dsm: the DSM's homes are the first 16 nodes; $INV_FILE has ${#INV_NODES[@]}"
	mpi_setup app-graph-dsm --one-sided
	mb_ensure_lite
	# Also when the run dies: its jobs stopped on every node, then lite_dsm.
	trap 'mb_dsm_cleanup app-graph-dsm || true' EXIT
	mb_ensure_dsm "$out" app-graph-dsm
	mpi_need app-graph-dsm "$(agd_dsm_bin "${INV_NODES[0]}" ga-graph)" "${INV_NODES[@]}"
	mb_note "$out" "method: interleaved, $reps repetitions x nodes $points, lite-graph-dsm, lite-graph (pull), mpi-graph and ga-graph (and graph-ref at 1 node) shuffled per (repetition, nodes) with seed $MB_SEED (order.csv); R-MAT scale $scale, 16 edges per vertex, seed 1, $iters iterations; ranks compared with graph-ref's (verified.txt); every iteration's time in iters.csv; the DSM's homes: all ${#INV_NODES[@]} nodes at every node count"
	mpi_version_note "$out"
	# The reference the runs are compared with, before any of them.
	mb_on_log "${INV_NODES[0]}" "$out/graph-ref.log" \
		"$(appgraph_bin "${INV_NODES[0]}" graph-ref) $APPGRAPH_ARGS --dump $APPGRAPH_DUMP.ref" ||
		ae_die "app-graph-dsm: graph-ref failed on ${INV_NODES[0]}"
	mb_reps_note "$out"
	for rep in $(seq "$reps"); do
		for n in $points; do
			if [ "$n" = 1 ]; then
				mapfile -t run < <(mb_running "$rep" "$n" dsm lite mpi ga ref)
			else
				mapfile -t run < <(mb_running "$rep" "$n" dsm lite mpi ga)
			fi
			[ "${#run[@]}" -gt 0 ] || continue
			order=$(mb_order "$out" "$rep" "$n" "${run[@]}") || ae_die "cannot shuffle the systems"
			for sys in $order; do
				mb_timed "$out" "$rep" "$n" "$sys" agd_case "$out" "$rep" "$n" "$sys"
			done
		done
	done
	trap - EXIT
	mb_dsm_cleanup app-graph-dsm
	mb_summarize "$out"
}
