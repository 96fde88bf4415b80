# shellcheck shell=bash
# Experiments and their results. Each run of a figure gets a fresh directory
# results/<UTC time>-<figure>/ with the raw data, data.csv, a provenance
# file and the plot; nothing is ever deleted or overwritten on a rerun.
# A figure is ae-scripts/figures/<name>.sh (defining figure_run OUTDIR) plus
# plots/<name>.gp (reading data.csv, writing <name>.png and <name>.svg).

AE_RESULTS=${AE_RESULTS:-$AE_ROOT/results}

fig_list() {
	local f
	for f in "$AE_ROOT"/ae-scripts/figures/*.sh; do
		f=${f##*/}
		echo "${f%.sh}"
	done
}

fig_known() {
	grep -qxF -- "$1" <<<"$(fig_list)" || ae_die "unknown figure '$1' (known: $(fig_list | paste -sd' ' -))"
}

# fig_new_dir NAME: create and print a fresh result directory.
fig_new_dir() {
	local base dir n=1
	base="$AE_RESULTS/$(date -u +%Y%m%dT%H%M%SZ)-$1"
	dir=$base
	while ! mkdir -p "$(dirname "$dir")" || ! mkdir "$dir" 2>/dev/null; do
		n=$((n + 1))
		dir="$base.$n"
	done
	echo "$dir"
}

# fig_provenance DIR NAME: who, what and where of a run, as "key: value".
fig_provenance() {
	local dir=$1 name=$2 h facts
	local -A pid=()
	cp "$INV_FILE" "$dir/inventory"
	# The hosts' facts in parallel (a guest takes a second or two for them).
	for h in "${INV_NODES[@]}"; do
		ae_ssh "$h" "$(fig_host_facts_cmd "$h")" >"$dir/.facts.$h" 2>/dev/null &
		pid[$h]=$!
	done
	{
		echo "figure: $name"
		echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
		echo "git_commit: $(ae_git_commit)"
		echo "inventory: $INV_FILE (copied to ./inventory)"
		echo "controller: $(uname -n) $(uname -r)"
		echo "quick: ${QUICK:-0} full: ${FULL:-0}"
		if [ "$INV_VCLUSTER" = 1 ]; then
			echo "testbed: ${#INV_NODES[@]} QEMU/TCG guests, $(inv_vc cpus) vCPU $(inv_vc mem_mb) MiB each, Soft-RoCE"
			# The guests share this host's cores: a point keeping more
			# guest vCPUs busy than it has is oversubscribed, not judged
			# (ae-scripts/targets; each guest's vcpus= on its host line).
			echo "host_cpus: $(nproc) ($(uname -n), the guests' host)"
			echo "host_load_start: $(fig_loadavg)"
		else
			echo "testbed: ${#INV_NODES[@]} hosts from $(basename "$INV_FILE")"
		fi
		# What the inventory asks of every stack's QPs; what they used is
		# read back after the run (qp_settings:, fig_qp_settings).
		echo "qp_requested: $(fig_qp_requested) (the inventory's qp_timeout and qp_retry: lite.ko's parameters, perftest's -u, the verbs programs' --qp-timeout/--qp-retry)"
		for h in "${INV_NODES[@]}"; do
			facts=unreachable
			! wait "${pid[$h]}" || facts=$(cat "$dir/.facts.$h")
			echo "host $h: $facts"
		done
	} >"$dir/provenance.txt"
	rm -f "$dir"/.facts.*
}

# fig_qp_requested: the inventory's QP timeout and retry count
# (inv_qp_settings), "timeout=N retry=N" when every node has the same,
# else each set with its nodes ("timeout=19 retry=7 on node1 node2,
# timeout=17 retry=7 on node3").
fig_qp_requested() {
	local h
	for h in "${INV_NODES[@]}"; do
		printf '%s\t%s\n' "$h" "$(inv_qp_settings "$h")"
	done | awk -F '\t' '
		!($2 in hosts) { order[++k] = $2 }
		{ hosts[$2] = hosts[$2] (hosts[$2] == "" ? "" : " ") $1 }
		END {
			if (k == 1) { printf "%s", order[1]; exit }
			for (i = 1; i <= k; i++) printf "%s%s on %s", (i > 1 ? ", " : ""), order[i], hosts[order[i]]
		}'
}

