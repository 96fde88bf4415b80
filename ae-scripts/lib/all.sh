# shellcheck shell=bash
# 'lite-ae all' (make all): install what is missing (ae-scripts/deps.sh),
# boot the local cluster, kick the tires, install LITE, run every figure
# into results/<time>-<figure>/, redraw the plots: one step after another,
# each with a progress line when it starts and one when it ends (the time
# so far and an estimate of the time left: lib/progress.sh), then a table
# of every step (a figure's result directory and how many of its targets
# in exp.md it met). The first step that fails ends the run; a dry run
# goes on, to show every step.

# all_step STEP DIR: one step (a figure: into DIR), with set -e in force.
all_step() {
	case $1 in
	deps)
		if [ "$AE_DRY_RUN" = 1 ]; then
			printf '[dry-run] %s\n' "$AE_ROOT/ae-scripts/deps.sh"
		else
			"$AE_ROOT/ae-scripts/deps.sh"
		fi ;;
	up)
		if [ "$INV_VCLUSTER" = 1 ]; then vc_up; else ae_log "$INV_FILE: real hosts, nothing to boot"; fi ;;
	check) check_main ;;
	install) lite_install ;;
	plots)
		if [ "$AE_DRY_RUN" = 1 ]; then
			printf '[dry-run] plot all (every figure from its newest results)\n'
		else
			fig_plot all
		fi ;;
	*) fig_run "$1" "$2" ;;
	esac
}

ae_all() {
	local step dir rc failed=""
	local -a figs steps guesses
	mapfile -t figs < <(fig_list)
	steps=(deps up check install "${figs[@]}" plots)
	mapfile -t guesses < <(ref_step_guesses "${steps[@]}")
	progress_init "${guesses[@]}"
	for step in "${steps[@]}"; do
		progress_start "$step"
		dir=""
		case $step in
		deps | up | check | install | plots) ;;
		*) [ "$AE_DRY_RUN" = 1 ] || dir=$(fig_new_dir "$step") ;;
		esac
		# A subshell of its own with set -e (not ignored as it would be
		# under '||'): a step that dies ends only itself.
		set +e
		(set -e; all_step "$step" "$dir")
		rc=$?
		set -e
		if [ "$rc" = 0 ]; then
			progress_done ok "${dir#"$AE_ROOT"/}" "$([ -z "$dir" ] || fig_targets_met "$step" "$dir")"
		else
			progress_done "FAILED: exit $rc" "${dir#"$AE_ROOT"/}"
			failed+="${failed:+ }$step"
			[ "$AE_DRY_RUN" = 1 ] || break
		fi
	done
	progress_summary all
	[ -z "$failed" ] || ae_die "all: $failed failed (above)"
}
