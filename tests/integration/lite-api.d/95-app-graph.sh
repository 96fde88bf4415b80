# shellcheck shell=bash
# Part of tests/integration/lite-api (sourced): LITE-Graph
# (lite/apps/lite-graph), as the unprivileged user. lite-graph runs
# PageRank on the 3 nodes (each owns a third of an R-MAT graph of
# 2^GRAPH_SCALE vertices, default 14, for GRAPH_ITERS iterations, default
# 10: a few seconds here); every node must end with the same ranks, and on
# every node they must equal the single-node reference's (graph-ref) within
# 1e-6 (graph-cmp; they are in fact equal bit for bit). The same again in
# push mode (each node writes its ranks into the others' LMRs) with 64 KiB
# pieces, which must give the same ranks. Then mpi-graph,
# the MPI baseline, with 3 ranks on node1 only (mpirun across the guests
# would need ssh between them as the user), against the same reference;
# skipped with a note where mpirun or mpi-graph is missing.

graph_scale=${GRAPH_SCALE:-14}
graph_iters=${GRAPH_ITERS:-10}
graph_src=$R/lite/apps/lite-graph
graph_args="-s $graph_scale -i $graph_iters -q"
ae exec all -- "install -m 755 $graph_src/lite-graph $graph_src/graph-ref $graph_src/graph-cmp $GUEST_BIN/ &&
	rm -f /tmp/app-graph.*"
GR() { as_user "$GUEST_USER" "$GUEST_BIN/$1"; }

graph_t0=$SECONDS
lg=$(GR "lite-graph -n 3 $graph_args --dump /tmp/app-graph.lite")
on_nodes app-graph "$lg" "$lg" "$lg"
graph_secs=$((SECONDS - graph_t0))
results=$(grep -h '^result ' "$TEST_TMP"/app-graph.node*)
assert_eq "app-graph: a result line from each node" 3 "$(grep -c '^result prog=lite-graph parts=3 ' <<<"$results")"
assert_eq "app-graph: every node has the same final ranks (sum, top vertex)" 1 \
	"$(grep -o ' rank_sum=.*' <<<"$results" | sort -u | wc -l)"
echo "app-graph: lite-graph on 3 nodes in ${graph_secs}s: $(head -n 1 <<<"$results")"

lg=$(GR "lite-graph -n 3 $graph_args --mode push --window 65536 --dump /tmp/app-graph.push")
on_nodes app-graph-push "$lg" "$lg" "$lg"
assert_eq "app-graph: push mode, a result line from each node" 3 \
	"$(grep -h -c '^result prog=lite-graph parts=3 ' "$TEST_TMP"/app-graph-push.node* | awk '{ s += $1 } END { print s }')"

# The reference on every node, each compared with that node's dumps.
c="$(GR "graph-ref $graph_args --dump /tmp/app-graph.ref") && $(GR "graph-cmp /tmp/app-graph.lite /tmp/app-graph.ref") && $(GR "graph-cmp /tmp/app-graph.push /tmp/app-graph.ref")"
on_nodes app-graph-ref "$c" "$c" "$c"
assert_eq "app-graph: ranks of both modes compared on each node" 6 "$(cat "$TEST_TMP"/app-graph-ref.node* | grep -c '^max_abs_diff=')"

if [ -x "$AE_ROOT/lite/apps/lite-graph/mpi-graph" ] && ae exec node1 -- "command -v mpirun" >/dev/null 2>&1; then
	ae exec node1 -- "install -m 755 $graph_src/mpi-graph $GUEST_BIN/"
	out=$(ae -t 300 exec node1 -- "$(as_user "$GUEST_USER" "mpirun --oversubscribe -np 3 --mca btl tcp,self $GUEST_BIN/mpi-graph $graph_args --dump /tmp/app-graph.mpi") &&
		$(GR "graph-cmp /tmp/app-graph.mpi /tmp/app-graph.ref")")
	echo "app-graph: mpi-graph, 3 ranks on node1: $out"
	assert_match "app-graph: mpi-graph's ranks equal the reference's" '^max_abs_diff=' "$out"
else
	echo "app-graph: mpirun or mpi-graph missing (make deps installs openmpi-bin, libopenmpi-dev): MPI not checked"
fi
ae dmesg-check
