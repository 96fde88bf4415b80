# shellcheck shell=bash
# Running the microbench programs (microbench/) for the LITE-vs-verbs
# figures: a server in the background on one host, a client on another,
# each bounded by AE_TIMEOUT; the client's CSV rows are collected into the
# figure's raw.csv, and summarised per point into data.csv (median of the
# repetitions' medians, with their spread) for the plots.
#
# The method (exp.md, "Statistics"): a figure interleaves the systems it
# compares. For each repetition and point (size, count, threads...) it runs
# every system's client for that one point (-r 1) back to back, in an order
# shuffled by mb_order (seeded: SEED=N, default 1) and recorded in
# order.csv; raw.csv's rep column is the figure's repetition (MB_REP). The
# latency programs' every sample goes to samples.csv.gz
# (bench,op,size,param,rep,ns; 'summarize-bench --samples' recomputes
# data.csv from it).

MB_PORT=${MB_PORT:-18515}
# What the servers print once they accept clients (used by figures/*.sh).
# shellcheck disable=SC2034
MB_LISTENING='listening on port'
# shellcheck disable=SC2034
MB_LITE_READY='^# ready'

MB_SEED=${SEED:-1}
# Repetitions (exp.md, "Decision rule"): every point a target judges runs
# MB_REPS_JUDGED interleaved repetition pairs (7: the exact 95% interval of
# a median needs 6, and 7 give the pairs' range at 98.4%); what no target
# judges (other series, sizes, rates; points the host runs
# oversubscribed) only the first MB_REPS_SHOWN (1: a measurement, not a
# verdict), to keep 'make reference' under 75 minutes here: at 2 it took
# 78 (4f82c01). QUICK=1: one of each (nothing is decided).
MB_REPS_JUDGED=7 MB_REPS_SHOWN=1
[ "${QUICK:-0}" != 1 ] || MB_REPS_JUDGED=1

# mb_running REP POINT SYSTEM...: the SYSTEMs that run at repetition REP
# and POINT, one per line: all of them up to MB_REPS_SHOWN, after it only
# those the figure's mb_judged POINT SYSTEM accepts (a figure without
# mb_judged judges everything it runs).
mb_running() {
	local rep=$1 point=$2 sys
	shift 2
	for sys in "$@"; do
		if [ "$rep" -le "$MB_REPS_SHOWN" ] || ! declare -F mb_judged >/dev/null || mb_judged "$point" "$sys"; then
			echo "$sys"
		fi
	done
}

# mb_reps_note OUTDIR: provenance's line on the repetitions (mb_running).
mb_reps_note() {
	mb_note "$1" "repetitions: $MB_REPS_JUDGED of every judged point (mb_judged), $MB_REPS_SHOWN of everything else, interleaved alike"
}

# mb_oversubscribed NODES: the first NODES guests of the local cluster
# have more vCPUs than this host has cores (their points are shown, not
# judged: ae-scripts/targets). Never on real hosts (one node each).
mb_oversubscribed() {
	[ "$INV_VCLUSTER" = 1 ] && [ $(($1 * $(inv_vc cpus))) -gt "$(nproc)" ]
}

# mb_softroce: the first node's RDMA device is Soft-RoCE (rxe), where the
# targets only hardware decides are not judged.
mb_softroce() { [[ "$(inv_var "${INV_NODES[0]}" rdma_dev)" == rxe* ]]; }
# The suite's one median (lib/median.awk), put before an awk program's text.
# shellcheck disable=SC2034 # used by figures/*.sh
MB_MEDIAN_AWK=$(cat "$AE_ROOT/ae-scripts/lib/median.awk")

mb_bin() { echo "$(lite_rdir "$1")/microbench/$2"; }

