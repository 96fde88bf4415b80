# shellcheck shell=bash
# Figure app-log: LITE-Log (lite/apps/lite-log) against Redis streams
# (Debian's redis-server; XADD through hiredis: redis-log), on the same
# guests in the same run. The log's home and the Redis server are the first
# node; every node runs THREADS appending threads at once, each appending
# RECORDS records of SIZE bytes. Points: record sizes 64 B..4 KiB with one
# thread per node, and 1, 2, 4 threads per node with 64 B records. Each run
# starts from an empty log (a LITE-Log created for it; the stream deleted)
# and ends with a scan that finds every record once, intact. Interleaved:
# for each repetition and point the two systems run back to back in a
# shuffled order (order.csv). Both programs open their log (connect, for
# Redis) before the clock starts, and every node starts appending when all
# have opened (a LITE barrier; logload.h), so the nodes' times share one
# start.
# raw.csv: per run, the appends of all nodes over the slowest node's time
# (op append), and of the nodes other than the home over the slowest of
# them (op append-remote: the home appends locally, and finishes first);
# lat.csv: per run and node, the median and p99 append latency;
# phases.csv: per LITE-Log run and node, the mean time of an append's
# steps, two of them dependent (lite_log.h): reserve the number
# (fetch-and-add), then commit (compare-and-swap) with the record's write
# posted and in flight; write_ms is posting it plus waiting for it after
# the commit (what of the write the commit did not hide). Until the
# two-step append the three ran one after the other (exp.md's reference
# run, e30c549); the two-step append is not yet measured. data.csv and
# data-lat.csv summarise them per point.
# Knobs: QUICK=1 (1 repetition, 64 B and 1 KiB, 1 and 2 threads, 50
# records); default 3 repetitions, RECORDS=N (default 1000: a remote
# node's run takes seconds), DEPTH=N (1..64, default 1: appends in flight
# per thread, both systems: llog_append_many, pipelined XADDs), SEED=N.

APPLOG_PORT=${APPLOG_PORT:-18600}	# redis-server's, on the fabric
APPLOG_ID=0x4c4c			# the LITE-Log's identifier
APPLOG_STREAM=lite-log-bench		# redis-log's stream (STREAM in redis-log.c)

applog_bin() { echo "$(lite_rdir "$1")/lite/apps/lite-log/$2"; }

