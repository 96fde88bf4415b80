# shellcheck shell=bash
# 'lite-ae reference' (make reference): a new reference set in
# plots/reference/, every figure run at one clean commit.
#
# It refuses to start unless 'git status --porcelain' is empty (untracked
# files count, ignored ones do not) and no knob that changes what a figure
# measures is set. It installs LITE as built from that commit, then runs
# every figure into results/<time>-<figure>/ as 'lite-ae run' does,
# stopping at the first failure. After each figure HEAD and the tree must
# be as at the start. Only when every figure succeeded are copies of the
# result directories assembled in plots/.reference-new/, checked
# (ae-scripts/check-reference: every provenance.txt names the start commit,
# clean), exp.md's targets table computed from them (ae-scripts/targets),
# and then plots/reference/ and exp.md's table replaced (two renames). Any
# failure before that leaves both as they were.
#
# A run that stops at a failed figure leaves plots/.reference-partial (the
# commit and each finished step's time and result directory). 'lite-ae
# reference --resume' (make reference-resume), at that same commit and
# still clean, installs LITE again and runs only the figures not yet
# finished; the set then holds the finished ones' directories as they
# were, and reference.txt says which figure failed and when. For a
# failure of the test bed (a guest lost), not of the code measured: a
# figure that fails the same way again is the code's.
#
# AE_REFERENCE_RUNNER (for tests/unit/reference-run only): a program run as
# RUNNER FIGURE DIR instead of installing LITE and running the figure.

REF_DIR=$AE_ROOT/plots/reference
REF_NEW=$AE_ROOT/plots/.reference-new
REF_OLD=$AE_ROOT/plots/.reference-old
REF_EXP_NEW=$AE_ROOT/plots/.reference-exp.md
REF_PARTIAL=$AE_ROOT/plots/.reference-partial
# The lines around the generated table in exp.md.
REF_BEGIN='<!-- targets table: begin (make reference writes it from ae-scripts/lite-ae targets reference; do not edit) -->'
REF_END='<!-- targets table: end -->'
# Settings that change what a figure measures (figures/*.sh, lite.sh).
REF_KNOBS=(QUICK FULL LITE_PARAMS SIZES COUNTS DEPTH QPS RATES THREADS TOTALS SCALE ITERS WC_MIB II_MIB PAGES DIRTY)

ref_git() { git -C "$AE_ROOT" "$@"; }

# ref_dirty: what 'git status --porcelain' lists (untracked files included,
# whatever status.showUntrackedFiles says); empty for a clean tree.
ref_dirty() {
	ref_git status --porcelain --untracked-files=normal --ignore-submodules=none ||
		ae_die "reference: git status failed in $AE_ROOT"
}

# ref_preflight: refuse a dirty tree or a knob; print the full HEAD hash.
ref_preflight() {
	local commit st k v bad=()
	commit=$(ref_git rev-parse --verify -q HEAD 2>/dev/null) ||
		ae_die "reference: $AE_ROOT is not a git checkout with a commit; a reference names the commit it measured"
	st=$(ref_dirty)
	if [ -n "$st" ]; then
		ae_die "reference: refusing to start: the tree at ${commit:0:12} is not clean ('git status --porcelain' in $AE_ROOT):
$(head -n 20 <<<"$st")
A reference must come from one committed tree: commit, stash or remove these
(untracked files too, unless .gitignore covers them), then rerun."
	fi
	for k in "${REF_KNOBS[@]}"; do
		v=${!k:-}
		case "$k=$v" in
		QUICK=0 | FULL=0 | *=) ;;
		*) bad+=("$k=$v") ;;
		esac
	done
	[ "${#bad[@]}" = 0 ] ||
		ae_die "reference: refusing to start: ${bad[*]} set; a reference uses every figure's default settings (unset them)"
	echo "$commit"
}