# mb_order OUTDIR REP POINT SYSTEM...: the SYSTEMs in a shuffled order, one
# per line; the order also goes to OUTDIR/order.csv
# (seed,rep,point,position,system). The shuffle is seeded by MB_SEED, REP
# and POINT, so a seed gives the same orders again (with the same awk).
mb_order() {
	local out=$1 rep=$2 point=$3 key
	shift 3
	key=$(printf '%s:%s:%s' "$MB_SEED" "$rep" "$point" | cksum)
	key=${key%% *}
	mkdir -p "$out"
	[ -s "$out/order.csv" ] || echo "seed,rep,point,position,system" >"$out/order.csv"
	printf '%s\n' "$@" | awk -v k="$key" -v seed="$MB_SEED" -v rep="$rep" -v point="$point" -v f="$out/order.csv" '
		{ a[NR] = $0 }
		END {
			srand(k % 2147483647)
			for (i = NR; i > 1; i--) { j = int(rand() * i) + 1; t = a[i]; a[i] = a[j]; a[j] = t }
			for (i = 1; i <= NR; i++) { print a[i]; print seed "," rep "," point "," i "," a[i] >>f }
		}'
}

# mb_note OUTDIR TEXT: a line of the figure's provenance.txt (how it ran).
# mb_on_log HOST LOG CMD: CMD on HOST, its output in LOG (under --dry-run,
# only printed).
mb_on_log() {
	if [ "$AE_DRY_RUN" = 1 ]; then
		ae_ssh "$1" "$3"
	else
		ae_ssh "$1" "$3" >"$2" 2>&1
	fi
}

mb_note() {
	[ "$AE_DRY_RUN" = 1 ] && return 0
	echo "$2" >>"$1/provenance.txt"
}

# mb_samples_path TAG: where a client on a host writes its samples
# (--samples), fetched by mb_pair when MB_SAMPLES names it.
mb_samples_path() { echo "/tmp/lite-ae-samples-$$-$1.csv"; }