# applog_case OUTDIR REP POINT SYSTEM: POINT is SIZExTHREADS.
applog_case() {
	local out=$1 rep=$2 size=${3%x*} threads=${3#*x} sys=$4 tag h i=0 verdict
	local total=$((${#INV_NODES[@]} * ${3#*x} * APPLOG_RECORDS)) cmd
	tag=$sys-$size-$threads-$rep
	mkdir -p "$out/raw"
	case $sys in
	lite)
		# Room for every record (24-byte header, 8-byte alignment), for
		# the numbers appenders retry after a hole, and index entries
		# for LLOG_FULL_MARGIN (4096) more: a log that close to full
		# reads its tail before every append (lite_log.h).
		ae_bg_start applog-home "$APPLOG_HOME" "$AE_TIMEOUT" "$out/raw/$tag.home.log" \
			"$(applog_bin "$APPLOG_HOME" lite-log) host $APPLOG_ID $(((total * (size + 32) >> 20) + 2)) $((total + 1000 + 4096))"
		ae_bg_ready applog-home '^ready pid=' 60 ||
			ae_die "app-log: the LITE-Log home did not start: $(ae_tail "$out/raw/$tag.home.log")"
		;;
	redis)
		ae_ssh "$APPLOG_HOME" "$(applog_bin "$APPLOG_HOME" redis-log) reset $APPLOG_IP $APPLOG_PORT" >/dev/null ||
			ae_die "app-log: cannot reset the Redis stream"
		;;
	esac
	for h in "${INV_NODES[@]}"; do
		i=$((i + 1))
		case $sys in
		lite) cmd="$(applog_bin "$h" lite-log) append $APPLOG_NODE $APPLOG_ID $threads $APPLOG_RECORDS $size ${#INV_NODES[@]} $APPLOG_DEPTH" ;;
		redis) cmd="$(applog_bin "$h" redis-log) append $APPLOG_IP $APPLOG_PORT $i $threads $APPLOG_RECORDS $size ${#INV_NODES[@]} $APPLOG_DEPTH" ;;
		esac
		ae_bg_start "applog-$h" "$h" "$AE_TIMEOUT" "$out/raw/$tag.$h.log" "$cmd"
	done
	for h in "${INV_NODES[@]}"; do
		ae_bg_wait "applog-$h" ||
			ae_die "app-log: $sys appends on $h failed: $(ae_tail "$out/raw/$tag.$h.log")"
	done
	case $sys in
	lite) cmd="$(applog_bin "$APPLOG_HOME" lite-log) verify $APPLOG_NODE $APPLOG_ID" ;;
	redis) cmd="$(applog_bin "$APPLOG_HOME" redis-log) verify $APPLOG_IP $APPLOG_PORT" ;;
	esac
	cmd+=" ${#INV_NODES[@]} $threads $APPLOG_RECORDS $size"
	if [ "$AE_DRY_RUN" = 1 ]; then
		ae_ssh "$APPLOG_HOME" "$cmd"
		return 0
	fi
	verdict=$(ae_ssh "$APPLOG_HOME" "$cmd" 2>&1) ||
		ae_die "app-log: $sys: the log after the appends is wrong: $verdict"
	echo "$sys $size B x $threads threads/node, repetition $rep: $verdict" >>"$out/verified.txt"
	[ "$sys" != lite ] || ae_bg_stop applog-home ||
		ae_die "app-log: the LITE-Log home failed: $(ae_tail "$out/raw/$tag.home.log")"
	applog_rows "$out" "$sys" "$rep" "$tag"
}

# applog_rows OUTDIR SYSTEM REP TAG: the nodes' summary lines of run TAG
# ("appends=N size=B threads=T seconds=S ... lat_median_us=M lat_p99_us=P")
# as a row of OUTDIR/raw.csv and a row per node of OUTDIR/lat.csv.
applog_rows() {
	local out=$1 sys=$2 rep=$3 tag=$4 h size threads
	[ -s "$out/raw.csv" ] || echo "bench,op,size,param,rep,seconds,ops,ops_per_sec,bytes_per_sec" >"$out/raw.csv"
	[ -s "$out/lat.csv" ] || echo "bench,op,size,param,rep,node,median_us,p99_us" >"$out/lat.csv"
	for h in "${INV_NODES[@]}"; do
		grep -h '^appends=' "$out/raw/$tag.$h.log" | sed "s/^/node=$h /" ||
			ae_die "app-log: no summary from $h in $out/raw/$tag.$h.log"
	done | awk -v sys="${sys}_log" -v rep="$rep" -v home="$APPLOG_HOME" -v raw="$out/raw.csv" -v lat="$out/lat.csv" '
		function row(op, ops, secs) {
			printf "%s,%s,%s,%s,%s,%.3f,%d,%.3f,%.1f\n", sys, op, size, threads, rep, secs, ops,
				ops / secs, ops * size / secs >>raw
		}
		{
			for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
			ops += v["appends"]; if (v["seconds"] > secs) secs = v["seconds"]
			if (v["node"] != home) { rops += v["appends"]; if (v["seconds"] > rsecs) rsecs = v["seconds"] }
			size = v["size"]; threads = v["threads"]
			printf "%s,append,%s,%s,%s,%s,%s,%s\n", sys, size, threads, rep, v["node"],
				v["lat_median_us"], v["lat_p99_us"] >>lat
		}
		END {
			row("append", ops, secs)
			row("append-remote", rops, rsecs)
		}'
	[ "$sys" = lite ] || return 0
	IFS=- read -r _ size threads _ <<<"$tag"
	[ -s "$out/phases.csv" ] || echo "size,threads,rep,node,reserve_ms,write_ms,commit_ms,attempts" >"$out/phases.csv"
	for h in "${INV_NODES[@]}"; do
		sed -n "s/^phases reserve_ms=\([0-9.]*\) write_ms=\([0-9.]*\) commit_ms=\([0-9.]*\) attempts=\([0-9]*\)\$/$size,$threads,$rep,$h,\1,\2,\3,\4/p" "$out/raw/$tag.$h.log"
	done >>"$out/phases.csv"
}