# ref_unchanged COMMIT WHEN: HEAD is still COMMIT and the tree still clean;
# otherwise say what changed and fail.
ref_unchanged() {
	local now st
	now=$(ref_git rev-parse --verify -q HEAD 2>/dev/null) || now=none
	if [ "$now" != "$1" ]; then
		ae_log "reference: error: HEAD moved from ${1:0:12} to ${now:0:12} $2; the figures would not share a commit"
		return 1
	fi
	st=$(ref_dirty)
	if [ -n "$st" ]; then
		ae_log "reference: error: the tree changed $2 ('git status --porcelain'):
$(head -n 20 <<<"$st")"
		return 1
	fi
}

# ref_recover: finish or undo what an interrupted run left behind.
ref_recover() {
	if [ -d "$REF_OLD" ]; then
		if [ -d "$REF_DIR" ]; then
			rm -rf "$REF_OLD"
		else
			mv -T "$REF_OLD" "$REF_DIR"
			ae_warn "reference: restored plots/reference/ (a previous run stopped during its swap)"
		fi
	fi
	rm -rf "$REF_NEW" "$REF_EXP_NEW"
}

# ref_exp_table EXP TABLE OUT: EXP with the lines between REF_BEGIN and
# REF_END replaced by the file TABLE, into OUT.
ref_exp_table() {
	awk -v b="$REF_BEGIN" -v e="$REF_END" -v tf="$2" '
		$0 == b { if (state) bad = 1; print; while ((getline l < tf) > 0) print l; state = 1; next }
		$0 == e { if (state != 1) bad = 1; state = 2; print; next }
		state == 1 { next }
		{ print }
		END { exit (bad || state != 2) ? 3 : 0 }' "$1" >"$3" || {
		ae_log "reference: error: $1 needs exactly one pair of lines '$REF_BEGIN' and '$REF_END' around the targets table"
		return 1
	}
}

# ref_fail MSG: drop the new set being assembled, then die with MSG.
ref_fail() {
	rm -rf "$REF_NEW" "$REF_NEW.table" "$REF_EXP_NEW"
	ae_die "$1"
}

# ref_one NAME DIR: one figure, with set -e in force (see fig_reference).
ref_one() {
	if [ -n "${AE_REFERENCE_RUNNER:-}" ]; then
		"$AE_REFERENCE_RUNNER" "$1" "$2"
	else
		fig_run "$1" "$2"
	fi
}

# ref_note LINE: one line into plots/.reference-partial (not in a dry run).
ref_note() { [ "$AE_DRY_RUN" = 1 ] || echo "$1" >>"$REF_PARTIAL"; }