# mb_ensure_lite: install LITE unless every node already sees all others.
mb_ensure_lite() {
	local h out n=${#INV_NODES[@]}
	[ "$AE_DRY_RUN" = 1 ] && return 0
	for h in "${INV_NODES[@]}"; do
		out=$(ae_ssh "$h" "$(lite_status_cmd "$h")" 2>/dev/null) || out=""
		if ! grep -q "nodes=$n " <<<"$out" || grep -q '^manager=lost' <<<"$out"; then
			ae_log "LITE is not installed on every node: installing"
			lite_install
			return
		fi
	done
	# The benchmarks may be newer than the installed module's build:
	# rebuilt where each host's build is (lib/lite.sh), make keeps what
	# is current.
	lite_build_for bench >/dev/null
}

# mb_ensure_dsm OUTDIR FIGURE: lite_dsm.ko (LITE-Kernel-DSM, docs/dsm.md)
# loaded on every node, for the figures that measure it; call it after
# mb_ensure_lite (an install it does loads lite_dsm itself, unless the
# inventory says dsm = no). Where it is not loaded (dsm = no, or LITE_DSM=no
# at install) it is loaded here for this figure, as 'lite-ae install' loads
# it (insmod, /dev/lite_dsm for the group; liblite-dsm is not installed:
# the figures' programs link the tree's), and unloaded again at the end by
# mb_dsm_restore, which the figure calls from an EXIT trap: the nodes are
# left as the figure found them (dsm = no means 'rmmod lite' must work by
# itself afterwards). The provenance says which nodes had it loaded for
# the figure, and lite_dsm's parameters.
MB_DSM_LOADED=()
mb_ensure_dsm() {
	local out=$1 fig=$2 h params
	MB_DSM_LOADED=()
	[ "$AE_DRY_RUN" = 1 ] && return 0
	for h in "${INV_NODES[@]}"; do
		ae_ssh "$h" '[ -e /sys/module/lite_dsm ]' || MB_DSM_LOADED+=("$h")
	done
	if [ "${#MB_DSM_LOADED[@]}" -gt 0 ]; then
		ae_log "$fig: lite_dsm.ko is not loaded on ${MB_DSM_LOADED[*]} (inventory dsm = no?): loading it there for this figure, unloading it after"
		ae_in_parallel mb_dsm_load_node -- "${MB_DSM_LOADED[@]}" || {
			mb_dsm_restore
			ae_die "$fig: cannot load lite_dsm.ko (above)"
		}
		mb_note "$out" "lite_dsm: loaded by the figure on ${MB_DSM_LOADED[*]} (not loaded there before it; unloaded at its end); already loaded on the other nodes"
	else
		mb_note "$out" "lite_dsm: loaded on every node before the figure (lite-ae install)"
	fi
	params=$(ae_ssh "${INV_NODES[0]}" 'cd /sys/module/lite_dsm/parameters 2>/dev/null && for p in *; do printf "%s=%s " "$p" "$(cat "$p")"; done') || params=""
	mb_note "$out" "lite_dsm_params: ${params:-unknown} (${INV_NODES[0]})"
}

# mb_dsm_load_node HOST: lite_dsm.ko on HOST (lib/lite.sh's
# lite_dsm_install_node without liblite-dsm).
mb_dsm_load_node() {
	ae_ssh "$1" "insmod $(lite_rdir "$1")/lite/dsm/lite_dsm.ko || { echo 'loading lite_dsm.ko failed (see dmesg; built? make -C lite dsm)' >&2; exit 1; }
{
$(lite_dev_perm_cmd "$1" lite_dsm)
} || { echo 'cannot give /dev/lite_dsm group $(inv_var "$1" lite_group) and mode 0660' >&2; exit 1; }" ||
		{ ae_warn "$1: lite_dsm.ko not loaded"; return 1; }
}

# mb_dsm_restore: unload lite_dsm where mb_ensure_dsm loaded it. A
# program that just ended may still be detaching from its region (a
# write-back, a DETACH to a meta node that left: rpc_timeout_ms), so
# rmmod is tried MB_DSM_RMMOD_TRIES times, 3 s apart (default 10: past
# the 30 s a flush waits for its writes); a node where it still fails is
# named with rmmod's error, lite_dsm's refcnt and the processes that hold
# /dev/lite_dsm open or mapped.
MB_DSM_RMMOD_TRIES=${MB_DSM_RMMOD_TRIES:-10}
mb_dsm_restore() {
	local h rc=0 why
	for h in "${MB_DSM_LOADED[@]}"; do
		why=$(ae_ssh "$h" "$(mb_dsm_rmmod_cmd "$MB_DSM_RMMOD_TRIES" 3)" 2>&1) || {
			ae_warn "$h: lite_dsm.ko stays loaded: ${why:-ssh failed}"
			rc=1
		}
	done
	MB_DSM_LOADED=()
	return "$rc"
}

# mb_dsm_rmmod_cmd TRIES SECS: the host's side of mb_dsm_restore (POSIX
# sh): rmmod lite_dsm until it is gone, at most TRIES times SECS apart;
# else one line saying why, and status 1.
mb_dsm_rmmod_cmd() {
	cat <<EOF
i=0 err=""
while [ -e /sys/module/lite_dsm ]; do
	err=\$(rmmod lite_dsm 2>&1) && exit 0
	i=\$((i + 1))
	[ "\$i" -lt $1 ] || break
	sleep $2
done
[ -e /sys/module/lite_dsm ] || exit 0
users=\$(for p in /proc/[0-9]*; do
	if ls -l "\$p/fd" 2>/dev/null | grep -q ' /dev/lite_dsm\$' || grep -q /dev/lite_dsm "\$p/maps" 2>/dev/null; then
		printf '%s(%s) ' "\${p#/proc/}" "\$(cat "\$p/comm" 2>/dev/null)"
	fi
done)
echo "rmmod failed \$i times, $2 s apart (\${err:-no error}); lite_dsm's refcnt \$(cat /sys/module/lite_dsm/refcnt 2>/dev/null), held by: \${users:-no process (a region still detaching?)}"
exit 1
EOF
}

# mb_bg_stop NAME: ae_bg_stop; NAME goes to MB_STOPPED if the job was still
# running (not one that ended by itself and was not yet awaited).
MB_STOPPED=()
mb_bg_stop() {
	[ "$AE_DRY_RUN" = 0 ] && [ -n "${AE_BG_PID[$1]:-}" ] || return 0
	! kill -0 "${AE_BG_PID[$1]}" 2>/dev/null || MB_STOPPED+=("$1")
	ae_bg_stop "$1"
}

# mb_bg_stop_all: stop every job of this figure's shell still recorded
# (ae_bg_start), whichever node it runs on: a figure that dies between
# ae_bg_start and ae_bg_wait would leave them running until AE_TIMEOUT.
mb_bg_stop_all() {
	local name
	for name in "${!AE_BG_PID[@]}"; do
		mb_bg_stop "$name" || true
	done
}

# mb_dsm_cleanup FIGURE: a DSM figure's EXIT trap (and its normal end), in
# this order: every job it started that still runs on any node is stopped
# (until its program has exited and detached, lite_dsm cannot go); then
# lite_dsm is unloaded where mb_ensure_dsm loaded it (mb_dsm_restore).
# A program stopped inside a LITE barrier (lite_dsm_barrier, lite_barrier)
# leaves its arrival counted at the barrier's coordinator, the
# lowest-numbered node (docs/dsm.md, Limits: "an interrupted barrier is
# spent"): said so, since the next barrier of as many callers may then pass
# early, until lite.ko is reloaded there ('lite-ae install').
mb_dsm_cleanup() {
	mb_bg_stop_all
	if [ "${#MB_STOPPED[@]}" -gt 0 ]; then
		ae_warn "$1: stopped ${MB_STOPPED[*]} while running; one stopped inside a barrier leaves its arrival counted at LITE's barrier coordinator (the lowest-numbered node), so the next barrier of as many callers (a DSM figure's, LITE-Graph's) may pass early: 'lite-ae install' (reloads lite.ko) clears it"
		MB_STOPPED=()
	fi
	mb_dsm_restore ||
		ae_warn "$1: lite_dsm.ko stayed loaded where the figure loaded it (the node and why above): rmmod lite_dsm there once nothing holds it, or 'lite-ae install'"
}

# mb_two_nodes FIGURE [--no-lite]: how a figure between the first two
# nodes starts: it fails unless the inventory has two; sets MB_SRV, the
# second node (server, LMR owner), MB_CLI, the first (client), MB_NODE,
# MB_SRV's LITE node id, and MB_IP, its fabric address (globals of the
# figure's run, which has a shell of its own); and, unless --no-lite, makes
# sure LITE runs on every node (mb_ensure_lite).
mb_two_nodes() {
	[ "${#INV_NODES[@]}" -ge 2 ] || ae_die "$1 needs two nodes; $INV_FILE has ${#INV_NODES[@]}"
	MB_SRV=${INV_NODES[1]} MB_CLI=${INV_NODES[0]}
	MB_NODE=$(mb_node_id "$MB_SRV") MB_IP=$(inv_var "$MB_SRV" fabric_ip)
	[ "${2:-}" = --no-lite ] || mb_ensure_lite
}

# The microbench pairs between MB_CLI and MB_SRV, each "OUTDIR TAG
# CLIENT_ARGS" (mb_pair; MB_SAMPLES and the rest as there): the client's
# arguments, to which these add the server's address (node id for LITE).
# mb_qp_args HOST: the verbs programs' transport settings on HOST (LITE's).
mb_qp_args() {
	echo "--qp-timeout $(inv_var "$1" qp_timeout) --qp-retry $(inv_var "$1" qp_retry)"
}

# mb_verbs OUTDIR TAG "CLIENT ARGS" ["SERVER ARGS"]: verbs_bench's server,
# then its client.
mb_verbs() {
	mb_pair "$1" "$2" "$MB_SRV" "$(mb_bin "$MB_SRV" verbs_bench) $(mb_qp_args "$MB_SRV") ${4:+$4 }-p $MB_PORT" \
		"$MB_CLI" "$(mb_bin "$MB_CLI" verbs_bench) $3 $(mb_qp_args "$MB_CLI") -p $MB_PORT $MB_IP" "$MB_LISTENING"
}

# mb_tcp: tcp_bench's server, then its client.
mb_tcp() {
	mb_pair "$1" "$2" "$MB_SRV" "$(mb_bin "$MB_SRV" tcp_bench) -p $MB_PORT" \
		"$MB_CLI" "$(mb_bin "$MB_CLI" tcp_bench) $3 -p $MB_PORT $MB_IP" "$MB_LISTENING"
}

# mb_lite_rpc OUTDIR TAG CLIENT_ARGS [SERVER_ARGS]: lite_bench's RPC echo
# server (-m rpc SERVER_ARGS), then its client (-m rpc CLIENT_ARGS).
mb_lite_rpc() {
	mb_pair "$1" "$2" "$MB_SRV" "$(mb_bin "$MB_SRV" lite_bench) -m rpc${4:+ $4}" \
		"$MB_CLI" "$(mb_bin "$MB_CLI" lite_bench) -m rpc $3 $MB_NODE" "$MB_LITE_READY"
}

# mb_lite: lite_bench's client alone (LITE needs no server program).
mb_lite() {
	mb_pair "$1" "$2" "" "" "$MB_CLI" "$(mb_bin "$MB_CLI" lite_bench) $3 $MB_NODE" -
}

# mb_write_tput OUTDIR TAG verbs|lite "ARGS": the client of mr-size and
# mr-count, random 64 B-aligned writes from MB_CLI to memory on MB_SRV as
# fast as they complete, the memory, sizes and window as ARGS say:
# verbs_bench with 16 writes in flight on one QP, or lite_bench with
# THREADS (1) threads of DEPTH (16) posted writes each (lite_post_write).
# The first call puts that into the provenance (in_flight).
mb_write_tput() {
	[ "$AE_DRY_RUN" = 1 ] || grep -q '^in_flight:' "$1/provenance.txt" 2>/dev/null ||
		mb_note "$1" "in_flight: verbs 16 writes on 1 QP (--depth 16); LITE ${THREADS:-1} thread(s) x ${DEPTH:-16} posted writes (--depth ${DEPTH:-16})"
	case $3 in
	verbs) mb_verbs "$1" "$2" "-m tput -o write --depth 16 $4" ;;
	lite) mb_lite "$1" "$2" "-m tput -o write -t ${THREADS:-1} --depth ${DEPTH:-16} $4" ;;
	*) ae_die "mb_write_tput: no system '$3'" ;;
	esac
}


