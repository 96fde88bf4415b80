# shellcheck shell=bash
# Figure cpu: CPU time per RPC on the server host and on the client host vs
# the load offered by the client: LITE RPC (server sleeps in the kernel
# until a request arrives; one polling thread per device) against the
# native write-imm RPC (verbs_bench) two ways: server and callers
# busy-polling their CQs (verbs), and both sleeping on their CQs'
# completion channels (verbs-event: ibv_req_notify_cq, ibv_get_cq_event).
# The target judges LITE's server (default policy: spin a while, then
# sleep) against the event-driven one, which sleeps too; the busy-polling
# server is shown. 64 B calls from 4 client threads on node1 to one
# server on node2, paced to each offered rate (--rate; 0 = as fast as
# replies come). The CPU time is the whole host's, from /proc/stat
# (ae-scripts/cpu-sample: processes, kernel threads, interrupts), over a
# window inside the client's measured window; per call = CPU time / (calls
# per second x window).
# For every offered rate and repetition the three systems run back to back
# in a shuffled order (order.csv, lib/bench.sh).
# Knobs: QUICK=1 (rates 50,200,0; 5 s windows; 1 repetition), FULL=1
# (20 s windows); default 8 s windows, MB_REPS_JUDGED + 2 repetitions of
# what the target judges, MB_REPS_SHOWN of the rest (lib/bench.sh): a
# pair counts only where both runs reached 95% of the offered rate
# (ae-scripts/targets), and on Soft-RoCE a run that meets a retransmission
# stalls its callers on that QP for the ACK timeout (2.1 s at timeout 19),
# which loses one run in about eight 5-9% of its calls; two more
# repetitions keep 7 pairs or more. RATES="..." overrides; SEED=N the
# shuffle.

# cpu_samplers_start PREFIX DELAY WINDOW SERVER CLIENT: cpu-sample
# (mb_cpu_sample) on the server and the client host in the background, as
# jobs cpu-server and cpu-client, into PREFIX.cpu-server and
# PREFIX.cpu-client.
cpu_samplers_start() {
	mb_cpu_sample cpu-server "$4" "$2" "$3" "$1.cpu-server"
	mb_cpu_sample cpu-client "$5" "$2" "$3" "$1.cpu-client"
}

# cpu_case OUTDIR SYSTEM(lite|verbs|verbs-event) RATE REP: one measurement;
# appends a row to OUTDIR/cpu.csv.
cpu_case() {
	local out=$1 sys=$2 rate=$3 rep=$4 tag="$2-r$3-$4" rc=0 ops cwait="" swait=""
	# shellcheck disable=SC2034 # read by mb_pair
	local -a MB_BEFORE_CLIENT=(cpu_samplers_start "$out/raw/$tag" "$sdelay" "$swindow" "$MB_SRV" "$MB_CLI")
	if [ "$sys" = lite ]; then
		MB_SERIES="$sys-r$rate" MB_REP=$rep mb_lite_rpc "$out" "$tag" "$common --rate $rate" || rc=1
	else
		# verbs-event: callers and server sleep on completion events, as
		# LITE's (default policy) do once they have spun; busy-polling
		# callers would hold the client's vCPU and cap the paced rate.
		[ "$sys" != verbs-event ] || cwait="--client-wait event" swait="--server-wait event"
		MB_SERIES="$sys-r$rate" MB_REP=$rep mb_verbs "$out" "$tag" \
			"-m rpc -o writeimm --param-name threads $common --rate $rate $cwait" \
			"$swait" || rc=1
	fi
	ae_bg_wait cpu-server || rc=1
	ae_bg_wait cpu-client || rc=1
	[ "$rc" = 0 ] || ae_die "cpu: $tag failed (logs: $out/raw/$tag.*)"
	[ "$AE_DRY_RUN" = 0 ] || return 0
	ops=$(grep -v '^#' "$out/raw/$tag.csv" | awk -F, 'NR == 2 { print $8 }')
	[ -n "$ops" ] || ae_die "cpu: no throughput row in $out/raw/$tag.csv"
	paste -d, <(echo "$sys,$rate,$rep,$ops") "$out/raw/$tag.cpu-server" "$out/raw/$tag.cpu-client" |
		awk -F, -v OFS=, '{
			calls = $4 > 0 ? $4 : 1e-9
			print $1, $2, $3, $4, $5, $6, $8, $9,
				sprintf("%.1f", $5 * 1e6 / (calls * $6)), sprintf("%.1f", $8 * 1e6 / (calls * $9)),
				sprintf("%.3f", $5 / $6), sprintf("%.3f", $8 / $9)
		}' >>"$out/cpu.csv"
	tail -n 1 "$out/cpu.csv" | awk -F, '{ printf "cpu: %-11s offered %4s/s: %7.1f calls/s, server %8.1f us/call (%.2f cores), client %8.1f us/call\n", $1, $2, $4, $9, $11, $10 }'
}

