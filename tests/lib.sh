# shellcheck shell=bash
# Helpers for the tests: assertions that say what was expected and what came.

TESTS_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
AE_ROOT=$(cd "$TESTS_DIR/.." && pwd)
# shellcheck disable=SC2034 # used by the tests that source this file
LITE_AE=$AE_ROOT/ae-scripts/lite-ae
TEST_TMP=$(mktemp -d)
trap 'rm -rf "$TEST_TMP"' EXIT
# Keep the tests' state away from a cluster the user may have running. An
# integration test boots its own cluster and stops it at the end, unless
# TEST_CLUSTER_STATE names the state of a shared one (tests/run shares one
# among the integration tests; tests/integration/linux-6.12 one among the
# tests it runs): then 'ae up' boots it only if it is not running, and
# test_cluster_down leaves it running.
export AE_STATE_DIR=${TEST_CLUSTER_STATE:-$TEST_TMP/state} AE_RESULTS=$TEST_TMP/results

# A command that fails outside any check ends the test (set -e) without a
# word of its own: say which and where on a FAIL line, the line tests/run
# repeats at the end of its output (all a CI log may keep). Only the
# test's own shell speaks (errtrace reaches into functions; a $(...) that
# fails is reported by the command that used it).
set -o errtrace
trap 'test_err_report "$?" "$BASH_COMMAND" "${BASH_SOURCE[0]:-}" "$LINENO"' ERR
test_err_report() {
	[ "$BASHPID" = "$$" ] || return 0
	printf "FAIL: %s:%s: '%.160s' exited %s\n" "${3#"$AE_ROOT"/}" "$4" "$2" "$1" >&2
}

# test_inventory DEFAULT: the inventory an integration test boots, DEFAULT
# unless TEST_INVENTORY names another (e.g. a copy on other ports and
# fabric, to run beside a cluster that uses DEFAULT's).
test_inventory() { echo "${TEST_INVENTORY:-$1}"; }

# test_cluster_down: stop the cluster this test booted (not a shared one).
test_cluster_down() {
	[ -n "${TEST_CLUSTER_STATE:-}" ] || "$LITE_AE" down
}

# own_cluster: this test boots a cluster of its own (another kernel, or the
# boot is what it tests), on the ports of the shared one: stop that first if
# it runs (the next test that shares boots it again).
own_cluster() {
	if [ -n "${TEST_CLUSTER_STATE:-}" ] && compgen -G "$TEST_CLUSTER_STATE/*.qemu.pid" >/dev/null; then
		"$LITE_AE" down
	fi
	unset TEST_CLUSTER_STATE
	export AE_STATE_DIR=$TEST_TMP/state
}

# test_log NAME: where a test keeps an extra log (dmesg, the manager's),
# next to its own; TEST_LOG_PREFIX tells two runs of a test apart.
test_log() { echo "${TEST_LOG_DIR:-$TESTS_DIR/logs}/${TEST_LOG_PREFIX:-}$1"; }

# collect_guest_logs [-d] [-e REGEX] [-n LINES] [-m] [-c] NAME: what the
# guests logged, kept next to the test's log (test_log NAME-...) by its
# teardown while the cluster and $AE_STATE_DIR are still there:
#   -d  every guest's kernel lines about LITE or trouble (grep -E
#       lite|WARN|BUG|Oops, and |REGEX with -e; no double quotes in it),
#       the last LINES (default 40) of each, in NAME-dmesg.log
#   -m  node1's manager log, in NAME-manager.log
#   -c  every guest's console log, in NAME-GUEST.console.log
# Never fails: the teardown must go on to stop the cluster.
collect_guest_logs() {
	local opt dmesg=0 manager=0 consoles=0 re="lite|WARN|BUG|Oops" lines=40 name c OPTIND=1
	while getopts de:n:mc opt; do
		case $opt in
		d) dmesg=1 ;;
		e) re+="|$OPTARG" ;;
		n) lines=$OPTARG ;;
		m) manager=1 ;;
		c) consoles=1 ;;
		*) echo "collect_guest_logs: bad option" >&2 ;;
		esac
	done
	shift $((OPTIND - 1))
	name=$1
	if [ "$dmesg" = 1 ]; then
		ae exec all -- "dmesg | grep -E \"$re\" | tail -n $lines" >"$(test_log "$name-dmesg.log")" 2>&1 || true
	fi
	if [ "$manager" = 1 ]; then
		ae exec node1 -- cat /var/log/lite-manager.log >"$(test_log "$name-manager.log")" 2>&1 || true
	fi
	if [ "$consoles" = 1 ]; then
		for c in "$AE_STATE_DIR"/*.console.log; do
			[ ! -f "$c" ] || cp "$c" "$(test_log "$name-${c##*/}")" || true
		done
	fi
	return 0
}