# mb_write_tput_case OUTDIR REP POINT SYSTEM: mr-size's and mr-count's
# CASE for mb_sweep: mb_write_tput for SYSTEM at POINT in repetition REP,
# with the arguments "MB_WRITE_ARGS POINT" prints (a function of the
# figure's).
mb_write_tput_case() {
	local args
	args=$("$MB_WRITE_ARGS" "$3")
	MB_REP=$2 mb_write_tput "$1" "$4-$3-$2" "$4" "$args" ||
		ae_die "$MB_FIGURE: $4 at $3, repetition $2 failed"
}

# mb_on_nodes JOB LOGBASE WHAT "PROGRAM ARGS" HOST...: PROGRAM (a path in
# the tree, run from each host's copy: lite_rdir) with ARGS on every HOST
# at once, each a background job JOB-HOST (ae_bg_start, bounded by
# AE_TIMEOUT) with its output in LOGBASE.HOST.log, then waits for them all.
# @NODE@ in ARGS becomes each HOST's LITE node id (mb_node_id), for
# programs told which node they are. One that fails stops the figure:
# "WHAT on HOST (N nodes) failed: " and the tail of its log. The jobs are
# awaited as they end, not in host order: the first that fails is the one
# named, and the others are stopped at once (they would wait for it in
# their barrier until AE_TIMEOUT; mb_bg_stop: MB_STOPPED names them).
mb_on_nodes() {
	local job=$1 log=$2 what=$3 cmd=$4 h o
	local -a left rest
	shift 4
	for h in "$@"; do
		ae_bg_start "$job-$h" "$h" "$AE_TIMEOUT" "$log.$h.log" "$(lite_rdir "$h")/${cmd//@NODE@/$(mb_node_id "$h")}"
	done
	left=("$@")
	while [ "${#left[@]}" -gt 0 ]; do
		rest=()
		for h in "${left[@]}"; do
			if kill -0 "${AE_BG_PID[$job-$h]:-}" 2>/dev/null; then
				rest+=("$h")
			elif ! ae_bg_wait "$job-$h"; then
				for o in "$@"; do mb_bg_stop "$job-$o" || true; done
				ae_die "$what on $h ($# nodes) failed: $(ae_tail "$log.$h.log")"
			fi
		done
		left=("${rest[@]}")
		[ "${#left[@]}" = 0 ] || sleep 0.2
	done
}

