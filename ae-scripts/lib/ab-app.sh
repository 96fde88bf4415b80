# shellcheck shell=bash
# What plots/ab-graph/run.sh and plots/ab-mapreduce/run.sh share: an
# application's variants against each other on the joined cluster of
# INVENTORY (lite-ae install first), one run at a time. Sourced by a
# run.sh, after set -euo pipefail.

AB_AE=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/lite-ae

# ab_app PROGRAM HEADER "POINTS" CMD ROWS NAME=ARGS...: ROUNDS rounds
# (default 4) of, for each POINT of POINTS ("N" or "WHAT:N": a run on
# node1..N), every variant NAME in a shuffled order. A run is the line
# "CMD POINT N ARGS" prints (PROGRAM, a path in the tree, is AB_BIN there:
# node1's remote_dir) on node1..N at once (lite-ae exec); node h's output
# goes to AB_TMP/h, and "ROWS ROUND POINT NAME N" prints the run's rows
# of AB_OUT (OUT, default runs.csv beside the run.sh; HEADER its first
# line). A run that fails shows every node's output and ends the script.
ab_app() {
	local prog=$1 header=$2 points=$3 cmd=$4 rows=$5 here r point n v h line pids p
	local -A args=()
	shift 5
	for v in "$@"; do args[${v%%=*}]=${v#*=}; done
	here=$(dirname "$(readlink -f "$0")")
	AB_OUT=${OUT:-$here/runs.csv}
	# shellcheck disable=SC2034 # for CMD
	AB_BIN=$("$AB_AE" inventory node1 remote_dir)/$prog
	AB_TMP=$(mktemp -d)
	trap 'rm -rf "$AB_TMP"' EXIT
	echo "$header" >"$AB_OUT"
	for ((r = 1; r <= ${ROUNDS:-4}; r++)); do
		for point in $points; do
			n=${point##*:}
			for v in $(printf '%s\n' "${@%%=*}" | shuf); do
				line=$("$cmd" "$point" "$n" "${args[$v]}")
				pids=()
				for ((h = 1; h <= n; h++)); do
					"$AB_AE" exec "node$h" -- "$line" >"$AB_TMP/$h" 2>&1 &
					pids+=("$!")
				done
				for p in "${pids[@]}"; do
					wait "$p" || { cat "$AB_TMP"/*; echo "${here##*/}: $v at $point failed" >&2; exit 1; }
				done
				"$rows" "$r" "$point" "$v" "$n" >>"$AB_OUT"
			done
		done
	done
}
