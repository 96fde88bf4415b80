#!/usr/bin/env bash
# LITE-Graph's modes A/B (lite/apps/lite-graph, --mode, --window) on the
# joined cluster of INVENTORY (default the local one; lite-ae install
# first): ROUNDS rounds (default 4) of the four variants in a shuffled
# order at 2 and 3 nodes, scale SCALE (16), ITERS iterations (10). Writes
# OUT (default runs.csv beside this script): round,nodes,variant,node,
# ms_per_iter,rank_sum; fails when a variant's ranks differ from pull's.
set -euo pipefail
# shellcheck source=ae-scripts/lib/ab-app.sh
. "$(dirname "$(readlink -f "$0")")/../../ae-scripts/lib/ab-app.sh"

scale=${SCALE:-16} iters=${ITERS:-10}
graph_cmd() { echo "$AB_BIN -n $2 -s $scale -i $iters -q $3"; } # POINT NODES ARGS
# graph_rows ROUND POINT VARIANT NODES: every node's time per iteration.
graph_rows() {
	local h
	for ((h = 1; h <= $4; h++)); do
		sed -n "s/.* ms_per_iter=\([0-9.]*\) rank_sum=\([0-9.e+-]*\) .*/$1,$4,$3,$h,\1,\2/p" "$AB_TMP/$h"
	done
}
ab_app lite/apps/lite-graph/lite-graph "round,nodes,variant,node,ms_per_iter,rank_sum" "2 3" graph_cmd graph_rows \
	"pull=--mode pull" "pull64k=--mode pull --window 65536" "push=--mode push" "push64k=--mode push --window 65536"
# Every variant must end with pull's ranks.
awk -F, 'NR > 1 { s[$2 "," $6] = 1 } END { for (x in s) { split(x, p, ","); c[p[1]]++ } for (n in c) if (c[n] != 1) { print "ab-graph: the variants differ in their ranks at " n " nodes" > "/dev/stderr"; exit 1 } }' "$AB_OUT"