# summary TEXT: a line tests/run shows under the test's result.
summary() { echo "summary: $*"; }

# check_table: kick-the-tires' table ('ae check') on a cluster that must
# pass it; when it does not, the test fails with the table (the failed row
# is what a CI log needs).
check_table() {
	local out dir keep
	if ! out=$("$LITE_AE" check); then
		# Its logs (perftest's, each host's probe) are in the cluster's
		# state, which goes with the test: keep a copy.
		dir=$(sed -n 's/.*; details in \(.*\))$/\1/p' <<<"$out" | tail -n 1)
		keep=$(test_log kick-the-tires)
		rm -rf "$keep"
		[ -z "$dir" ] || cp -r "$dir" "$keep" || true
		fail "kick-the-tires failed (its logs: $keep):
$out"
	fi
	printf '%s\n' "$out"
}

# guest_kernel: the kernel the cluster's first guest runs.
guest_kernel() { "$LITE_AE" exec node1 -- uname -r; }

# ae ARGS...: lite-ae of this tree, on the test's inventory and state.
ae() { "$LITE_AE" "$@"; }

# dmesg_count HOST WHAT: how many of HOST's kernel lines say WHAT
# (grep -c prints 0 but fails when nothing matches: not an error here).
dmesg_count() { ae exec "$1" -- "dmesg | grep -c '$2' || true"; }

# on_nodes NAME CMD-FOR-NODE1 CMD-FOR-NODE2 ...: run in parallel, outputs in
# $TEST_TMP/NAME.nodeN; fails if any exited non-zero or printed FAIL.
on_nodes() {
	local name=$1 n=0 pids=() rc=0 c
	shift
	for c in "$@"; do
		n=$((n + 1))
		ae -t 600 exec "node$n" -- "$c" >"$TEST_TMP/$name.node$n" 2>&1 &
		pids+=($!)
	done
	for n in "${!pids[@]}"; do
		wait "${pids[$n]}" || rc=1
	done
	for n in $(seq "$#"); do
		sed "s/^/node$n: /" "$TEST_TMP/$name.node$n"
	done
	assert_no_match "$name: no failed check" '^FAIL' "$(cat "$TEST_TMP/$name".node*)"
	assert_eq "$name: every node exited 0" 0 "$rc"
	echo "ok: $name"
}

# wait_status HOST REGEX [SECS]: until HOST's view of the LITE cluster
# (lite-join --status, under $R, the tree on the guests) matches REGEX;
# fails after SECS (default 60), each answer bounded by 10 s. The answer
# goes through a file, not $(...): ssh's connection master would keep the
# output of a blocked command open past its bound.
wait_status() {
	local secs=${3:-60} out="" f=$TEST_TMP/status.$1
	local deadline=$((SECONDS + secs))
	while :; do
		ae -t 10 exec "$1" -- "${R:?}/lite/tools/lite-join --status" >"$f" 2>&1 || true
		out=$(cat "$f")
		grep -qE -- "$2" <<<"$out" && return 0
		[ "$SECONDS" -lt "$deadline" ] || break
		sleep 0.5
	done
	fail "$1: CLUSTER did not answer /$2/ within $secs s (last: $out)"
}

# guest_bg NAME HOST CMD: CMD (an as_user command, or any other) on HOST in
# the background for at most 400 s. The remote shell execs it, so its PID
# on HOST is in /tmp/NAME.pid (to signal it there); its output goes to
# $TEST_TMP/NAME.out, the local ssh's PID to the array BG_PIDS (for the
# teardown to kill).
BG_PIDS=()
guest_bg() {
	local cmd=$3
	if [[ $cmd == *setpriv* ]]; then
		cmd=${cmd/setpriv/exec setpriv}
	else
		cmd="exec $cmd"
	fi
	timeout 400 ssh -F "$(ae ssh-config)" "$2" "echo \$\$ >/tmp/$1.pid && $cmd" \
		>"$TEST_TMP/$1.out" 2>&1 &
	BG_PIDS+=("$!")
}

