# shellcheck shell=bash
# Sourced by tests/integration/lite-api (ae, R, on_nodes, TEST_TMP, ...).
# lite-lib.h, the original LITE's user API, with the original's return
# values (docs/lite-api-compat.md): test_compat is built on every guest the
# way an outside program is (cc + pkg-config, the installed liblite, -Wall
# -Wextra -Werror) and run at once on the three nodes as the unprivileged
# user. It calls all 41 functions of the original header: a CAS loop on
# compare_swp's 0/1, fetch_add from every node summing exactly, a
# lock-protected counter, the barrier, query_port() == 0,
# register_application returning the port, send_reply_imm and the _fast
# calls returning lengths, one-way messages whose descriptor is
# IMM_SEND_ONLY_FLAG (0 through receive_message_fast), reply_and_receive
# returning 0, errors as -1 with errno; join fails for the user. Then join
# as root on a joined node returns the node's id.

# Every function lite-lib.h declares (the original's 41) is called.
compat_funcs=$(grep -oE '^(int|void|double) \*?(userspace_[a-z_]+|stick_this_thread_to_core)\(' \
	"$AE_ROOT/lite/lib/lite-lib.h" | sed -E 's/.* \*?//; s/\($//' | sort -u)
assert_eq "compat: lite-lib.h declares 41 functions" 41 "$(echo "$compat_funcs" | wc -l)"
compat_missing=$(for f in $compat_funcs; do
	grep -q "\\b$f(" "$AE_ROOT/lite/tests/test_compat.c" || echo "$f"
done)
assert_eq "compat: test_compat calls every one" "" "$compat_missing"

ae exec all -- "cc -Wall -Wextra -Werror -o $GUEST_BIN/test_compat $R/lite/tests/test_compat.c \$(pkg-config --cflags --libs lite)"
# Any manager address will do on a joined node; this is the real one.
compat_mgr=$(ae exec node1 -- "ip -4 -o addr show dev fabric0" | awk '{ sub("/.*", "", $4); print $4; exit }')
[ -n "$compat_mgr" ] || fail "compat: no IPv4 address on node1's fabric0"

c=$(as_user "$GUEST_USER" "$GUEST_BIN/test_compat 3 $compat_mgr 18500")
on_nodes compat "$c" "$c" "$c"
assert_eq "compat: all ok on every node" 3 \
	"$(cat "$TEST_TMP"/compat.node* | grep -c '^ok: node [123]: all ok$')"
assert_match "compat: the three counters exact" \
	'^ok: node 1: fetch_add, CAS-loop and locked counters all 60$' \
	"$(cat "$TEST_TMP/compat.node1")"
assert_match "compat: the server saw every call" '^ok: node 3: served every call' \
	"$(cat "$TEST_TMP/compat.node3")"

out=$(ae exec node2 -- "$GUEST_BIN/test_compat --join-root $compat_mgr 18500")
echo "$out"
assert_match "compat: join as root on a joined node returns its id" \
	'^ok: node 2: join as root on a joined node returns its id$' "$out"
