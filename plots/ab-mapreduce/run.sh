#!/usr/bin/env bash
# LITE-MapReduce's shuffle A/B (lite/apps/lite-mapreduce: --shuffle,
# --inbox-copy) on the joined cluster of INVENTORY (default the local one;
# lite-ae install first): ROUNDS rounds (default 4) of three variants in a
# shuffled order, for the inverted index (II_MIB MiB, 16) on 2 and 3 nodes
# and wordcount (WC_MIB, 64) on 3 nodes:
#   write-zc    one-sided writes; the inbox copied out into a zero-copy
#               buffer (lite_alloc_buffer)
#   write-heap  one-sided writes; the inbox copied out into malloc'ed memory
#   rpc         RPC messages received straight into malloc'ed memory
# Writes OUT (default runs.csv beside this script): round,job,nodes,
# variant,seconds,map_s,shuffle_s,reduce_s,merge_s (node 1's result and
# phases; every node's phases in the raw logs are not kept), and fails
# when a variant's output (out_fnv) differs from another's.
set -euo pipefail
# shellcheck source=ae-scripts/lib/ab-app.sh
. "$(dirname "$(readlink -f "$0")")/../../ae-scripts/lib/ab-app.sh"

declare -A mib=([invindex]=${II_MIB:-16} [wordcount]=${WC_MIB:-64})
mr_cmd() { echo "$AB_BIN -n $2 --job ${1%:*} -m ${mib[${1%:*}]} $3"; } # JOB:NODES NODES ARGS
# mr_rows ROUND JOB:NODES VARIANT NODES: node 1's result and phases.
mr_rows() {
	awk -v r="$1" -v j="${2%:*}" -v n="$4" -v v="$3" '
		{ for (i = 1; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] } }
		END { printf "%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n", r, j, n, v, f["seconds"], f["map_s"],
			f["shuffle_s"], f["reduce_s"], f["merge_s"], f["out_fnv"] }' "$AB_TMP/1"
}
ab_app lite/apps/lite-mapreduce/lite-mapreduce "round,job,nodes,variant,seconds,map_s,shuffle_s,reduce_s,merge_s,out_fnv" \
	"invindex:2 invindex:3 wordcount:3" mr_cmd mr_rows \
	"write-zc=--shuffle write --inbox-copy zerocopy" "write-heap=--shuffle write --inbox-copy heap" "rpc=--shuffle rpc"
# Every variant must give the same output.
awk -F, 'NR > 1 { s[$2 "," $3 "," $10] = 1 } END { for (x in s) { split(x, p, ","); c[p[1] "," p[2]]++ } for (k in c) if (c[k] != 1) { print "ab-mapreduce: the variants differ in their output at " k > "/dev/stderr"; exit 1 } }' "$AB_OUT"