# checks_done WHAT PREFIX RC OUT: the verdict on a command that printed
# ok/FAIL lines (OUT) and exited with RC: OUT shown with PREFIX before
# each line, no line may start with FAIL and RC must be 0.
checks_done() {
	printf '%s\n' "$4" | sed "s/^/$2: /"
	assert_no_match "$1: no failed check" '^FAIL' "$4"
	assert_eq "$1: exit status" 0 "$3"
	echo "ok: $1 ($(grep -c '^ok' <<<"$4") checks)"
}

# run_checks WHAT HOST CMD [SECS]: CMD on HOST prints ok/FAIL lines; all
# must be ok and it must exit 0, within SECS (default 600).
run_checks() {
	local out rc=0
	out=$(ae -t "${4:-600}" exec "$2" -- "$3" 2>&1) || rc=$?
	checks_done "$1" "$2" "$rc" "$out"
}

# wait_line [-p PID] FILE REGEX [SECS [SHOW...]]: until FILE, the output
# of a command running in the background, has a line matching the
# extended REGEX. Fails after SECS (default 120), or at once when FILE has
# a line starting with FAIL (the command failed a check: waiting longer
# cannot help) or, with -p, when PID (the command's local process, its ssh)
# has exited. On failure it prints the files SHOW (default FILE): the
# command's side of the story, and a peer's too when the command depends
# on one.
wait_line() {
	local pid=""
	if [ "${1:-}" = -p ]; then
		pid=$2
		shift 2
	fi
	local file=$1 re=$2 secs=${3:-120} i
	local show=("${@:4}")
	[ "${#show[@]}" -gt 0 ] || show=("$file")
	for ((i = 0; i < secs * 5; i++)); do
		grep -qsE -- "$re" "$file" && return 0
		grep -qs '^FAIL' "$file" && break
		[ -z "$pid" ] || kill -0 "$pid" 2>/dev/null || break
		sleep 0.2
	done
	# It may have printed the line just before it exited.
	grep -qsE -- "$re" "$file" && return 0
	cat "${show[@]}" || true
	fail "never saw /$re/ in ${file##*/}"
}

# bg_start NAME HOST CMD: CMD on HOST in the background for at most 300 s,
# its output in $TEST_TMP/NAME.out, its stdin a fifo this shell holds open:
# bg_say writes it a line, bg_end closes it. The local ssh's PID is
# BG_PID[NAME] (for the teardown to kill).
declare -A BG_PID=() BG_FD=()
bg_start() {
	local name=$1 fd
	mkfifo "$TEST_TMP/$name.in"
	timeout 300 ssh -F "$(ae ssh-config)" "$2" "$3" <"$TEST_TMP/$name.in" >"$TEST_TMP/$name.out" 2>&1 &
	BG_PID[$name]=$!
	exec {fd}>"$TEST_TMP/$name.in"
	BG_FD[$name]=$fd
}

# bg_say NAME LINE: LINE to NAME's stdin.
bg_say() { echo "$2" >&"${BG_FD[$1]}"; }

# bg_wait NAME REGEX [OTHER...]: until NAME printed a line matching REGEX
# (wait_line, 120 s, not once NAME has ended); on failure the output of
# the background commands OTHER is shown too.
bg_wait() {
	local show=("$TEST_TMP/$1.out") o
	for o in "${@:3}"; do
		show+=("$TEST_TMP/$o.out")
	done
	wait_line -p "${BG_PID[$1]}" "$TEST_TMP/$1.out" "$2" 120 "${show[@]}"
}

# bg_end NAME: close its stdin and wait for it; all its checks must be ok
# and it must exit 0 (checks_done).
bg_end() {
	local fd=${BG_FD[$1]} rc=0
	exec {fd}>&-
	wait "${BG_PID[$1]}" || rc=$?
	unset "BG_PID[$1]"
	checks_done "$1" "$1" "$rc" "$(cat "$TEST_TMP/$1.out")"
}