# mb_on_node LOGBASE WHAT HOST CMD: CMD on HOST in the foreground
# (mb_on_log), its output in LOGBASE.HOST.log. If it fails, the figure
# stops: "WHAT failed: " and the tail of the log.
mb_on_node() {
	mb_on_log "$3" "$1.$3.log" "$4" || ae_die "$2 failed: $(ae_tail "$1.$3.log")"
}

# mb_cpu_sample NAME HOST DELAY WINDOW LOG: ae-scripts/cpu-sample on HOST
# in the background (job NAME: ae_bg_wait NAME), DELAY seconds from now,
# over WINDOW seconds; its row (busy_seconds,window_seconds,cpus) in LOG.
mb_cpu_sample() {
	ae_bg_start "$1" "$2" "$AE_TIMEOUT" "$5" "$(lite_rdir "$2")/ae-scripts/cpu-sample $3 $4"
}

# mb_lite_policy POLICY SPIN_US: LITE's wait policy (lite/module/wait.c) on both
# nodes of the pair; lite.ko's default is "adaptive 1000".
mb_lite_policy() {
	local h
	for h in "$MB_SRV" "$MB_CLI"; do
		ae_ssh "$h" "echo $1 >/sys/module/lite/parameters/wait_policy && echo $2 >/sys/module/lite/parameters/spin_max_us" ||
			ae_die "cannot set LITE's wait policy on $h (a lite.ko without wait_policy?)"
	done
}

