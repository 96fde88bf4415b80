# shellcheck shell=bash
# Figure ctrl-path: the control path, as KRCore's evaluation measures it:
# the time from a fresh process's start to its first completed remote
# write to each of k peers it has never talked to, step by step, for
# native verbs (verbs_bench -m ctrl: the device list, open the device, PD,
# CQ, MR, then per peer rdma_cm address and route resolution, QP, connect
# with the peer's region in the accept's private data, one RDMA write) and
# LITE (lite_bench -m ctrl: open /dev/lite, a zero-copy buffer, then per
# peer lite_ask for the LMR the peer published, one lite_write). The client is
# the first node; k = 1 .. N-1 peers, the next nodes in inventory order.
# Both systems' QPs run with the inventory's qp_timeout and qp_retry
# (verbs_bench's --qp-timeout/--qp-retry on both sides, lite.ko's
# parameters). Each peer runs both servers for the whole figure
# (registered memory ready, like a service that is up): verbs_bench -m
# ctrl and lite_bench -m ctrl, stopped by pid at the end. For each k and
# repetition the two systems run back to back in a shuffled order
# (order.csv, seeded: SEED=N), each a fresh process, after one untimed run of each.
# Knobs: QUICK=1 (2 repetitions), FULL=1 (10); default 5. PEERS="1 2"
# overrides the peer counts.

CTRL_SYSTEMS=(verbs lite)

# ctrl_server_cmd HOST verbs|lite: the server's command line on HOST;
# verbs' QPs take HOST's QP timeout and retry count (mb_qp_args), as
# lite.ko's do.
ctrl_server_cmd() {
	local bin=verbs_bench args
	args="-m ctrl $(mb_qp_args "$1") -p $MB_PORT"
	[ "$2" = lite ] && bin=lite_bench args="-m ctrl"
	echo "$(mb_bin "$1" "$bin") $args"
}

# ctrl_servers_start OUTDIR: both servers on every peer (jobs
# ctrl-SYSTEM-HOST), until ready.
ctrl_servers_start() {
	local out=$1 h sys
	for h in "${INV_NODES[@]:1}"; do
		for sys in "${CTRL_SYSTEMS[@]}"; do
			ae_bg_start "ctrl-$sys-$h" "$h" 3600 "$out/raw/server-$sys-$h.log" "$(ctrl_server_cmd "$h" "$sys")"
		done
	done
	for h in "${INV_NODES[@]:1}"; do
		for sys in "${CTRL_SYSTEMS[@]}"; do
			ae_bg_ready "ctrl-$sys-$h" "$MB_LISTENING|$MB_LITE_READY" 30 ||
				ae_die "ctrl-path: $sys server on $h did not start: $(ae_tail "$out/raw/server-$sys-$h.log")"
		done
	done
}

# ctrl_servers_stop: stop every server (ae_bg_stop: by its PID).
ctrl_servers_stop() {
	local h sys rc=0
	for h in "${INV_NODES[@]:1}"; do
		for sys in "${CTRL_SYSTEMS[@]}"; do
			ae_bg_stop "ctrl-$sys-$h" || rc=1
		done
	done
	return "$rc"
}

# ctrl_peers SYSTEM K: the client's list of the first K peers.
ctrl_peers() {
	local peers="" h i
	for i in $(seq "$2"); do
		h=${INV_NODES[$i]}
		if [ "$1" = verbs ]; then
			peers+="${peers:+,}$(inv_var "$h" fabric_ip)"
		else
			peers+="${peers:+,}$(mb_node_id "$h")"
		fi
	done
	echo "$peers"
}

# ctrl_cmd SYSTEM K REP: the client's command line.
ctrl_cmd() {
	if [ "$1" = verbs ]; then
		echo "$(mb_bin "$MB_CLI" verbs_bench) -m ctrl --rep $3 $(mb_qp_args "$MB_CLI") -p $MB_PORT $(ctrl_peers "$1" "$2")"
	else
		echo "$(mb_bin "$MB_CLI" lite_bench) -m ctrl --rep $3 $(ctrl_peers "$1" "$2")"
	fi
}