# wait_joined [SECS]: wait_status until node1, node2 and node3 each see
# the cluster of the three, every one connected.
wait_joined() {
	local n
	for n in 1 2 3; do
		wait_status "node$n" "^node_id=$n nodes=3 .*connected=1,2,3$" ${1:+"$1"}
	done
}

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# requires WHAT...: skip the test unless everything it needs is here: each
# WHAT is 'root' (the test runs as uid 0) or a command (found in PATH).
# Otherwise it names what is missing on a 'SKIP: ' line and exits 77,
# which tests/run reports as SKIP (the test neither passed nor failed), as
# automake and blktests do. Call it first, before the test starts or traps
# anything: a skipped test has nothing to tear down.
requires() {
	local w missing=()
	for w in "$@"; do
		case $w in
		root) [ "$EUID" = 0 ] || missing+=(root) ;;
		*) command -v "$w" >/dev/null 2>&1 || missing+=("$w") ;;
		esac
	done
	[ "${#missing[@]}" -gt 0 ] || return 0
	echo "SKIP: needs $(printf '%s, ' "${missing[@]}" | sed 's/, $//')" >&2
	exit 77
}

assert_eq() { # WHAT EXPECTED ACTUAL
	[ "$2" = "$3" ] || fail "$1: expected '$2', got '$3'"
}

assert_match() { # WHAT REGEX TEXT
	grep -qE -- "$2" <<<"$3" || fail "$1: expected a match for /$2/ in:
$3"
}

assert_no_match() { # WHAT REGEX TEXT
	! grep -qE -- "$2" <<<"$3" || fail "$1: unexpected match for /$2/ in:
$3"
}

# expect_error WHAT REGEX CMD...: CMD must fail and say REGEX on stderr.
expect_error() {
	local what=$1 re=$2 err rc=0
	shift 2
	err=$("$@" 2>&1 >/dev/null) || rc=$?
	[ "$rc" != 0 ] || fail "$what: expected failure, got exit 0"
	assert_match "$what" "$re" "$err"
	echo "ok: $what -> $(head -n 1 <<<"$err")"
}

# Programs that need no privilege run on the guests as GUEST_USER, a user in
# group lite, from copies in GUEST_BIN (/root is 0700 in the guests).
GUEST_USER=liteuser GUEST_UID=2001
GUEST_BIN=/opt/lite-tests

# rxe_add_cmd: a guest's command line that brings back the Soft-RoCE device
# a test deleted ('rdma link del rxe0'; the next test on the shared cluster
# needs it) and waits up to 10 s for its port to be ACTIVE.
rxe_add_cmd() {
	echo "rdma link add rxe0 type rxe netdev fabric0 &&
	(for i in \$(seq 50); do grep -q ACTIVE /sys/class/infiniband/rxe0/ports/1/state && exit 0; sleep 0.2; done; exit 1)"
}

# guest_user_cmd USER UID [GROUP]: a guest's command line that creates USER
# with UID (the same on every guest: locks and barriers belong to a uid
# cluster-wide), in GROUP if given, unless an earlier test on the same
# guests did. The tests share the guests, so one UID is one name in all of
# them: liteuser 2001 and liteuser2 2002 (group lite), outsider 2003.
guest_user_cmd() {
	echo "{ id -u $1 >/dev/null 2>&1 || useradd -M -N -u $2 ${3:+-G $3} $1; }"
}

# guest_user_setup FILE...: on every guest, create GUEST_USER and install
# FILEs (guest paths) into GUEST_BIN.
guest_user_setup() {
	"$LITE_AE" exec all -- "$(guest_user_cmd "$GUEST_USER" "$GUEST_UID" lite) &&
		install -d -m 755 $GUEST_BIN && install -m 755 $* $GUEST_BIN/"
}

# as_user USER CMD: a remote command line that runs the simple command CMD
# as USER, with USER's groups from /etc/group and no capabilities.
as_user() {
	# shellcheck disable=SC2016 # $(id -g) is for the guest's shell
	printf 'cd / && setpriv --reuid=%s --regid=$(id -g %s) --init-groups -- %s' "$1" "$1" "$2"
}
