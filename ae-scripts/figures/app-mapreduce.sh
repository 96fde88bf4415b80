# shellcheck shell=bash
# Figure app-mapreduce: LITE-MapReduce (lite/apps/lite-mapreduce) against
# the same jobs on MapReduce-MPI (mrmpi-mapreduce: Debian's libmrmpi over
# OpenMPI, mpirun over TCP on the fabric network, as lib/mpi.sh says) on
# the first 1..N nodes, and the single-node reference (mr-ref) on the
# first node, in the same run. Two jobs on the same Zipf corpus (seed 1):
# wordcount (WC_MIB MiB, map-heavy, combined) and invindex (II_MIB MiB, an
# inverted index: no combine, a shuffle of every (word, document) pair).
# Both runtimes run the same job: wordcount's pairs are folded where they
# are mapped, in the same map-side combine table (mr_ctab, mr_job.h) in
# each LITE-MapReduce map thread and in each MapReduce-MPI rank's map
# callback (combine=map in its result line; before issue 44 it emitted
# every word and compressed them), and mr-ref folds them in that table too.
# LITE-MapReduce shuffles over RPC (lite_mapreduce_rpc, its default) and
# with one-sided writes into the reducers' LMRs (lite_mapreduce), so every
# run keeps the A/B of the two (runs before 2026-11-27 18:00 measured RPC
# from 2 nodes only). After each run the first node's
# output is compared byte for byte with mr-ref's (cmp: verified.txt), and
# a mismatch stops the figure. Interleaved: for each repetition, job and
# node count the systems run back to back in a shuffled order
# (order.csv); mr-ref runs at 1 node.
# raw.csv (throughput rows, bench,op,size,param,rep,seconds,ops,
# ops_per_sec,bytes_per_sec): op = the job, size = corpus MiB, param =
# nodes, seconds = time to the result on the first node (input generation
# excluded), ops = 1, bytes_per_sec = corpus bytes per second. data.csv
# summarises them per point. phases.csv keeps every LITE-MapReduce node's
# phases (bench,job,nodes,rep,node,map_s,shuffle_s,reduce_s,merge_s,
# sent_bytes): where the time goes.
# Knobs: QUICK=1 (1 repetition, 8 and 4 MiB); default 3 repetitions,
# WC_MIB=N (default 64), II_MIB=N (default 16).

APPMR_OUT=/tmp/app-mapreduce	# .<system>.<job> on the first node

appmr_bin() { echo "$(lite_rdir "$1")/lite/apps/lite-mapreduce/$2"; }

appmr_bench() {
	case $1 in
	lite) echo lite_mapreduce ;;
	lite-rpc) echo lite_mapreduce_rpc ;;
	mpi) echo mrmpi ;;
	ref) echo mr_ref ;;
	esac
}

# appmr_case OUTDIR REP JOB NODES SYSTEM
appmr_case() {
	local out=$1 rep=$2 job=$3 n=$4 sys=$5 tag hosts=() args verdict
	tag=$job-$sys-$n-$rep
	hosts=("${INV_NODES[@]:0:$n}")
	args="--job $job -m ${APPMR_MIB[$job]} -o $APPMR_OUT.$sys.$job"
	mkdir -p "$out/raw"
	case $sys in
	lite | lite-rpc)
		mb_on_nodes appmr "$out/raw/$tag" "app-mapreduce: lite-mapreduce $job" \
			"lite/apps/lite-mapreduce/lite-mapreduce -n $n --shuffle $([ "$sys" = lite ] && echo write || echo rpc) $args" \
			"${hosts[@]}"
		;;
	mpi)
		mb_on_node "$out/raw/$tag" "app-mapreduce: mpirun of mrmpi-mapreduce $job on $n nodes" "${hosts[0]}" \
			"$(mpi_cmd "$n") $(appmr_bin "${hosts[0]}" mrmpi-mapreduce) $args"
		;;
	ref)
		mb_on_node "$out/raw/$tag" "app-mapreduce: mr-ref $job" "${hosts[0]}" "$(appmr_bin "${hosts[0]}" mr-ref) $args"
		;;
	esac
	[ "$AE_DRY_RUN" = 1 ] && return 0
	verdict=$(ae_ssh "${hosts[0]}" "cmp $APPMR_OUT.$sys.$job $APPMR_OUT.ref0.$job && wc -l <$APPMR_OUT.$sys.$job" 2>&1) ||
		ae_die "app-mapreduce: $sys $job on $n nodes: output differs from mr-ref's: $verdict"
	echo "$sys $job on $n nodes, repetition $rep: output equals mr-ref's ($verdict lines)" >>"$out/verified.txt"
	grep -h '^result ' "$out/raw/$tag.${hosts[0]}.log" | appmr_row "$out" "$sys" "$rep" "$n"
	appmr_phases "$out" "$sys" "$job" "$rep" "$n" "${hosts[@]}"
}

