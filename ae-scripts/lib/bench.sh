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
		if ! grep -q "nodes=$n " <<<"$out"; then
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

# mb_node_id HOST: the LITE node id of HOST (its place in the inventory).
mb_node_id() {
	local i
	for i in "${!INV_NODES[@]}"; do
		[ "${INV_NODES[$i]}" = "$1" ] && echo $((i + 1)) && return 0
	done
	return 1
}

# mb_pair OUTDIR TAG SERVER "SERVER ARGS" CLIENT "CLIENT ARGS" READY
# Runs a server program line on SERVER, waits until its output matches the
# regex READY (30 s), then the client line on CLIENT; rows land in
# OUTDIR/raw/TAG.csv, logs beside. An empty SERVER runs the client alone.
# With MB_BEFORE_CLIENT set, that command runs just before the client.
# With MB_SAMPLES set (a path on CLIENT the client writes its --samples
# to), the client's samples are fetched too; a client whose output has a
# line "# samples-follow" prints them itself after it. They are appended to
# OUTDIR/samples.csv.gz (mb_collect).
mb_pair() {
	local out=$1 tag=$2 srv=$3 srv_cmd=$4 cli=$5 cli_cmd=$6 ready=$7 pid="" rc=0 i fetch=""
	if [ -n "${MB_SAMPLES:-}" ]; then
		fetch=" && echo '# samples-follow' && cat ${MB_SAMPLES}; rc=\$?; rm -f ${MB_SAMPLES}; exit \$rc"
	fi
	mkdir -p "$out/raw"
	if [ "$AE_DRY_RUN" = 1 ]; then
		[ -z "$srv" ] || printf '[dry-run] %s: %s\n' "$srv" "$srv_cmd"
		printf '[dry-run] %s: %s\n' "$cli" "$cli_cmd"
		return 0
	fi
	if [ -n "$srv" ]; then
		timeout --kill-after=5 "$AE_TIMEOUT" ssh -F "$AE_SSH_CONFIG" "$srv" -- \
			"exec timeout $AE_TIMEOUT $srv_cmd" >"$out/raw/$tag.server.log" 2>&1 &
		pid=$!
		for i in $(seq 150); do
			grep -qE -- "$ready" "$out/raw/$tag.server.log" && break
			[ "$i" = 150 ] && rc=1
			sleep 0.2
		done
		if [ "$rc" != 0 ]; then
			kill "$pid" 2>/dev/null || true
			wait "$pid" 2>/dev/null || true
			ae_warn "$tag: server on $srv did not start: $(tail -n 2 "$out/raw/$tag.server.log" | tr '\n' ' ')"
			return 1
		fi
	fi
	[ -z "${MB_BEFORE_CLIENT:-}" ] || "$MB_BEFORE_CLIENT"
	ae_run_bounded "$AE_TIMEOUT" "$cli: $tag" ssh -F "$AE_SSH_CONFIG" "$cli" -- \
		"timeout $AE_TIMEOUT $cli_cmd$fetch" >"$out/raw/$tag.out" 2>"$out/raw/$tag.client.log" || rc=$?
	awk -v s="$out/raw/$tag.samples" '$0 == "# samples-follow" { f = 1; next } f { print >s; next } { print }' \
		"$out/raw/$tag.out" >"$out/raw/$tag.csv"
	rm -f "$out/raw/$tag.out"
	if [ -n "$pid" ]; then
		wait "$pid" || [ "$rc" != 0 ] || rc=1
	fi
	if [ "$rc" != 0 ]; then
		ae_warn "$tag: failed (exit $rc): $(tail -n 2 "$out/raw/$tag.client.log" "$out/raw/$tag.server.log" 2>/dev/null | tr '\n' ' ')"
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

# mb_interleave OUTDIR REPS "POINTS" CASE SYSTEM...: for each repetition
# 1..REPS and each of POINTS, run "CASE OUTDIR REP POINT SYSTEM" for every
# SYSTEM, in mb_order's shuffled order (recorded in OUTDIR/order.csv).
mb_interleave() {
	local out=$1 reps=$2 points=$3 fn=$4 rep point sys order
	shift 4
	for rep in $(seq "$reps"); do
		for point in $points; do
			order=$(mb_order "$out" "$rep" "$point" "$@") || ae_die "cannot shuffle $*"
			for sys in $order; do
				"$fn" "$out" "$rep" "$point" "$sys"
			done
		done
	done
}