# ctrl_warmup OUTDIR: one untimed run of each system to every peer, so
# that no measured run is the first to load the programs and libraries
# from disk (raw/warmup-*, not in raw.csv).
ctrl_warmup() {
	local out=$1 sys k=$((${#INV_NODES[@]} - 1))
	for sys in "${CTRL_SYSTEMS[@]}"; do
		if [ "$AE_DRY_RUN" = 1 ]; then
			printf '[dry-run] %s: %s\n' "$MB_CLI" "$(ctrl_cmd "$sys" "$k" 0)"
			continue
		fi
		ae_ssh "$MB_CLI" "timeout $AE_TIMEOUT $(ctrl_cmd "$sys" "$k" 0)" \
			>"$out/raw/warmup-$sys.csv" 2>"$out/raw/warmup-$sys.client.log" ||
			ae_die "ctrl-path: the warm-up run of $sys failed: $(tail -n 2 "$out/raw/warmup-$sys.client.log" | tr '\n' ' ')"
	done
}

# ctrl_case OUTDIR SYSTEM K REP: one fresh client process; rows to raw.csv.
ctrl_case() {
	local out=$1 sys=$2 k=$3 rep=$4
	mb_pair "$out" "$sys-k$k-r$rep" "" "" "$MB_CLI" "$(ctrl_cmd "$sys" "$k" "$rep")" - ||
		ae_die "ctrl-path: $sys, $k peers, rep $rep failed"
	[ "$AE_DRY_RUN" = 1 ] && return 0
	awk -F, -v s="$sys" -v k="$k" -v r="$rep" '
		!/^#/ && $2 == "total" { t = $7 } !/^#/ && $2 == "exec" { e = $7 }
		END { printf "ctrl-path: %-5s %d peer(s) rep %d: %9.1f us from main, %7.1f us exec to main\n", s, k, r, t, e }' \
		"$out/raw/$sys-k$k-r$rep.csv"
}

# ctrl_summarize OUTDIR: data.csv, per system, peer count and step, the
# median over repetitions (lo/hi: their extremes) of the step's time in
# the process, summed over peers for per-peer steps; step "total" runs
# from main() to the last first write, "start" from the process's
# creation (exec + total). ratios.csv: verbs / LITE per peer count and
# repetition, of "start" (the runs of one repetition ran back to back).
ctrl_summarize() {
	local out=$1
	[ "$AE_DRY_RUN" = 1 ] && return 0
	[ -s "$out/raw.csv" ] || ae_die "ctrl-path: no measurements in $out/raw.csv"
	awk -F, -v OFS=, -v OFMT=%.3f '
		NR == 1 { next }
		{ sys = $1 == "verbs_ctrl" ? "verbs" : $1 == "lite_ctrl" ? "lite" : ""
		  if (sys == "") { print "ctrl-path: unknown bench " $1 > "/dev/stderr"; exit 1 }
		  key = sys OFS $4 OFS $5; t[key, $2] += $7; runs[key] = 1; steps[sys OFS $2] = 1
		  if ($2 == "exec" || $2 == "total") t[key, "start"] += $7 }
		END {
			for (k in runs) {
				split(k, a, OFS)
				for (s in steps) {
					split(s, b, OFS)
					if (b[1] == a[1]) print a[1], a[2], b[2], a[3], t[k, b[2]] + 0
				}
				print a[1], a[2], "start", a[3], t[k, "start"] + 0
			}
		}' "$out/raw.csv" | sort -t, -k1,1 -k2,2n -k3,3 -k5,5g >"$out/per-run.csv" ||
		ae_die "ctrl-path: cannot summarise $out/raw.csv"
	{
	echo "system,peers,step,reps,median_us,lo_us,hi_us"
	awk -F, -v OFS=, -v OFMT=%.3f "$MB_MEDIAN_AWK"'
		function flush(   m) {
			if (!n) return
			m = median(v, n)
			print key, n, m, v[1], v[n]
			n = 0
		}
		$1 "," $2 "," $3 != key { flush(); key = $1 "," $2 "," $3 }
		{ v[++n] = $5 }
		END { flush() }' "$out/per-run.csv"
	} >"$out/data.csv"
	{
	echo "peers,rep,verbs_us,lite_us,verbs_over_lite"
	awk -F, -v OFS=, '$3 == "start" { v[$1, $2, $4] = $5; keys[$2 OFS $4] = 1 }
		END { for (k in keys) { split(k, a, OFS)
			if (v["lite", a[1], a[2]] > 0 && v["verbs", a[1], a[2]] != "")
				print a[1], a[2], v["verbs", a[1], a[2]], v["lite", a[1], a[2]],
					sprintf("%.2f", v["verbs", a[1], a[2]] / v["lite", a[1], a[2]]) } }' \
		"$out/per-run.csv" | sort -t, -k1,1n -k2,2n
	} >"$out/ratios.csv"
}

figure_run() {
	local out=$1 reps=5 ks k rep sys order n=${#INV_NODES[@]}
	[ "${QUICK:-0}" = 1 ] && reps=2
	[ "${FULL:-0}" = 1 ] && reps=10
	# LITE after PEERS is checked: a typo should not wait for an install.
	mb_two_nodes ctrl-path --no-lite
	ks=${PEERS:-$(seq -s ' ' 1 $((n - 1)))}
	for k in $ks; do
		if ! ae_is_uint "$k" || [ "$k" -lt 1 ] || [ "$k" -ge "$n" ]; then
			ae_die "ctrl-path: PEERS: $k is not in 1..$((n - 1))"
		fi
	done
	mkdir -p "$out/raw"
	mb_ensure_lite
	trap 'ctrl_servers_stop || true' EXIT
	ctrl_servers_start "$out"
	ctrl_warmup "$out"
	for k in $ks; do
		for rep in $(seq "$reps"); do
			order=$(mb_order "$out" "$rep" "$k" "${CTRL_SYSTEMS[@]}") ||
				ae_die "ctrl-path: cannot shuffle ${CTRL_SYSTEMS[*]}"
			for sys in $order; do
				ctrl_case "$out" "$sys" "$k" "$rep"
			done
		done
	done
	trap - EXIT
	ctrl_servers_stop || ae_warn "ctrl-path: a server did not stop cleanly (logs: $out/raw/server-*)"
	ctrl_summarize "$out"
}