# fig_qp_settings DIR NAME: provenance's qp_settings: line, what the run's
# QPs used, read back after the run (ae-scripts/qp-settings: LITE's from
# each node's debugfs lite/qps in DIR/stats, the verbs programs' from
# their '# qp_attr=' lines, perftest's from its command lines and
# report). What could not be read is said so in the line; the figure
# does not fail for it.
fig_qp_settings() {
	local dir=$1 v
	if ! v=$("$AE_ROOT/ae-scripts/qp-settings" "$dir" 2>"$dir/.qp-settings.err"); then
		v="not read (ae-scripts/qp-settings failed: $(tail -n 1 "$dir/.qp-settings.err"))"
		ae_warn "$2: $v"
	fi
	rm -f "$dir/.qp-settings.err"
	echo "qp_settings: $v" >>"$dir/provenance.txt"
	ae_log "$2: qp_settings: $v"
}

# fig_loadavg: this host's load averages over 1, 5 and 15 minutes and its
# runnable/all tasks (/proc/loadavg, its first four fields).
fig_loadavg() {
	local l
	l=$(cut -d' ' -f1-4 /proc/loadavg 2>/dev/null) || l=unknown
	echo "$l (1, 5, 15-minute load averages, runnable/all tasks)"
}

fig_host_facts_cmd() {
	local dev port
	dev=$(inv_var "$1" rdma_dev) port=$(inv_var "$1" ib_port)
	cat <<EOF
gi=\$($(inv_gid_cmd "$1"))
printf 'kernel=%s device=%s port=%s link_layer=%s gid_index=%s gid=%s fw=%s perftest=%s rdma-core=%s vcpus=%s\n' \
 "\$(uname -r)" "$dev" "$port" "\$(cat /sys/class/infiniband/$dev/ports/$port/link_layer 2>/dev/null)" \
 "\$gi" "\$(cat /sys/class/infiniband/$dev/ports/$port/gids/\$gi 2>/dev/null)" \
 "\$(cat /sys/class/infiniband/$dev/fw_ver 2>/dev/null)" \
 "\$(dpkg-query -W -f='\${Version}' perftest 2>/dev/null || echo unknown)" \
 "\$(dpkg-query -W -f='\${Version}' rdma-core 2>/dev/null || echo unknown)" "\$(nproc)"
EOF
}

# fig_run NAME [DIR]: run a figure's experiment into DIR (default: a fresh
# results/<time>-NAME/), then plot.
fig_run() {
	local name=$1 dir=${2:-} t0
	fig_known "$name"
	if [ "$AE_DRY_RUN" = 1 ]; then
		dir=$(mktemp -d)
		(
			# shellcheck source=/dev/null
			. "$AE_ROOT/ae-scripts/figures/$name.sh"
			figure_run "$dir"
		)
		rm -rf "$dir"
		return 0
	fi
	[ -n "$dir" ] || dir=$(fig_new_dir "$name")
	ae_log "$name: results go to $dir"
	fig_provenance "$dir" "$name"
	loss_snapshot "$dir" before
	t0=$SECONDS
	(
		# shellcheck source=/dev/null
		. "$AE_ROOT/ae-scripts/figures/$name.sh"
		figure_run "$dir"
	) 2>&1 | tee "$dir/run.log"
	[ "${PIPESTATUS[0]}" = 0 ] || ae_die "$name: experiment failed; partial data kept in $dir"
	echo "run_seconds: $((SECONDS - t0))" >>"$dir/provenance.txt"
	[ "$INV_VCLUSTER" != 1 ] || echo "host_load_end: $(fig_loadavg)" >>"$dir/provenance.txt"
	ae_log "$name: measured in $((SECONDS - t0)) s"
	# What the fabric dropped and the transports resent meanwhile.
	loss_snapshot "$dir" after
	loss_report "$dir"
	ae_log "$name: $(sed -n 's/^loss: //p' "$dir/provenance.txt")"
	# What LITE counted on each node, since its module was loaded.
	lite_stats "$dir/stats" || ae_warn "$name: counters incomplete in $dir/stats"
	# What the QPs used, read back from those and the programs' output.
	fig_qp_settings "$dir" "$name"
	fig_plot_dir "$name" "$dir"
}

# fig_latest NAME: the newest result directory of NAME that has data.
fig_latest() {
	local d
	for d in $(find "$AE_RESULTS" -maxdepth 1 -type d -name "*-$1*" 2>/dev/null | sort -r); do
		[[ "${d##*/}" =~ ^[0-9]{8}T[0-9]{6}Z-$1(\.[0-9]+)?$ ]] || continue
		if [ -s "$d/data.csv" ]; then
			echo "$d"
			return 0
		fi
	done
	return 1
}