# cpu_summarize OUTDIR: data.csv, the median over repetitions per system and
# offered rate (lo/hi: the repetitions' extremes), by achieved load.
cpu_summarize() {
	local out=$1
	[ "$AE_DRY_RUN" = 1 ] && return 0
	{
	echo "system,offered,reps,calls_per_sec,server_us_per_call,server_lo,server_hi,client_us_per_call,client_lo,client_hi,server_cores,client_cores"
	sort -t, -k1,1 -k2,2n "$out/cpu.csv" | grep -v '^system,' | awk -F, -v OFS=, "$MB_MEDIAN_AWK"'
		# median() sorts: then sv[1], sv[n] are the extremes.
		function flush(   o, s, c, a, b) {
			if (!n) return
			o = median(ops, n); s = median(sv, n); c = median(cl, n); a = median(sc, n); b = median(cc, n)
			print key, n, o, s, sv[1], sv[n], c, cl[1], cl[n], a, b
			n = 0
		}
		$1 "," $2 != key { flush(); key = $1 "," $2 }
		{ n++; ops[n] = $4 + 0; sv[n] = $9 + 0; cl[n] = $10 + 0; sc[n] = $11 + 0; cc[n] = $12 + 0 }
		END { flush() }' | sort -t, -k1,1 -k4,4g
	} >"$out/data.csv"
}

# mb_judged RATE SYSTEM: the target judges LITE's server (default policy:
# it sleeps until a request comes) against the event-driven native one at
# the paced rates; the busy-polling server and the unpaced runs are shown.
mb_judged() { [ "$1" != 0 ] && { [ "$2" = lite ] || [ "$2" = verbs-event ]; }; }

figure_run() {
	local out=$1 dur=8 warm=2 rates="50,100,200,400,0" common rate rep sys reps
	local sdelay swindow order
	local -a run
	# The figure runs in a subshell of its own (fig_run): mb_reps_note
	# and mb_running see this count.
	[ "${QUICK:-0}" = 1 ] || MB_REPS_JUDGED=$((MB_REPS_JUDGED + 2))
	reps=$MB_REPS_JUDGED
	[ "${QUICK:-0}" = 1 ] && dur=5 warm=1 rates="50,200,0"
	[ "${FULL:-0}" = 1 ] && dur=20
	rates=${RATES:-$rates}
	mb_two_nodes cpu
	# The sampled window starts 1.5 s into the client's measured window
	# (connection setup before the warm-up is under 1.5 s) and ends 1.5 s
	# before it would with no setup at all.
	sdelay=$(awk -v w="$warm" 'BEGIN { print w + 1.5 }')
	swindow=$((dur - 3))
	common="-s 64 -t 4 -D $dur -w $warm -r 1"
	mkdir -p "$out/raw"
	echo "system,offered,rep,calls_per_sec,server_busy_s,server_window_s,client_busy_s,client_window_s,server_us_per_call,client_us_per_call,server_cores,client_cores" >"$out/cpu.csv"
	mb_note "$out" "method: interleaved, $reps repetitions x rates $rates, systems shuffled per (repetition, rate) with seed $MB_SEED (order.csv); 4 client threads, one call in flight each"
	mb_reps_note "$out"
	for rep in $(seq "$reps"); do
		for rate in ${rates//,/ }; do
			mapfile -t run < <(mb_running "$rep" "$rate" lite verbs verbs-event)
			[ "${#run[@]}" -gt 0 ] || continue
			order=$(mb_order "$out" "$rep" "$rate" "${run[@]}") || ae_die "cpu: cannot shuffle"
			for sys in $order; do
				mb_timed "$out" "$rep" "$rate" "$sys" cpu_case "$out" "$sys" "$rate" "$rep"
			done
		done
	done
	cpu_summarize "$out"
}
