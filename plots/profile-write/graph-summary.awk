# graph-summary.awk: a function_graph trace (trace-op.sh, funcgraph-tail
# on) as one row per function: calls, calls per traced top-level call, and
# the mean and total of its inclusive duration (us). Interrupts taken
# inside count towards the functions they interrupted.
# Usage: awk -v top=FUNC -f graph-summary.awk TRACE
BEGIN { OFS = "," }
/^#/ { next }
{
	line = $0
	sub(/^.*\| +/, "", line)	# after the task column: "[+!#] 12.3 us | name..."
}
# "  1.234 us    |    name();"  or  "! 123.4 us  |  } /* name */"
match($0, /[0-9]+\.[0-9]+ us/) {
	d = substr($0, RSTART, RLENGTH - 3) + 0
	rest = substr($0, RSTART + RLENGTH)
	sub(/^[^|]*\| */, "", rest)
	if (rest ~ /^\} \/\* /) { name = rest; sub(/^\} \/\* /, "", name); sub(/ \*\/.*$/, "", name) }
	else if (rest ~ /\(\);$/) { name = rest; sub(/\(\);$/, "", name) }
	else next
	sub(/ \[[a-z_]+\]$/, "", name)
	n[name]++; t[name] += d
}
END {
	print "function,calls,per_" top ",mean_us,total_us"
	for (f in n) printf "%s,%d,%.2f,%.2f,%.1f\n", f, n[f], n[top] ? n[f] / n[top] : 0, t[f] / n[f], t[f]
}
