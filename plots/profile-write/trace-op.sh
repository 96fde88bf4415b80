#!/usr/bin/env bash
# trace-op.sh OUT GRAPH_FUNCS DEPTH -- CMD...: on a guest, as root: CMD
# under the function_graph tracer limited to GRAPH_FUNCS (space-separated)
# and DEPTH levels below them, with the task name on every line; the trace
# goes to OUT. The tracer is put back to nop afterwards.
set -euo pipefail
out=$1 funcs=$2 depth=$3
shift 3
[ "${1:-}" = -- ] && shift
t=/sys/kernel/tracing
mountpoint -q "$t" || mount -t tracefs nodev "$t"
reset() {
	echo 0 >"$t/tracing_on"
	echo nop >"$t/current_tracer"
	echo >"$t/set_graph_function"
	echo 0 >"$t/max_graph_depth"
}
trap reset EXIT
reset
echo >"$t/trace"
echo 16384 >"$t/buffer_size_kb"
echo function_graph >"$t/current_tracer"
echo "$funcs" >"$t/set_graph_function"
echo "$depth" >"$t/max_graph_depth"
echo 1 >"$t/options/funcgraph-proc"
echo 1 >"$t/options/funcgraph-tail"
echo 1 >"$t/tracing_on"
"$@"
echo 0 >"$t/tracing_on"
cat "$t/trace" >"$out"
