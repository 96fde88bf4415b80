# shellcheck shell=bash
# Figure rpc-spin: what the wait policy trades (lite/module/wait.c): 64 B RPC
# latency, and the server's CPU time per call, against how long waiters
# spin. LITE under the adaptive policy with spin_max_us 0, 50, 200 and
# 1000, and under the busy policy (set on both nodes), next to the native
# write-imm RPC, whose server and caller busy-poll. Server CPU per call:
# the echo server process's user + system time from its first request (or
# connection) to the end, over the calls (microbench/README.md); LITE's
# waits in the kernel count as its system time. One call in flight.
# Interleaved (lib/bench.sh): for each repetition the six run back to back
# in a shuffled order (order.csv); every call's latency is in
# samples.csv.gz. Medians of 5 repetitions (a cheap figure: more pairs
# for the decision rule).
# Knobs: QUICK=1 (200 calls, 1 repetition), FULL=1 (10000); default 1000;
# SEED=N the shuffle.

# rpcspin_case OUTDIR REP SIZE SYSTEM: one system, one repetition; its
# server's CPU per call goes to OUTDIR/cpu.csv.
rpcspin_case() {
	local out=$1 rep=$2 size=$3 sys=$4 tag="$4-$2" sp cpu
	sp=$(mb_samples_path "$tag")
	case $sys in
	verbs)
		MB_SERIES=$sys MB_REP=$rep MB_SAMPLES=$sp mb_verbs "$out" "$tag" \
			"-m rpc -o writeimm -s $size $common --samples $sp" ;;
	lite-*)
		if [ "$sys" = lite-busy ]; then
			mb_lite_policy busy 1000
		else
			mb_lite_policy adaptive "${sys#lite-spin}"
		fi
		MB_SERIES=$sys MB_REP=$rep MB_SAMPLES=$sp mb_lite_rpc "$out" "$tag" "-s $size $common --samples $sp" ;;
	esac || ae_die "rpc-spin: $sys, repetition $rep failed"
	[ "$AE_DRY_RUN" = 1 ] && return 0
	cpu=$(sed -n 's/^# server_cpu_us_per_req=//p' "$out/raw/$tag.server.log")
	[ -n "$cpu" ] || ae_die "rpc-spin: $tag: no server_cpu_us_per_req in $out/raw/$tag.server.log"
	[ -s "$out/cpu.csv" ] || echo "system,rep,server_us_per_call" >"$out/cpu.csv"
	echo "$sys,$rep,$cpu" >>"$out/cpu.csv"
}

# rpcspin_summarize OUTDIR: data.csv, per system in the plot's order: the
# latency summary (latency.csv, from raw.csv) beside the median, lowest
# and highest server CPU per call of the repetitions.
rpcspin_summarize() {
	local out=$1
	[ "$AE_DRY_RUN" = 1 ] && return 0
	mb_summarize "$out"
	mv "$out/data.csv" "$out/latency.csv"
	awk -F, -v OFS=, -v order="$systems" "$MB_MEDIAN_AWK"'
		FNR == 1 { file++; next }
		file == 1 { lat[$1] = $5 "," $6 "," $7 "," $8 "," $10; next }
		{ n[$1]++; c[$1, n[$1]] = $3 }
		END {
			print "system,reps,median_us,lo_us,hi_us,p99_us,server_us_per_call,cpu_lo,cpu_hi"
			k = split(order, sys, " ")
			for (i = 1; i <= k; i++) {
				s = sys[i]
				if (!(s in lat) || !n[s]) continue
				for (j = 1; j <= n[s]; j++) v[j] = c[s, j]
				m = median(v, n[s])
				print s, lat[s], m, v[1], v[n[s]]
			}
		}' "$out/latency.csv" "$out/cpu.csv" >"$out/data.csv"
}

# mb_judged SIZE SYSTEM: the target judges the busy policy against the
# native RPC; the spin limits are shown.
mb_judged() { [ "$2" = lite-busy ] || [ "$2" = verbs ]; }

figure_run() {
	local out=$1 iters=1000 reps=$MB_REPS_JUDGED common
	local systems="lite-spin0 lite-spin50 lite-spin200 lite-spin1000 lite-busy verbs"
	[ "${QUICK:-0}" = 1 ] && iters=200
	[ "${FULL:-0}" = 1 ] && iters=10000
	mb_two_nodes rpc-spin
	common="-n $iters -r 1 -w 0.5"
	mb_note "$out" "method: interleaved, $reps repetitions of $systems at 64 B, shuffled per repetition with seed $MB_SEED (order.csv); one call in flight"
	mb_reps_note "$out"
	# shellcheck disable=SC2086 # the systems are words
	mb_interleave "$out" "$reps" 64 rpcspin_case $systems
	mb_lite_policy adaptive 1000
	rpcspin_summarize "$out"
}