# mb_node_id HOST: the LITE node id of HOST (its place in the inventory).
mb_node_id() {
	local i
	for i in "${!INV_NODES[@]}"; do
		[ "${INV_NODES[$i]}" = "$1" ] && echo $((i + 1)) && return 0
	done
	return 1
}

# mb_pair OUTDIR TAG SERVER "SERVER ARGS" CLIENT "CLIENT ARGS" READY
# Runs a server program line on SERVER until it is ready (READY: a regex
# its output matches), then the client line on CLIENT (ae_pair); rows land
# in OUTDIR/raw/TAG.csv, logs beside. An empty SERVER runs the client
# alone. With the array MB_BEFORE_CLIENT set (a command and its
# arguments), that command runs just before the client. With MB_SAMPLES
# set (a path on CLIENT the client writes its --samples to), the client's
# samples are fetched too and appended to OUTDIR/samples.csv.gz
# (mb_collect).
mb_pair() {
	local out=$1 tag=$2 srv=$3 srv_cmd=$4 cli=$5 cli_cmd=$6 ready=$7 rc=0
	local -a opts=()
	[ -z "${MB_SAMPLES:-}" ] || opts=(--fetch "$MB_SAMPLES")
	mkdir -p "$out/raw"
	ae_pair "${opts[@]}" "$tag" "$srv" "$srv_cmd" "$ready" "$cli" "$cli_cmd" "$out/raw/$tag" \
		"${MB_BEFORE_CLIENT[@]}" || rc=$?
	[ "$AE_DRY_RUN" = 0 ] || return 0
	if [ -f "$out/raw/$tag.out" ]; then
		awk -v s="$out/raw/$tag.samples" '$0 == "# fetched" { f = 1; next } f { print >s; next } { print }' \
			"$out/raw/$tag.out" >"$out/raw/$tag.csv"
		rm -f "$out/raw/$tag.out"
	fi
	if [ "$rc" != 0 ]; then
		ae_warn "$tag: $AE_PAIR_ERR"
		return 1
	fi
	mb_collect "$out" "$tag"
}

