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

here=$(dirname "$(readlink -f "$0")")
ae=$here/../../ae-scripts/lite-ae
rounds=${ROUNDS:-4} ii=${II_MIB:-16} wc=${WC_MIB:-64}
out=${OUT:-$here/runs.csv}
bin=$("$ae" inventory node1 remote_dir)/lite/apps/lite-mapreduce/lite-mapreduce
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "round,job,nodes,variant,seconds,map_s,shuffle_s,reduce_s,merge_s,out_fnv" >"$out"
for ((r = 1; r <= rounds; r++)); do
	for point in invindex:2 invindex:3 wordcount:3; do
		job=${point%:*} n=${point#*:}
		mib=$ii
		[ "$job" = wordcount ] && mib=$wc
		for v in $(printf '%s\n' write-zc write-heap rpc | shuf); do
			case $v in
			write-zc) args="--shuffle write --inbox-copy zerocopy" ;;
			write-heap) args="--shuffle write --inbox-copy heap" ;;
			rpc) args="--shuffle rpc" ;;
			esac
			pids=()
			for ((h = 1; h <= n; h++)); do
				"$ae" exec "node$h" -- "$bin -n $n --job $job -m $mib $args" >"$tmp/$h" 2>&1 &
				pids+=("$!")
			done
			for p in "${pids[@]}"; do
				wait "$p" || { cat "$tmp"/*; echo "ab-mapreduce: $v $job on $n nodes failed" >&2; exit 1; }
			done
			awk -v r="$r" -v j="$job" -v n="$n" -v v="$v" '
				{ for (i = 1; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] } }
				END { printf "%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n", r, j, n, v, f["seconds"], f["map_s"],
					f["shuffle_s"], f["reduce_s"], f["merge_s"], f["out_fnv"] }' "$tmp/1" >>"$out"
		done
	done
done
# Every variant must give the same output.
awk -F, 'NR > 1 { s[$2 "," $3 "," $10] = 1 } END { for (x in s) { split(x, p, ","); c[p[1] "," p[2]]++ } for (k in c) if (c[k] != 1) { print "ab-mapreduce: the variants differ in their output at " k > "/dev/stderr"; exit 1 } }' "$out"
