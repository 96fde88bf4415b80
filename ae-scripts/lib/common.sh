# shellcheck shell=bash
# Logging, errors, timeouts and dry-run handling shared by every lite-ae script.

# Set by the caller (environment or -t), or the default: scaled for a
# local cluster running the debug kernel (lite-ae main).
# shellcheck disable=SC2034 # read by lite-ae
AE_TIMEOUT_GIVEN=${AE_TIMEOUT:+1}
AE_TIMEOUT=${AE_TIMEOUT:-120}
# How many times slower than usual the hosts run: 5 on a local cluster
# running the debug kernel (lite-ae main); fixed bounds scale by it.
AE_SLOW=1
AE_DRY_RUN=${AE_DRY_RUN:-0}
AE_VERBOSE=${AE_VERBOSE:-0}

ae_log() { printf '%s\n' "lite-ae: $*" >&2; }
ae_debug() { [ "$AE_VERBOSE" = 1 ] && printf '%s\n' "lite-ae: debug: $*" >&2; return 0; }
ae_warn() { printf '%s\n' "lite-ae: warning: $*" >&2; }
ae_die() {
	printf '%s\n' "lite-ae: error: $*" >&2
	exit 1
}

# ae_quote ARG...: print the arguments as one string a shell would split
# back into them (plain words stay plain, others get single quotes).
ae_quote() {
	local out="" a q="'"
	for a in "$@"; do
		[[ "$a" =~ ^[A-Za-z0-9_./:=,@%+-]+$ ]] || a="'${a//$q/$q\\$q$q}'"
		out+="${out:+ }$a"
	done
	printf '%s' "$out"
}

# ae_is_uint VALUE: true when VALUE is a non-negative decimal integer.
ae_is_uint() { [[ "$1" =~ ^[0-9]+$ ]]; }

# ae_run_bounded SECS DESCRIPTION CMD...: run CMD, killing it after SECS
# seconds; on timeout say what timed out and return 124. Under --dry-run,
# only print CMD.
ae_run_bounded() {
	local secs=$1 what=$2 rc=0
	shift 2
	if [ "$AE_DRY_RUN" = 1 ]; then
		printf '[dry-run] %s\n' "$(ae_quote "$@")"
		return 0
	fi
	ae_debug "($what, ${secs}s) $(ae_quote "$@")"
	timeout --kill-after=5 "$secs" "$@" || rc=$?
	if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
		ae_warn "$what: timed out after ${secs}s (raise with -t SECS or AE_TIMEOUT)"
		return 124
	fi
	return "$rc"
}

# ae_wait_pid_gone PID SECS: wait until PID has exited; false on timeout.
ae_wait_pid_gone() {
	local pid=$1 deadline=$((SECONDS + $2))
	while kill -0 "$pid" 2>/dev/null; do
		[ "$SECONDS" -lt "$deadline" ] || return 1
		sleep 0.2
	done
}

# ae_stop_pidfile PIDFILE NAME EXPECTED_COMM: stop the process recorded in
# PIDFILE, but only if it still is the program we started (its comm matches),
# so that a recycled PID never gets a signal from us.
ae_stop_pidfile() {
	local pidfile=$1 name=$2 comm=$3 pid
	[ -f "$pidfile" ] || return 0
	pid=$(cat "$pidfile")
	if ! ae_is_uint "$pid" || ! kill -0 "$pid" 2>/dev/null; then
		rm -f "$pidfile"
		return 0
	fi
	if [[ "$(cat "/proc/$pid/comm" 2>/dev/null)" != "$comm"* ]]; then
		ae_warn "$name: pid $pid in $pidfile is no longer $comm; not touching it"
		rm -f "$pidfile"
		return 0
	fi
	kill -TERM "$pid" 2>/dev/null || true
	if ! ae_wait_pid_gone "$pid" 10; then
		ae_warn "$name: pid $pid ignored SIGTERM for 10s, sending SIGKILL"
		kill -KILL "$pid" 2>/dev/null || true
		ae_wait_pid_gone "$pid" 5 || ae_die "$name: pid $pid survived SIGKILL"
	fi
	rm -f "$pidfile"
}

# ae_git_commit: the commit of the tree the suite runs from (+dirty marker).
ae_git_commit() {
	local c
	c=$(git -C "$AE_ROOT" rev-parse --short=12 HEAD 2>/dev/null) || {
		echo unknown
		return 0
	}
	if [ -n "$(git -C "$AE_ROOT" status --porcelain --untracked-files=no 2>/dev/null)" ]; then
		c+="-dirty"
	fi
	echo "$c"
}