# fig_reference [--check|--resume]: the whole run; --check stops after the
# clean-tree and knob checks (make reference runs it before booting);
# --resume continues the interrupted run of plots/.reference-partial.
fig_reference() {
	local commit start=$SECONDS t0 rc name dir i log exp=$AE_ROOT/exp.md table started
	local resume=0 before=0 pc step label sec f
	local -a names=() dirs=() secs=() labels=() guesses=() left=() failures=()
	local -A done_dir=()
	case "${1:-}" in
	--check)
		commit=$(ref_preflight)
		ae_log "reference: tree clean at ${commit:0:12}, no knobs set"
		return 0 ;;
	--resume) resume=1 ;;
	esac
	[ "$AE_DRY_RUN" = 1 ] || ref_recover
	commit=$(ref_preflight)
	started=$(date -u +%Y-%m-%dT%H:%M:%SZ)
	mapfile -t names < <(fig_list)
	if [ "$resume" = 1 ]; then
		[ -r "$REF_PARTIAL" ] ||
			ae_die "reference: --resume: no interrupted run to resume ($REF_PARTIAL); start one with make reference"
		pc=$(sed -n 's/^commit //p' "$REF_PARTIAL")
		[ "$pc" = "$commit" ] ||
			ae_die "reference: --resume: the interrupted run was at ${pc:0:12}, HEAD is ${commit:0:12}; start afresh (make reference)"
		started=$(sed -n 's/^started //p' "$REF_PARTIAL")
		# The time the stopped attempts took (none recorded if stopped
		# by a signal or during the install).
		before=$(sed -n 's/^elapsed //p' "$REF_PARTIAL" | tail -n 1)
		before=${before:-0}
		mapfile -t failures < <(sed -n 's/^failed //p' "$REF_PARTIAL")
		while read -r step label sec dir; do
			[ "$step" = step ] || continue
			if [ "$dir" != - ]; then
				[ -d "$dir" ] ||
					ae_die "reference: --resume: $label's result directory $dir is gone; start afresh (make reference)"
				done_dir[$label]=$dir
			fi
			labels+=("$label") secs+=("$sec")
		done <"$REF_PARTIAL"
		for name in "${names[@]}"; do
			[ -n "${done_dir[$name]:-}" ] || left+=("$name")
		done
		ae_log "reference: resuming the run at ${commit:0:12} of $started: ${#left[@]} of ${#names[@]} figures left: ${left[*]}"
	else
		left=("${names[@]}")
		if [ "$AE_DRY_RUN" != 1 ]; then
			printf 'commit %s\nstarted %s\n' "$commit" "$started" >"$REF_PARTIAL"
		fi
		ae_log "reference: ${#names[@]} figures at ${commit:0:12}: ${names[*]}"
	fi
	# One progress line as each step starts and ends (lib/progress.sh).
	if [ -z "${AE_REFERENCE_RUNNER:-}" ]; then
		mapfile -t guesses < <(ref_step_guesses install "${left[@]}")
		progress_init "${guesses[@]}"
		# The module the LITE figures measure is built from this commit.
		progress_start install
		t0=$SECONDS
		set +e
		(set -e; lite_install)
		rc=$?
		set -e
		if [ "$rc" != 0 ]; then
			progress_done "FAILED: exit $rc"
			progress_summary reference
			ae_die "reference: installing LITE at ${commit:0:12} failed (above); plots/reference/ is unchanged"
		fi
		progress_done ok
		label="(install)"
		[ "$resume" = 0 ] || label="(reinstall)"
		labels+=("$label") secs+=("$((SECONDS - t0))")
		ref_note "step $label $((SECONDS - t0)) -"
	else
		progress_init "${left[@]}"
	fi

	for name in "${names[@]}"; do
		if [ -n "${done_dir[$name]:-}" ]; then
			dirs+=("${done_dir[$name]}")
			continue
		fi
		progress_start "$name"
		t0=$SECONDS
		if [ "$AE_DRY_RUN" = 1 ]; then
			fig_run "$name"
			dir=""
			labels+=("$name") secs+=("$((SECONDS - t0))")
			progress_done ok
		else
			dir=$(fig_new_dir "$name")
			log=$dir/console.log
			ae_log "reference: $name -> $dir"
			# A subshell of its own with set -e (not ignored as it would be
			# under '||'), its output on the console and in the log.
			set +e
			(set -e; ref_one "$name" "$dir") 2>&1 | tee "$log"
			rc=$?
			set -e
			labels+=("$name") secs+=("$((SECONDS - t0))")
			if [ "$rc" != 0 ]; then
				progress_done "FAILED: exit $rc" "${dir#"$AE_ROOT"/}"
				progress_summary reference
				ref_note "failed $name $(date -u +%Y-%m-%dT%H:%M:%SZ) (exit $rc, log $log)"
				ref_note "elapsed $((SECONDS - start + before))"
				ae_die "reference: $name failed after $(progress_fmt "$((SECONDS - t0))") (exit $rc); log: $log; data: $dir. plots/reference/ and exp.md are unchanged. A failure of the test bed, not of the code (a guest lost): make reference-resume runs the figures not yet finished"
			fi
			progress_done ok "${dir#"$AE_ROOT"/}" "$(fig_targets_met "$name" "$dir")"
			ref_note "step $name $((SECONDS - t0)) $dir"
		fi
		dirs+=("$dir")
		ref_unchanged "$commit" "while $name ran" ||
			ae_die "reference: stopped after $name; plots/reference/ and exp.md are unchanged"
	done

	if [ "$AE_DRY_RUN" = 1 ]; then
		progress_summary reference
		ae_log "reference: dry run: would copy ${#names[@]} result directories into plots/reference/, check them and rewrite exp.md's targets table; nothing changed"
		return 0
	fi

	# Assemble the new set beside the old one, check it, then swap.
	rm -rf "$REF_NEW"
	mkdir -p "$REF_NEW"
	for i in "${!names[@]}"; do
		cp -a "${dirs[$i]}" "$REF_NEW/${names[$i]}"
		rm -f "$REF_NEW/${names[$i]}/console.log"
	done
	{
		echo "# One 'make reference' run (ae-scripts/lite-ae reference): every figure"
		echo "# below at this commit, clean; tests/unit/reference checks the set."
		echo "git_commit: $commit"
		echo "date: $started .. $(date -u +%Y-%m-%dT%H:%M:%SZ)"
		echo "inventory: ${INV_FILE#"$AE_ROOT"/}"
		echo "figures: ${names[*]}"
		for f in "${failures[@]}"; do echo "resumed: after $f"; done
		for i in "${!secs[@]}"; do echo "elapsed ${labels[$i]}: ${secs[$i]} s"; done
		echo "elapsed total: $((SECONDS - start + before)) s"
	} >"$REF_NEW/reference.txt"
	"$AE_ROOT/ae-scripts/check-reference" -c "$commit" "$REF_NEW" "${names[@]}" >/dev/null ||
		ref_fail "reference: the new set fails the check (above); plots/reference/ and exp.md are unchanged; the runs stay in ${dirs[0]%/*}/"
	table=$("$AE_ROOT/ae-scripts/targets" --pairs "$REF_NEW/pairs.csv" "$REF_NEW") ||
		ref_fail "reference: ae-scripts/targets found the new data incomplete:
