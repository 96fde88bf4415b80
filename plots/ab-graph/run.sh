#!/usr/bin/env bash
# LITE-Graph's modes A/B (lite/apps/lite-graph, --mode, --window) on the
# joined cluster of INVENTORY (default the local one; lite-ae install
# first): ROUNDS rounds (default 4) of the four variants in a shuffled
# order at 2 and 3 nodes, scale SCALE (16), ITERS iterations (10). Writes
# OUT (default runs.csv beside this script): round,nodes,variant,node,
# ms_per_iter,rank_sum; fails when a variant's ranks differ from pull's.
set -euo pipefail

here=$(dirname "$(readlink -f "$0")")
ae=$here/../../ae-scripts/lite-ae
rounds=${ROUNDS:-4} scale=${SCALE:-16} iters=${ITERS:-10}
out=${OUT:-$here/runs.csv}
bin=$("$ae" inventory node1 remote_dir)/lite/apps/lite-graph/lite-graph
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "round,nodes,variant,node,ms_per_iter,rank_sum" >"$out"
for ((r = 1; r <= rounds; r++)); do
	for n in 2 3; do
		for v in $(printf '%s\n' pull pull64k push push64k | shuf); do
			case $v in
			pull) args="--mode pull" ;;
			pull64k) args="--mode pull --window 65536" ;;
			push) args="--mode push" ;;
			push64k) args="--mode push --window 65536" ;;
			esac
			pids=()
			for ((h = 1; h <= n; h++)); do
				"$ae" exec "node$h" -- "$bin -n $n -s $scale -i $iters -q $args" >"$tmp/$h" 2>&1 &
				pids+=("$!")
			done
			for p in "${pids[@]}"; do
				wait "$p" || { cat "$tmp"/*; echo "ab-graph: $v on $n nodes failed" >&2; exit 1; }
			done
			for ((h = 1; h <= n; h++)); do
				sed -n "s/.* ms_per_iter=\([0-9.]*\) rank_sum=\([0-9.e+-]*\) .*/$r,$n,$v,$h,\1,\2/p" "$tmp/$h" >>"$out"
			done
		done
	done
done
# Every variant must end with pull's ranks.
awk -F, 'NR > 1 { s[$2 "," $6] = 1 } END { for (x in s) { split(x, p, ","); c[p[1]]++ } for (n in c) if (c[n] != 1) { print "ab-graph: the variants differ in their ranks at " n " nodes" > "/dev/stderr"; exit 1 } }' "$out"
