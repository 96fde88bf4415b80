# shellcheck shell=bash
# Figure qos: latency of a high-priority LITE RPC stream (64 B, node1 to an
# echo server on node2) alone, and under low-priority background traffic
# from the same node (2 threads of 64 KiB LITE writes to node2), with the
# priority policy on (prio_low_max_wait_us as loaded, 100000 by default, or
# QOS_WAIT_US) and off (0).
# In every repetition the three cases run back to back in a shuffled order
# (order.csv, lib/bench.sh), one call in flight; every call's latency is in
# samples.csv.gz.
# What priorities cost the low-priority traffic: the background prints its
# progress every 100 ms and the stream when its timed calls ran (both on
# node1's CLOCK_MONOTONIC), so background.csv has, per loaded case and
# repetition, the background's throughput while the stream ran and while it
# did not (the rest of the background's run, without its first second).
# Knobs: QUICK=1 (100 calls per repetition, 1 repetition), FULL=1 (3000);
# default 300 calls, 5 repetitions; SEED=N the shuffle.

# qos_case OUTDIR REP SERIES: one measurement of the stream (SERIES: idle,
# load-prio or load-noprio).
qos_case() {
	local out=$1 rep=$2 series=$3 tag="$3-$2" load=1 wait=$prio_wait rc=0 sp
	[ "$series" = idle ] && load=0
	[ "$series" = load-noprio ] && wait=0
	sp=$(mb_samples_path "$tag")
	ae_ssh "$MB_CLI" "echo $wait >/sys/module/lite/parameters/prio_low_max_wait_us" ||
		ae_die "qos: cannot set prio_low_max_wait_us on $MB_CLI"
	if [ "$load" = 1 ]; then
		ae_bg_start qos-load "$MB_CLI" "$AE_TIMEOUT" "$out/raw/$tag.background.csv" \
			"$(mb_bin "$MB_CLI" lite_bench) -m tput -o write --prio low -t 2 -s 64K --mr-total 16M -D $bgdur -w 0 -r 1 --ticks-ms 100 $MB_NODE"
		[ "$AE_DRY_RUN" = 1 ] || sleep 2
	fi
	MB_SERIES=$series MB_REP=$rep MB_SAMPLES=$sp mb_lite_rpc "$out" "$tag" \
		"--prio high -s 64 -n $iters -r 1 -w 0.5 --samples $sp" "--prio high" || rc=1
	[ "$load" = 0 ] || ae_bg_wait qos-load || rc=1
	[ "$rc" = 0 ] || ae_die "qos: case $series, repetition $rep failed"
	[ "$load" = 0 ] || [ "$AE_DRY_RUN" = 1 ] || qos_background "$out" "$rep" "$series"
}

# qos_background OUTDIR REP SERIES: append to OUTDIR/background.csv the
# background's throughput (bytes/s) while the stream's timed calls ran and
# outside them, from its ticks (linear between two) and the stream's window.
qos_background() {
	local out=$1 tag="$3-$2" f
	f=$out/background.csv
	[ -s "$f" ] || echo "bench,rep,size,alone_bytes_per_sec,during_bytes_per_sec" >"$f"
	awk -F'[=,]' -v series="$3" -v rep="$2" -v bytes=65536 -v OFS=, '
		FNR == 1 { file++ }
		file == 1 && $1 == "# window" { ws = $2; we = $3 }
		file == 2 && $1 == "# tick" { n++; t[n] = $2; c[n] = $3 }
		# operations completed by time x (linear between ticks)
		function at(x,   i) {
			for (i = 2; i <= n; i++)
				if (t[i] >= x) return c[i - 1] + (c[i] - c[i - 1]) * (x - t[i - 1]) / (t[i] - t[i - 1])
			return c[n]
		}
		END {
			if (!ws || n < 2) { print "qos: no window or no ticks for " series " " rep > "/dev/stderr"; exit 1 }
			if (t[n] < we) { print "qos: the background ended before the stream (" series " " rep ")" > "/dev/stderr"; exit 1 }
			# outside: from 1 s after the start of the background to 0.5 s
			# before the timed calls (the stream starts and warms up then),
			# and from 0.1 s after them to its end
			a = t[1] + 1e9; b = ws - 5e8; d = we + 1e8
			span = 0; ops = 0
			if (b > a) { span += b - a; ops += at(b) - at(a) }
			if (t[n] > d) { span += t[n] - d; ops += at(t[n]) - at(d) }
			if (span < 1e9) { print "qos: under 1 s of background outside the stream (" series " " rep ")" > "/dev/stderr"; exit 1 }
			printf "%s,%s,%d,%.1f,%.1f\n", series, rep, bytes, ops * bytes / span * 1e9, (at(we) - at(ws)) * bytes / (we - ws) * 1e9
		}' "$out/raw/$tag.csv" "$out/raw/$tag.background.csv" >>"$f" ||
		ae_die "qos: cannot line up the background with the stream in $out/raw/$tag.*"
}

# mb_judged POINT SERIES: the target judges the high-priority stream under
# load against idle; without priorities it is shown.
mb_judged() { [ "$2" = idle ] || [ "$2" = load-prio ]; }

figure_run() {
	local out=$1 iters=300 reps=$MB_REPS_JUDGED bgdur=10 rep order series prio_wait
	local -a run
	# QUICK's background once ended before the stream's 100 calls did on a
	# host busy with a second cluster (8 s): 15.
	[ "${QUICK:-0}" = 1 ] && iters=100 bgdur=15
	[ "${FULL:-0}" = 1 ] && iters=3000 bgdur=60
	mb_two_nodes qos
	mkdir -p "$out/raw"
	prio_wait=${QOS_WAIT_US:-}
	if [ -z "$prio_wait" ] && [ "$AE_DRY_RUN" = 0 ]; then
		prio_wait=$(ae_ssh "$MB_CLI" "cat /sys/module/lite/parameters/prio_low_max_wait_us") ||
			ae_die "qos: cannot read prio_low_max_wait_us on $MB_CLI"
	fi
	prio_wait=${prio_wait:-100000}
	[[ "$prio_wait" =~ ^[0-9]+$ ]] || ae_die "qos: prio_low_max_wait_us on $MB_CLI is '$prio_wait', not a number"
	mb_note "$out" "prio_low_max_wait_us: $prio_wait (priorities on)"
	mb_note "$out" "method: interleaved, $reps repetitions, cases shuffled per repetition with seed $MB_SEED (order.csv); one high-priority call in flight; background: 2 threads of synchronous 64 KiB writes for $bgdur s, its throughput in and outside the stream's timed calls in background.csv"
	mb_reps_note "$out"
	for rep in $(seq "$reps"); do
		mapfile -t run < <(mb_running "$rep" 64 idle load-prio load-noprio)
		order=$(mb_order "$out" "$rep" 64 "${run[@]}") || ae_die "qos: cannot shuffle"
		for series in $order; do
			qos_case "$out" "$rep" "$series"
		done
	done
	ae_ssh "$MB_CLI" "echo $prio_wait >/sys/module/lite/parameters/prio_low_max_wait_us" || true
	mb_summarize "$out"
}