# mb_collect OUTDIR TAG: append TAG's rows to OUTDIR/raw.csv (one header),
# and its samples (OUTDIR/raw/TAG.samples) to OUTDIR/samples.csv.gz; with
# MB_SERIES set, its value replaces the bench column (to tell apart runs of
# one program under different conditions), with MB_REP the rep column.
mb_collect() {
	local out=$1 f=$1/raw/$2.csv s=$1/raw/$2.samples header
	header=$(awk '!/^#/ { print; exit }' "$f")
	[ -n "$header" ] || ae_die "$2: no CSV output in $f"
	if [ ! -s "$out/raw.csv" ]; then
		echo "$header" >"$out/raw.csv"
	elif [ "$(head -n 1 "$out/raw.csv")" != "$header" ]; then
		ae_die "$2: its CSV header differs from the others in $out/raw.csv"
	fi
	grep -v '^#' "$f" | tail -n +2 | mb_relabel >>"$out/raw.csv"
	if [ -s "$s" ]; then
		[ "$(head -n 1 "$s")" = "bench,op,size,param,rep,ns" ] ||
			ae_die "$2: $s is not a samples file"
		{
			[ -s "$out/samples.csv.gz" ] || head -n 1 "$s"
			tail -n +2 "$s" | mb_relabel
		} | gzip -c >>"$out/samples.csv.gz"
		rm -f "$s"
	fi
}

# mb_relabel: CSV rows on stdin with MB_SERIES and MB_REP applied.
mb_relabel() {
	awk -F, -v OFS=, -v series="${MB_SERIES:-}" -v rep="${MB_REP:-}" '
		series != "" { $1 = series }
		rep != "" { $5 = rep }
		{ print }'
}

# mb_summarize OUTDIR: data.csv from raw.csv, one row per
# (bench, op, size, param): latency rows give
#   bench,op,size,param,reps,median_us,lo_us,hi_us,min_us,p99_us
# (median, lowest and highest of the repetitions' medians; the smallest
# minimum; the median of the p99s); throughput rows give
#   bench,op,size,param,reps,ops_per_sec,lo,hi,bytes_per_sec
mb_summarize() {
	local out=$1
	[ "$AE_DRY_RUN" = 1 ] && return 0
	[ -s "$out/raw.csv" ] || ae_die "no measurements in $out/raw.csv"
	"$AE_ROOT/ae-scripts/summarize-bench" "$out/raw.csv" >"$out/data.csv" ||
		ae_die "cannot summarise $out/raw.csv"
}

# mb_sweep OUTDIR FIGURE KNOB POINT "POINTS" "QUICK_POINTS" CASE SYSTEM...:
# a throughput figure between the first two nodes (mb_two_nodes FIGURE):
# MB_SWEEP_REPS (default MB_REPS_SHOWN; QUICK=1: 1) repetitions of POINTS
# (QUICK=1: QUICK_POINTS; the
# variable KNOB, when set, replaces them), the SYSTEMs interleaved per
# (repetition, point) (mb_interleave with CASE), then data.csv. CASE finds
# the figure's name in MB_FIGURE and the window to give its client in
# MB_WINDOW: 2 s (QUICK=1: 1 s, FULL=1: 10 s) after 0.5 s of warm-up, one
# repetition. The provenance's method line names the points by KNOB in
# lower case and one of them POINT; MB_METHOD_MORE, if set, ends it.
mb_sweep() {
	local out=$1 fig=$2 knob=$3 point=$4 points=$5 dur=2 reps=${MB_SWEEP_REPS:-$MB_REPS_SHOWN}
	[ "${QUICK:-0}" = 1 ] && dur=1 reps=1 points=$6
	[ "${FULL:-0}" = 1 ] && dur=10
	points=${!knob:-$points}
	shift 6
	mb_two_nodes "$fig"
	# shellcheck disable=SC2034 # read by the figures' CASE
	MB_FIGURE=$fig MB_WINDOW="-D $dur -w 0.5 -r 1"
	mb_note "$out" "method: interleaved, $reps repetitions x ${knob,,} $points, systems shuffled per (repetition, $point) with seed $MB_SEED (order.csv)${MB_METHOD_MORE:-}"
	mb_interleave "$out" "$reps" "$points" "$@"
	mb_summarize "$out"
}