# mb_judged POINT SYSTEM: every point is judged, where the host has a core
# for each guest's vCPUs (all nodes append at once).
mb_judged() { ! mb_oversubscribed "${#INV_NODES[@]}"; }

figure_run() {
	local out=$1 reps=$MB_REPS_JUDGED points
	points="64x1 256x1 1024x1 4096x1 64x2 64x4"
	APPLOG_RECORDS=${RECORDS:-1000}
	APPLOG_DEPTH=${DEPTH:-1}
	[ "${QUICK:-0}" = 1 ] && points="64x1 1024x1 64x2" APPLOG_RECORDS=${RECORDS:-50}
	[ "${#INV_NODES[@]}" -ge 2 ] || ae_die "app-log needs two nodes; $INV_FILE has ${#INV_NODES[@]}"
	mb_ensure_lite
	APPLOG_HOME=${INV_NODES[0]}
	APPLOG_NODE=$(mb_node_id "$APPLOG_HOME")
	APPLOG_IP=$(inv_var "$APPLOG_HOME" fabric_ip)
	# Redis as Debian ships it, in memory only (no snapshots, no append-only
	# file: LITE-Log keeps its log in memory too), on the fabric address.
	# Anyone there may connect, so its one user may only run redis-log's
	# three commands on redis-log's stream (no CONFIG, FLUSHALL, SHUTDOWN).
	# Up for the whole figure (at most an hour), stopped at its end or when
	# it fails, like the LITE-Log home of a run that failed.
	trap 'ae_bg_stop applog-home || true; ae_bg_stop redis || true' EXIT
	ae_bg_start redis "$APPLOG_HOME" 3600 "$out/redis-server.log" \
		"redis-server --port $APPLOG_PORT --bind $APPLOG_IP --save '' --appendonly no --protected-mode no --user default on nopass '~$APPLOG_STREAM' resetchannels -@all +xadd +xrange +del"
	ae_bg_ready redis 'Ready to accept connections' 60 ||
		ae_die "app-log: redis-server did not start on $APPLOG_HOME: $(ae_tail "$out/redis-server.log")"
	mb_note "$out" "method: interleaved, $reps repetitions x points (size x threads per node) $points, systems shuffled per (repetition, point) with seed $MB_SEED (order.csv); ${#INV_NODES[@]} nodes append at once (opened first, then a start barrier), $APPLOG_RECORDS records per thread, $APPLOG_DEPTH in flight per thread; log home and redis-server on $APPLOG_HOME; append-remote rows: the other nodes only"
	[ "$AE_DRY_RUN" = 1 ] ||
		mb_note "$out" "redis: $(ae_ssh "$APPLOG_HOME" "redis-server --version" 2>&1 | head -n 1)"
	mb_reps_note "$out"
	mb_interleave "$out" "$reps" "$points" applog_case lite redis
	ae_bg_stop redis || true
	trap - EXIT
	mb_summarize "$out"
	[ "$AE_DRY_RUN" = 1 ] && return 0
	applog_lat_summary "$out/lat.csv" >"$out/data-lat.csv"
}

# applog_lat_summary LAT_CSV: per (bench, size, threads), the median of the
# nodes' median latencies over every run, and of their p99s.
applog_lat_summary() {
	echo "bench,op,size,param,runs,median_us,p99_us"
	tail -n +2 "$1" | sort -t, -k1,1 -k3,3n -k4,4n | awk -F, "$MB_MEDIAN_AWK"'
		function flush() { if (n) printf "%s,%d,%.1f,%.1f\n", key, n, median(m, n), median(p, n); n = 0 }
		{ k = $1 "," $2 "," $3 "," $4; if (k != key) { flush(); key = k } n++; m[n] = $7; p[n] = $8 }
		END { flush() }'
}