# fig_oversub_note NAME DIR: the points of NAME's targets that DIR ran
# oversubscribed (ae-scripts/targets marks them "oversubscribed: not
# judged"), as a line for the plot: "oversubscribed, not judged: 3 nodes
# (3 vCPUs on 2 cores)"; nothing when there are none.
fig_oversub_note() {
	local tmp pts
	tmp=$(mktemp -d)
	ln -s "$2" "$tmp/$1"
	pts=$("$AE_ROOT/ae-scripts/targets" --only "$1" "$tmp" 2>/dev/null |
		grep -oE '\[[^]]*; [0-9]+ vCPUs on [0-9]+ cores, oversubscribed: not judged\]( \([^)]*\))?' |
		sed -E 's/^.*; ([0-9]+ vCPUs on [0-9]+ cores), .*\]( \(([^)]*)\))?$/\3 (\1)/; s/^ //' | sort -u | paste -sd';' - | sed 's/;/; /g') || true
	rm -rf "$tmp"
	[ -z "$pts" ] || echo "oversubscribed, not judged: $pts"
}

# fig_plot_dir NAME DIR: draw DIR/data.csv with plots/NAME.gp into DIR,
# with a line naming the points run oversubscribed (fig_oversub_note).
fig_plot_dir() {
	local name=$1 dir=$2 testbed judging
	testbed=$(sed -n 's/^testbed: //p' "$dir/provenance.txt" 2>/dev/null)
	judging=$(fig_oversub_note "$name" "$dir")
	gnuplot -e "datafile='$dir/data.csv'; outbase='$dir/$name'; testbed='${testbed:-unknown testbed}'; judging='$judging'" \
		"$AE_ROOT/plots/$name.gp" || ae_die "$name: gnuplot failed on $dir/data.csv"
	ae_log "$name: plotted $dir/$name.png"
}

fig_plot() {
	local name dir names=()
	if [ "$1" = all ]; then
		mapfile -t names < <(fig_list)
	else
		fig_known "$1"
		names=("$1")
	fi
	for name in "${names[@]}"; do
		if dir=$(fig_latest "$name"); then
			fig_plot_dir "$name" "$dir"
		elif [ "$1" = all ]; then
			ae_log "$name: no results yet, skipped (run: make fig-$name)"
		else
			ae_die "$name: no results under $AE_RESULTS (run: make fig-$name)"
		fi
	done
}

# fig_targets_met NAME DIR: "targets M/T met", how many of NAME's targets
# in exp.md the results in DIR meet (ae-scripts/targets --only NAME: a
# row met is a "yes"), how many are undecided, how many only hardware
# can judge, how many ran oversubscribed only and how many the run has no
# baseline series for (not yet measured); nothing for a figure without
# targets.
fig_targets_met() {
	local tmp rows hw undecided over unmeasured
	tmp=$(mktemp -d)
	ln -s "$2" "$tmp/$1"
	rows=$("$AE_ROOT/ae-scripts/targets" --only "$1" "$tmp" | grep '^| ' | tail -n +2) || true
	rm -rf "$tmp"
	[ -n "$rows" ] || return 0
	# Undecided: the run cannot tell (QUICK runs, with one pair, leave
	# every target so).
	undecided=$(grep -c '| undecided ([^|]*|$' <<<"$rows") || true
	if [ "$undecided" = 0 ]; then undecided=""; else undecided=", $undecided undecided"; fi
	hw=$(grep -c '| not testable on ' <<<"$rows") || true
	if [ "$hw" = 0 ]; then hw=""; else hw=", $hw not testable here"; fi
	over=$(grep -c '| oversubscribed: not judged |$' <<<"$rows") || true
	if [ "$over" = 0 ]; then over=""; else over=", $over oversubscribed"; fi
	unmeasured=$(grep -c '| not yet measured |$' <<<"$rows") || true
	if [ "$unmeasured" = 0 ]; then unmeasured=""; else unmeasured=", $unmeasured not yet measured"; fi
	echo "targets $(grep -c '| yes |$' <<<"$rows")/$(wc -l <<<"$rows") met$undecided$hw$over$unmeasured"
}

# fig_targets [reference]: exp.md's target ratios (ae-scripts/targets) from
# the newest result of every figure, or from plots/reference/.
fig_targets() {
	local tmp name d rc=0
	if [ "${1:-}" = reference ]; then
		"$AE_ROOT/ae-scripts/targets" "$AE_ROOT/plots/reference"
		return
	fi
	tmp=$(mktemp -d)
	while read -r name; do
		if d=$(fig_latest "$name"); then ln -s "$d" "$tmp/$name"; fi
	done < <(fig_list)
	"$AE_ROOT/ae-scripts/targets" "$tmp" || rc=$?
	rm -rf "$tmp"
	return "$rc"
}