# mb_interleave OUTDIR REPS "POINTS" CASE SYSTEM...: for each repetition
# 1..REPS and each of POINTS, run "CASE OUTDIR REP POINT SYSTEM" for every
# SYSTEM that runs then (mb_running), in mb_order's shuffled order
# (recorded in OUTDIR/order.csv).
mb_interleave() {
	local out=$1 reps=$2 points=$3 fn=$4 rep point sys order
	local -a run
	shift 4
	for rep in $(seq "$reps"); do
		for point in $points; do
			mapfile -t run < <(mb_running "$rep" "$point" "$@")
			[ "${#run[@]}" -gt 0 ] || continue
			order=$(mb_order "$out" "$rep" "$point" "${run[@]}") || ae_die "cannot shuffle ${run[*]}"
			for sys in $order; do
				mb_timed "$out" "$rep" "$point" "$sys" "$fn" "$out" "$rep" "$point" "$sys"
			done
		done
	done
}

# mb_interleave_runs OUTDIR REPS "POINTS" CASE SYSTEM...: as mb_interleave,
# but each system measures all its points of a repetition in one run of
# its program (the latency programs take a list of sizes and warm up
# before each), which pays the program's start and connection once
# instead of once per point; under TCG that start costs more than a
# point's measurement. For each repetition the SYSTEMs that run at any of
# POINTS (mb_running) go back to back in mb_order's shuffled order (point
# "all" in order.csv), and CASE gets "CASE OUTDIR REP 'POINT...' SYSTEM"
# with the points mb_running keeps for that system, in POINTS' order.
mb_interleave_runs() {
	local out=$1 reps=$2 points=$3 fn=$4 rep point sys order
	local -a run
	local -A at
	shift 4
	for rep in $(seq "$reps"); do
		at=()
		for point in $points; do
			while read -r sys; do
				at[$sys]+="${at[$sys]:+ }$point"
			done < <(mb_running "$rep" "$point" "$@")
		done
		run=()
		for sys in "$@"; do
			[ -z "${at[$sys]:-}" ] || run+=("$sys")
		done
		[ "${#run[@]}" -gt 0 ] || continue
		order=$(mb_order "$out" "$rep" all "${run[@]}") || ae_die "cannot shuffle ${run[*]}"
		for sys in $order; do
			mb_timed "$out" "$rep" "${at[$sys]// /_}" "$sys" "$fn" "$out" "$rep" "${at[$sys]}" "$sys"
		done
	done
}

# mb_timed OUTDIR REP POINT SYSTEM CMD...: CMD, and how long it took in
# OUTDIR/times.csv (rep,point,system,seconds: where a figure's time goes,
# to trim what costs most). Its exit status is CMD's. CMD runs as a plain
# command, not in a || list, so that errexit still holds inside it.
mb_timed() {
	local out=$1 rep=$2 point=$3 sys=$4 t0=$EPOCHREALTIME rc
	shift 4
	"$@"
	rc=$?
	if [ "$AE_DRY_RUN" != 1 ]; then
		[ -s "$out/times.csv" ] || echo "rep,point,system,seconds" >"$out/times.csv"
		awk -v a="$t0" -v b="$EPOCHREALTIME" -v k="$rep,$point,$sys" \
			'BEGIN { printf "%s,%.1f\n", k, b - a }' >>"$out/times.csv"
	fi
	return "$rc"
}