$table
plots/reference/ and exp.md are unchanged; the runs stay in ${dirs[0]%/*}/"
	printf '%s\n' "$table" >"$REF_NEW.table"
	ref_exp_table "$exp" "$REF_NEW.table" "$REF_EXP_NEW" ||
		ref_fail "reference: plots/reference/ and exp.md are unchanged"
	rm -f "$REF_NEW.table"
	ref_unchanged "$commit" "during the run" ||
		ref_fail "reference: plots/reference/ and exp.md are unchanged"

	[ ! -e "$REF_OLD" ] || rm -rf "$REF_OLD"
	[ ! -d "$REF_DIR" ] || mv -T "$REF_DIR" "$REF_OLD"
	if ! mv -T "$REF_NEW" "$REF_DIR"; then
		[ ! -d "$REF_OLD" ] || mv -T "$REF_OLD" "$REF_DIR"
		ae_die "reference: could not move $REF_NEW into place; plots/reference/ is unchanged"
	fi
	if ! mv -f "$REF_EXP_NEW" "$exp"; then
		rm -rf "$REF_DIR"
		[ ! -d "$REF_OLD" ] || mv -T "$REF_OLD" "$REF_DIR"
		ae_die "reference: could not replace $exp; plots/reference/ is unchanged"
	fi
	rm -rf "$REF_OLD" "$REF_PARTIAL"
	progress_summary reference
	ae_log "reference: plots/reference/ now holds ${#names[@]} figures at ${commit:0:12}, and exp.md's targets table is theirs:"
	ae_log "  git add -A plots/reference exp.md && git commit -m 'plots/reference: make reference at ${commit:0:12}'"
}

# ref_step_guesses STEP...: each STEP, as STEP=SECS where the committed
# reference run timed it (plots/reference/reference.txt: the figures and
# the install), for progress_init: what a first run on this kind of
# machine estimates from, until it has a record of its own. Only for the
# run the reference was made with: its inventory, no QUICK, FULL or
# debug kernel (PROGRESS_CONTEXT says).
ref_step_guesses() {
	local f=$AE_ROOT/plots/reference/reference.txt step key secs
	for step in "$@"; do
		secs=""
		if [ -r "$f" ] && [ "$PROGRESS_CONTEXT" = "$(basename "$(sed -n 's/^inventory: //p' "$f")")" ]; then
			key=$step
			[ "$step" != install ] || key="(install)"
			secs=$(awk -v k="elapsed $key:" 'index($0, k) == 1 && $NF == "s" { print $(NF - 1) }' "$f")
		fi
		echo "$step${secs:+=$secs}"
	done
}
