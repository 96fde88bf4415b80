# graph-call.awk: the N-th (default 100th) call of TOP in a function_graph
# trace (trace-op.sh), whole, without the CPU column.
# Usage: awk -v top=FUNC [-v n=N] -f graph-call.awk TRACE
BEGIN { if (!n) n = 100 }
$0 ~ ("  " top "( \\[[a-z_]+\\])?\\(\\) \\{") { seen++ }
seen == n { print substr($0, 15) }