# appmr_row OUTDIR SYSTEM REP NODES: stdin's one result line ("result
# prog=... job=J bytes=B ... seconds=T ...") as a row of OUTDIR/raw.csv.
appmr_row() {
	local out=$1 rep=$3 n=$4 bench
	bench=$(appmr_bench "$2")
	[ -s "$out/raw.csv" ] || echo "bench,op,size,param,rep,seconds,ops,ops_per_sec,bytes_per_sec" >"$out/raw.csv"
	awk -v bench="$bench" -v rep="$rep" -v n="$n" -v raw="$out/raw.csv" '
		{
			for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
			rows++
		}
		END {
			if (rows != 1 || v["seconds"] <= 0 || v["nodes"] != n) { printf "%d result lines for %s nodes\n", rows, n > "/dev/stderr"; exit 1 }
			if (v["late_splits"] != "" && v["late_splits"] != 0) { print "splits made inside the clock" > "/dev/stderr"; exit 1 }
			printf "%s,%s,%d,%s,%s,%.6f,1,%.6f,%.1f\n", bench, v["job"], v["bytes"] / 1048576, n, rep,
				v["seconds"], 1 / v["seconds"], v["bytes"] / v["seconds"] >>raw
		}' || ae_die "app-mapreduce: $2 on $n nodes, repetition $rep: no usable result in $out/raw"
}

# appmr_phases OUTDIR SYSTEM JOB REP NODES HOST...: each LITE-MapReduce
# node's "phases ..." line into OUTDIR/phases.csv.
appmr_phases() {
	local out=$1 sys=$2 job=$3 rep=$4 n=$5 i=0 h bench
	shift 5
	[[ "$sys" = lite* ]] || return 0
	bench=$(appmr_bench "$sys")
	[ -s "$out/phases.csv" ] ||
		echo "bench,job,nodes,rep,node,map_s,shuffle_s,reduce_s,merge_s,sent_bytes" >"$out/phases.csv"
	for h in "$@"; do
		i=$((i + 1))
		awk -v b="$bench" -v j="$job" -v n="$n" -v r="$rep" -v node="$i" '
			/^phases / {
				for (f = 2; f <= NF; f++) { split($f, kv, "="); v[kv[1]] = kv[2] }
				printf "%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n", b, j, n, r, node, v["map_s"],
					v["shuffle_s"], v["reduce_s"], v["merge_s"], v["sent_bytes"]
			}' "$out/raw/$job-$sys-$n-$rep.$h.log" >>"$out/phases.csv"
	done
}

# mb_judged NODES SYSTEM: the target judges LITE-MapReduce's default (RPC)
# shuffle against MapReduce-MPI at every node count the host has a core
# for each busy vCPU; the write shuffle and mr-ref are shown.
mb_judged() { ! mb_oversubscribed "$1" && { [ "$2" = lite-rpc ] || [ "$2" = mpi ]; }; }

figure_run() {
	local out=$1 reps=$MB_REPS_JUDGED rep n sys job order points=""
	local -a run
	declare -gA APPMR_MIB=([wordcount]=${WC_MIB:-64} [invindex]=${II_MIB:-16})
	if [ "${QUICK:-0}" = 1 ]; then
		APPMR_MIB=([wordcount]=${WC_MIB:-8} [invindex]=${II_MIB:-4})
	fi
	for n in $(seq "${#INV_NODES[@]}"); do points+="${points:+ }$n"; done
	mpi_setup app-mapreduce
	mb_ensure_lite
	mb_note "$out" "method: interleaved, $reps repetitions x jobs wordcount (${APPMR_MIB[wordcount]} MiB), invindex (${APPMR_MIB[invindex]} MiB) x nodes $points, lite-mapreduce (rpc and write shuffles), mrmpi-mapreduce (wordcount combined in its map callback, as in lite-mapreduce's map threads) and mr-ref at 1 node, shuffled per (repetition, job, nodes) with seed $MB_SEED (order.csv); Zipf corpus, seed 1, 1 MiB splits; every output compared with mr-ref's (verified.txt); LITE-MapReduce's phases per node in phases.csv"
	mpi_version_note "$out"
	# The references the runs are compared with, before any of them.
	for job in wordcount invindex; do
		mb_on_log "${INV_NODES[0]}" "$out/mr-ref-$job.log" \
			"$(appmr_bin "${INV_NODES[0]}" mr-ref) --job $job -m ${APPMR_MIB[$job]} -o $APPMR_OUT.ref0.$job" ||
			ae_die "app-mapreduce: mr-ref $job failed on ${INV_NODES[0]}"
	done
	mb_reps_note "$out"
	for rep in $(seq "$reps"); do
		for job in wordcount invindex; do
			for n in $points; do
				if [ "$n" = 1 ]; then
					mapfile -t run < <(mb_running "$rep" "$n" lite lite-rpc mpi ref)
				else
					mapfile -t run < <(mb_running "$rep" "$n" lite lite-rpc mpi)
				fi
				[ "${#run[@]}" -gt 0 ] || continue
				order=$(mb_order "$out" "$rep" "$job-$n" "${run[@]}") || ae_die "cannot shuffle the systems"
				for sys in $order; do
					mb_timed "$out" "$rep" "$job-$n" "$sys" appmr_case "$out" "$rep" "$job" "$n" "$sys"
				done
			done
		done
	done
	mb_summarize "$out"
}
