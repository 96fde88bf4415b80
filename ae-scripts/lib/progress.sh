# shellcheck shell=bash
# Progress of a long run of steps (lite-ae all and reference, tests/run,
# tests/soak/run): one line when a step starts and one when it ends,
#   [3/21] lat: started
#   [3/21] lat: done in 3m12s (elapsed 14m, about 21m left)
#   [4/40] unit/foo: done in 0m03s, FAIL: exit 1 (elapsed 2m, about 8m left)
# and at the end a table of every step: its time, result, where its output
# went and a note (a figure's targets met). The time left is the sum of
# the remaining steps' last recorded times; a step never timed counts
# with the time its caller guessed for it, if any, else the line says how
# many steps are not timed yet ("at least 5m left, 2 steps not timed
# yet"; "no estimate yet" when none is). Each step's last time (of a run
# that passed or was skipped, never of a dry run) is kept in
# PROGRESS_RECORD (default results/.step-times: gitignored, kept by 'make
# clean'), one "SECONDS<TAB>KEY" line per step, KEY the step's name and
# PROGRESS_CONTEXT (what changes its time: QUICK=1, the debug kernel...).
# Needs nothing else of the suite: tests/run sources it too.

PROGRESS_RECORD=${PROGRESS_RECORD:-${AE_RESULTS:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/results}/.step-times}
PROGRESS_CONTEXT=${PROGRESS_CONTEXT:-}
# 1: a dry run (nothing is recorded).
PROGRESS_DRY=${PROGRESS_DRY:-0}
# Between the columns of a row of the table (not white space: empty
# columns stay columns).
PROGRESS_FS=$'\x1f'

# progress_fmt SECS: a step's time, 192 -> 3m12s.
progress_fmt() { printf '%dm%02ds' "$(($1 / 60))" "$(($1 % 60))"; }

# progress_about SECS: a rounder time, 42 -> 42s, 870 -> 15m, 4000 -> 1h07m.
progress_about() {
	local m=$((($1 + 30) / 60))
	if [ "$1" -lt 60 ]; then
		echo "${1}s"
	elif [ "$m" -lt 60 ]; then
		echo "${m}m"
	else
		printf '%dh%02dm\n' "$((m / 60))" "$((m % 60))"
	fi
}

# progress_key NAME: NAME's key in the record.
progress_key() { echo "$1${PROGRESS_CONTEXT:+ $PROGRESS_CONTEXT}"; }

