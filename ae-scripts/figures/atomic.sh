# shellcheck shell=bash
# Figure atomic: LITE's atomics on the NIC (RDMA atomic work requests to
# the owner's device) against LITE's CPU fallback (an ATOMIC control
# message served on the owner's CPU): latency of fetch-and-add and
# compare-and-swap from the first node on an atomic LMR of the second
# (lite_bench -m lat -o fadd|cas, one operation at a time), and the owner
# host's CPU time per operation. The owner's nic_atomics parameter picks
# the path of the LMR each run allocates; for every repetition and
# operation the two paths run back to back in a shuffled order (order.csv,
# lib/bench.sh; SEED=N), every latency sample in samples.csv.gz. The owner's
# CPU comes from /proc/stat (ae-scripts/cpu-sample) over a window inside
# the measured run; per operation = busy cores x median latency (one
# closed-loop caller issues 1/median operations per second). On rxe the
# "NIC" is the owner's kernel too (softirq): see exp.md.
# Knobs: QUICK=1 (1 repetition, 1 s windows), FULL=1 (5 repetitions);
# default MB_REPS_SHOWN repetitions (lib/bench.sh; no target judges it),
# 2 s windows.

# atomic_path HOST nic|cpu: where the atomics of LMRs HOST creates now run.
atomic_path() {
	local v=1
	[ "$2" = cpu ] && v=0
	[ "$AE_DRY_RUN" = 1 ] && { printf '[dry-run] %s: nic_atomics=%s\n' "$1" "$v"; return 0; }
	ae_ssh "$1" "echo $v >/sys/module/lite/parameters/nic_atomics" ||
		ae_die "atomic: cannot set nic_atomics=$v on $1"
}

# atomic_case OUTDIR PATH OP REP: one measurement; a row of atomic.csv.
atomic_case() {
	local out=$1 path=$2 op=$3 rep=$4 tag="$2-$3-$4" med n="N" rc=0 row
	local sp
	if [ "$AE_DRY_RUN" = 0 ]; then
		# Enough operations to outlast the sampled window: from a short run.
		med=$(ae_ssh "$MB_CLI" "$(mb_bin "$MB_CLI" lite_bench) -m lat -o $op -s 8 -n 200 -r 1 -w 0.2 $MB_NODE" | grep -v '^#' |
			awk -F, 'NR == 2 { print $8 }') || med=""
		[ -n "$med" ] || ae_die "atomic: calibration run of $tag failed"
		n=$(awk -v m="$med" -v w="$window" 'BEGIN {
			n = int((w + 3) * 1e6 / (m > 1 ? m : 1)); print (n < 500 ? 500 : (n > 500000 ? 500000 : n)) }')
	fi
	sp=$(mb_samples_path "$tag")
	# The owner's CPU, sampled while the client runs.
	# shellcheck disable=SC2034 # read by mb_pair
	local -a MB_BEFORE_CLIENT=(mb_cpu_sample atomic-owner "$MB_SRV" "$sdelay" "$window" "$out/raw/$tag.cpu-owner")
	MB_SERIES="lite-$path" MB_REP=$rep MB_SAMPLES=$sp \
		mb_lite "$out" "$tag" "-m lat -o $op -s 8 -n $n -r 1 -w 0.5 --samples $sp" || rc=1
	ae_bg_wait atomic-owner || rc=1
	[ "$rc" = 0 ] || ae_die "atomic: $tag failed (logs: $out/raw/$tag.*)"
	[ "$AE_DRY_RUN" = 0 ] || return 0
	row=$(grep -v '^#' "$out/raw/$tag.csv" | awk -F, 'NR == 2 { print $8 "," $9 }')
	paste -d, <(echo "$path,$op,$rep,$row") "$out/raw/$tag.cpu-owner" |
		awk -F, -v OFS=, '{ print $1, $2, $3, $4, $5, $6, $7, sprintf("%.2f", $6 / $7 * $4) }' \
		>>"$out/atomic.csv"
	tail -n 1 "$out/atomic.csv" | awk -F, '{ printf "atomic: %-3s %-4s rep %s: median %8.1f us, owner CPU %8.1f us/op\n", $1, $2, $3, $4, $8 }'
}

# atomic_summarize OUTDIR: data.csv, per path and operation the median over
# repetitions (lo/hi: their extremes) of latency and owner CPU per op, and
# ratios.csv, CPU path / NIC path per repetition.
atomic_summarize() {
	local out=$1
	[ "$AE_DRY_RUN" = 1 ] && return 0
	{
	echo "path,op,reps,median_us,lat_lo,lat_hi,p99_us,owner_cpu_us,cpu_lo,cpu_hi"
	grep -v '^path,' "$out/atomic.csv" | sort -t, -k1,1 -k2,2 | awk -F, -v OFS=, "$MB_MEDIAN_AWK"'
		# median() sorts: then l[1], l[n] are the extremes.
		function flush(   ml, mp, mc) {
			if (!n) return
			ml = median(l, n); mp = median(p, n); mc = median(c, n)
			print key, n, ml, l[1], l[n], mp, mc, c[1], c[n]
			n = 0
		}
		$1 "," $2 != key { flush(); key = $1 "," $2 }
		{ n++; l[n] = $4 + 0; p[n] = $5 + 0; c[n] = $8 + 0 }
		END { flush() }'
	} >"$out/data.csv"
	{
	echo "op,rep,cpu_over_nic_latency,cpu_over_nic_owner_cpu"
	awk -F, -v OFS=, 'NR > 1 { k = $2 "," $3; lat[$1, k] = $4; cpu[$1, k] = $8; keys[k] = 1 }
		END { for (k in keys) if (lat["nic", k] > 0 && cpu["nic", k] > 0)
			print k, sprintf("%.3f", lat["cpu", k] / lat["nic", k]), sprintf("%.3f", cpu["cpu", k] / cpu["nic", k]) }' \
		"$out/atomic.csv" | sort
	} >"$out/ratios.csv"
}

figure_run() {
	local out=$1 reps=$MB_REPS_SHOWN window=2 sdelay rep path op order
	[ "${QUICK:-0}" = 1 ] && reps=1 window=1
	[ "${FULL:-0}" = 1 ] && reps=5
	# MB_SRV: the owner of the atomic LMRs.
	mb_two_nodes atomic
	# The window starts 1.5 s after the client's ssh (setup and the 0.5 s
	# warm-up take less) and the run lasts >= window + 3 s.
	sdelay=1.5
	mkdir -p "$out/raw"
	echo "path,op,rep,median_us,p99_us,owner_busy_s,owner_window_s,owner_cpu_us_per_op" >"$out/atomic.csv"
	mb_note "$out" "method: interleaved, $reps repetitions x ops fadd cas, paths shuffled per (repetition, op) with seed $MB_SEED (order.csv); one operation in flight"
	for rep in $(seq "$reps"); do
		for op in fadd cas; do
			order=$(mb_order "$out" "$rep" "$op" nic cpu) || ae_die "atomic: cannot shuffle"
			for path in $order; do
				atomic_path "$MB_SRV" "$path"
				atomic_case "$out" "$path" "$op" "$rep"
			done
		done
	done
	atomic_path "$MB_SRV" nic
	atomic_summarize "$out"
}
