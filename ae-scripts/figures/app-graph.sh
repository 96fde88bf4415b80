# shellcheck shell=bash
# Figure app-graph: LITE-Graph (lite/apps/lite-graph) against the same
# PageRank over MPI (mpi-graph: Debian's OpenMPI, mpirun over TCP on the
# fabric network) on the first 1..N nodes, and the single-node reference
# (graph-ref) on the first node, in the same run. LITE-Graph runs in its
# default mode (pull: each node reads the others' ranks) and, from 2 nodes
# on, in push mode (lite_graph_push: each node writes its ranks into every
# other node's LMR), so every run keeps the A/B of the two. Every version computes
# the same R-MAT graph (scale SCALE, 16 edges per vertex, seed 1) for ITERS
# iterations; after each run the first node's ranks are compared with
# graph-ref's (graph-cmp, 1e-6: verified.txt), and a mismatch stops the
# figure. Interleaved: for each repetition and node count the systems run
# back to back in a shuffled order (order.csv); graph-ref runs at 1 node.
# raw.csv (throughput rows, bench,op,size,param,rep,seconds,ops,
# ops_per_sec,bytes_per_sec): size = scale, param = nodes, seconds = the
# slowest node's time in iterations (graph generation excluded), ops =
# iterations, bytes_per_sec = edges traversed per second (the column name
# is summarize-bench's). data.csv summarises them per point. iters.csv
# keeps every iteration's time (bench,nodes,rep,node,iter,ms; LITE-Graph's
# phases too: gather_ms,apply_ms,scatter_ms,barrier_ms; mpi-graph's and
# graph-ref's from rank 0 / the one process).
# mpirun runs across the guests as lib/mpi.sh says (MPI_RSH_AGENT, MPI_NET).
# Knobs: QUICK=1 (1 repetition, scale 12, 5 iterations); default 5
# repetitions, SCALE=N (default 16), ITERS=N (default 10), SEED=N.

APPGRAPH_DUMP=/tmp/app-graph	# .ref .lite .mpi on the first node

appgraph_bin() { echo "$(lite_rdir "$1")/lite/apps/lite-graph/$2"; }

# appgraph_case OUTDIR REP NODES SYSTEM
appgraph_case() {
	local out=$1 rep=$2 n=$3 sys=$4 tag h hosts=() verdict lines
	tag=$sys-$n-$rep
	hosts=("${INV_NODES[@]:0:$n}")
	mkdir -p "$out/raw"
	case $sys in
	lite | lite-push)
		mb_on_nodes appgraph "$out/raw/$tag" "app-graph: lite-graph" \
			"lite/apps/lite-graph/lite-graph -n $n --mode $([ "$sys" = lite ] && echo pull || echo push) $APPGRAPH_ARGS --dump $APPGRAPH_DUMP.$sys" \
			"${hosts[@]}"
		;;
	mpi)
		mb_on_node "$out/raw/$tag" "app-graph: mpirun of mpi-graph on $n nodes" "${hosts[0]}" \
			"$(mpi_cmd "$n") $(appgraph_bin "${hosts[0]}" mpi-graph) $APPGRAPH_ARGS --dump $APPGRAPH_DUMP.mpi"
		;;
	ref)
		mb_on_node "$out/raw/$tag" "app-graph: graph-ref" "${hosts[0]}" \
			"$(appgraph_bin "${hosts[0]}" graph-ref) $APPGRAPH_ARGS --dump $APPGRAPH_DUMP.ref"
		;;
	esac
	[ "$AE_DRY_RUN" = 1 ] && return 0
	if [ "$sys" != ref ]; then
		verdict=$(ae_ssh "${hosts[0]}" "$(appgraph_bin "${hosts[0]}" graph-cmp) $APPGRAPH_DUMP.$sys $APPGRAPH_DUMP.ref" 2>&1) ||
			ae_die "app-graph: $sys on $n nodes: ranks differ from graph-ref's: $verdict"
		echo "$sys on $n nodes, repetition $rep: $verdict" >>"$out/verified.txt"
	fi
	# One result line from every lite-graph; one from mpirun (rank 0's) and
	# from graph-ref.
	lines=$n
	[[ "$sys" = lite* ]] || lines=1
	for h in "${hosts[@]}"; do
		[ ! -f "$out/raw/$tag.$h.log" ] || grep -h '^result ' "$out/raw/$tag.$h.log" || true
	done | appgraph_row "$out" "$sys" "$rep" "$n" "$lines"
	appgraph_iters "$out" "$sys" "$rep" "$n" "${hosts[@]}"
}

appgraph_bench() {
	case $1 in
	lite) echo lite_graph ;;
	lite-push) echo lite_graph_push ;;
	mpi) echo mpi_graph ;;
	ref) echo graph_ref ;;
	esac
}