# progress_init STEP[=SECS]...: the steps, in the order they run; SECS, a
# guess for a step with no recorded time (e.g. the soak's churn, which
# lasts SOAK_SECS). The elapsed time counts from here.
progress_init() {
	local s secs key
	local -A step_of=()
	PROGRESS_STEPS=() PROGRESS_K=0 PROGRESS_T0=$SECONDS PROGRESS_OPEN=
	PROGRESS_ROWS=()
	declare -gA PROGRESS_LAST=()
	for s in "$@"; do
		PROGRESS_STEPS+=("${s%%=*}")
		step_of[$(progress_key "${s%%=*}")]=${s%%=*}
		[ "$s" = "${s%%=*}" ] || PROGRESS_LAST[${s%%=*}]=${s#*=}
	done
	[ -r "$PROGRESS_RECORD" ] || return 0
	while IFS=$'\t' read -r secs key; do
		[[ "$secs" =~ ^[0-9]+$ ]] && [ -n "${step_of[$key]:-}" ] || continue
		PROGRESS_LAST[${step_of[$key]}]=$secs
	done <"$PROGRESS_RECORD"
}

# progress_start NAME: the next step starts.
progress_start() {
	PROGRESS_K=$((PROGRESS_K + 1)) PROGRESS_OPEN=$1 PROGRESS_STEP_T0=$SECONDS
	echo "[$PROGRESS_K/${#PROGRESS_STEPS[@]}] $1: started"
}

# progress_left: the estimate of what the steps after the current one take.
progress_left() {
	local i s sum=0 unknown=0
	for ((i = PROGRESS_K; i < ${#PROGRESS_STEPS[@]}; i++)); do
		s=${PROGRESS_STEPS[$i]}
		if [ -n "${PROGRESS_LAST[$s]:-}" ]; then
			sum=$((sum + PROGRESS_LAST[$s]))
		else
			unknown=$((unknown + 1))
		fi
	done
	if [ "$PROGRESS_K" -ge "${#PROGRESS_STEPS[@]}" ]; then
		return 0
	elif [ "$unknown" = 0 ]; then
		echo ", about $(progress_about "$sum") left"
	elif [ "$sum" -gt 0 ]; then
		echo ", at least $(progress_about "$sum") left, $unknown step$([ "$unknown" = 1 ] || echo s) not timed yet"
	else
		echo ", no estimate yet"
	fi
}

# progress_done RESULT [WHERE [NOTE]]: the current step ended. RESULT: ok
# (it worked), PASS, SKIP, or what went wrong (FAIL, FAILED...), with
# ": DETAIL" if there is more to say ("FAIL: exit 1"); WHERE: its result
# directory or log; NOTE: one more column of the table. A step that ended
# ok, PASS or SKIP outside a dry run has its time recorded.
progress_done() {
	local res=$1 secs=$((SECONDS - PROGRESS_STEP_T0)) name=$PROGRESS_OPEN key tmp
	PROGRESS_OPEN=
	printf '[%d/%d] %s: done in %s%s (elapsed %s%s)\n' "$PROGRESS_K" "${#PROGRESS_STEPS[@]}" "$name" \
		"$(progress_fmt "$secs")" "$([ "$res" = ok ] || echo ", $res")" \
		"$(progress_about $((SECONDS - PROGRESS_T0)))" "$(progress_left)"
	PROGRESS_ROWS+=("$name$PROGRESS_FS$(progress_fmt "$secs")$PROGRESS_FS${res%%:*}$PROGRESS_FS${2:-}$PROGRESS_FS${3:-}")
	case $res in
	ok | PASS | SKIP*) ;;
	*) return 0 ;;
	esac
	[ "$PROGRESS_DRY" = 1 ] && return 0
	PROGRESS_LAST[$name]=$secs
	key=$(progress_key "$name")
	mkdir -p "$(dirname "$PROGRESS_RECORD")" 2>/dev/null || return 0
	tmp=$(mktemp "$PROGRESS_RECORD.XXXXXX" 2>/dev/null) || return 0
	{
		[ ! -r "$PROGRESS_RECORD" ] || awk -F'\t' -v k="$key" '$2 != k' "$PROGRESS_RECORD"
		printf '%s\t%s\n' "$secs" "$key"
	} >"$tmp" && mv -f "$tmp" "$PROGRESS_RECORD" || rm -f "$tmp"
}

# progress_abort [RESULT]: if a step is still open (its caller is dying),
# it ends with RESULT (default FAILED).
progress_abort() {
	[ -z "${PROGRESS_OPEN:-}" ] || progress_done "${1:-FAILED}"
}

# progress_summary [TITLE]: the table of every step (those that never ran
# too), and the total time.
progress_summary() {
	local i row w=5 rw=6 dw=5 notes="" name t res where note
	local -a rows=("${PROGRESS_ROWS[@]}")
	for ((i = ${#PROGRESS_ROWS[@]}; i < ${#PROGRESS_STEPS[@]}; i++)); do
		rows+=("${PROGRESS_STEPS[$i]}$PROGRESS_FS-${PROGRESS_FS}not run$PROGRESS_FS$PROGRESS_FS")
	done
	for row in "${rows[@]}"; do
		IFS=$PROGRESS_FS read -r name t res where note <<<"$row"
		[ "${#name}" -le "$w" ] || w=${#name}
		[ "${#res}" -le "$rw" ] || rw=${#res}
		[ "${#where}" -le "$dw" ] || dw=${#where}
		notes+=$note
	done
	echo "${1:-summary}: ${#PROGRESS_ROWS[@]} of ${#PROGRESS_STEPS[@]} steps run$([ "$PROGRESS_DRY" != 1 ] || echo " (dry run)")"
	progress_row "$w" "$rw" "$dw" step time result where "${notes:+note}"
	for row in "${rows[@]}"; do
		IFS=$PROGRESS_FS read -r name t res where note <<<"$row"
		progress_row "$w" "$rw" "$dw" "$name" "$t" "$res" "$where" "$note"
	done
	printf "  %-${w}s %8s\n" total "$(progress_fmt $((SECONDS - PROGRESS_T0)))"
}

# progress_row WIDTH... COLUMN...: a row of the table, no trailing blanks.
progress_row() {
	printf "  %-${1}s %8s  %-${2}s  %-${3}s  %s\n" "$4" "$5" "$6" "$7" "$8" | sed 's/ *$//'
}