# appgraph_iters OUTDIR SYSTEM REP NODES HOST...: the run's per-iteration
# lines ("iter=K ms=T [gather_ms=...]") into OUTDIR/iters.csv.
appgraph_iters() {
	local out=$1 sys=$2 bench rep=$3 n=$4 i=0 h
	bench=$(appgraph_bench "$sys")
	shift 4
	[ -s "$out/iters.csv" ] ||
		echo "bench,nodes,rep,node,iter,ms,gather_ms,apply_ms,scatter_ms,barrier_ms" >"$out/iters.csv"
	for h in "$@"; do
		i=$((i + 1))
		[ -f "$out/raw/$sys-$n-$rep.$h.log" ] || continue
		awk -v b="$bench" -v n="$n" -v r="$rep" -v node="$i" '
			/^iter=/ {
				delete v
				for (f = 1; f <= NF; f++) { split($f, kv, "="); v[kv[1]] = kv[2] }
				printf "%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n", b, n, r, node, v["iter"], v["ms"],
					v["gather_ms"], v["apply_ms"], v["scatter_ms"], v["barrier_ms"]
			}' "$out/raw/$sys-$n-$rep.$h.log" >>"$out/iters.csv"
	done
}

# appgraph_row OUTDIR SYSTEM REP NODES LINES: stdin's result lines ("result
# prog=... edges=E iters=I ... ms_per_iter=M rank_sum=R top=V ...", LINES
# of them) as a row of OUTDIR/raw.csv; all must report the same ranks
# (rank_sum, top).
appgraph_row() {
	local out=$1 rep=$3 n=$4 lines=$5 bench
	bench=$(appgraph_bench "$2")
	[ -s "$out/raw.csv" ] || echo "bench,op,size,param,rep,seconds,ops,ops_per_sec,bytes_per_sec" >"$out/raw.csv"
	awk -v bench="$bench" -v rep="$rep" -v n="$n" -v lines="$lines" -v raw="$out/raw.csv" '
		{
			for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
			s = v["ms_per_iter"] * v["iters"] / 1000
			if (s > secs) secs = s
			ranks[v["rank_sum"] " " v["top"]] = 1; rows++
			iters = v["iters"]; edges = v["edges"]; scale = v["scale"]
		}
		END {
			if (rows != lines || secs <= 0) { printf "%d result lines, expected %d\n", rows, lines > "/dev/stderr"; exit 1 }
			if (length(ranks) != 1) { print "the nodes ended with different ranks" > "/dev/stderr"; exit 1 }
			printf "%s,pagerank,%s,%s,%s,%.3f,%d,%.3f,%.1f\n", bench, scale, n, rep, secs, iters,
				iters / secs, edges * iters / secs >>raw
		}' || ae_die "app-graph: $sys on $n nodes, repetition $rep: no usable result in $out/raw"
}

# mb_judged NODES SYSTEM: the target judges LITE-Graph (pull) against
# mpi-graph from 2 nodes, where the host has a core for every busy vCPU.
mb_judged() {
	[ "$1" -ge 2 ] && ! mb_oversubscribed "$1" && { [ "$2" = lite ] || [ "$2" = mpi ]; }
}

figure_run() {
	local out=$1 reps=$MB_REPS_JUDGED scale=${SCALE:-16} iters=${ITERS:-10} rep n sys order points=""
	local -a run
	[ "${QUICK:-0}" = 1 ] && scale=${SCALE:-12} iters=${ITERS:-5}
	APPGRAPH_ARGS="-s $scale -i $iters"
	for n in $(seq "${#INV_NODES[@]}"); do points+="${points:+ }$n"; done
	mpi_setup app-graph
	mb_ensure_lite
	mb_note "$out" "method: interleaved, $reps repetitions x nodes $points, lite-graph (pull, and push from 2 nodes) and mpi-graph (and graph-ref at 1 node) shuffled per (repetition, nodes) with seed $MB_SEED (order.csv); R-MAT scale $scale, 16 edges per vertex, seed 1, $iters iterations; ranks compared with graph-ref's (verified.txt); every iteration's time in iters.csv"
	mpi_version_note "$out"
	# The reference the runs are compared with, before any of them.
	mb_on_log "${INV_NODES[0]}" "$out/graph-ref.log" \
		"$(appgraph_bin "${INV_NODES[0]}" graph-ref) $APPGRAPH_ARGS --dump $APPGRAPH_DUMP.ref" ||
		ae_die "app-graph: graph-ref failed on ${INV_NODES[0]}"
	mb_reps_note "$out"
	for rep in $(seq "$reps"); do
		for n in $points; do
			if [ "$n" = 1 ]; then
				mapfile -t run < <(mb_running "$rep" "$n" lite mpi ref)
			else
				mapfile -t run < <(mb_running "$rep" "$n" lite lite-push mpi)
			fi
			[ "${#run[@]}" -gt 0 ] || continue
			order=$(mb_order "$out" "$rep" "$n" "${run[@]}") || ae_die "cannot shuffle the systems"
			for sys in $order; do
				mb_timed "$out" "$rep" "$n" "$sys" appgraph_case "$out" "$rep" "$n" "$sys"
			done
		done
	done
	mb_summarize "$out"
}
