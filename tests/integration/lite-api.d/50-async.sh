# shellcheck shell=bash
# Part of tests/integration/lite-api (sourced): reads and writes posted
# without waiting (lite_post_read/lite_post_write, lite_poll, lite_fence;
# lite/tests/test_async.c), as the unprivileged user: posted writes then
# reads of node2's LMR with the data verified (and a local LMR's), poll's
# max and timeout, the fence, the per-file outstanding limit (EAGAIN), bad
# handle, range, size, password, pointer and permission errnos; a process
# that exits with 64 operations in flight (three times); the owner freeing the LMR
# while a mapper keeps operations in flight (EKEYREVOKED on later posts,
# every posted one completes); the per-user limit over several open files
# (EDQUOT). dmesg must stay clean.

ae exec all -- "install -m 755 $R/lite/tests/test_async $GUEST_BIN/"
TA() { as_user "$GUEST_USER" "$GUEST_BIN/test_async $1"; }

out=$(ae -t 300 exec node1 -- "$(TA "data 2")") || { echo "$out"; fail "async: data checks failed"; }
echo "$out" | grep -E '^(ok|FAIL|info)' | sed 's/^/async: /'
assert_match "async: data run passed" '^PASS: 0 failure' "$out"
assert_match "async: remote reads verified" '^ok   remote: [0-9]+ posted reads return the data written' "$out"
assert_match "async: outstanding limit" '^ok   the [0-9]+-th unreaped post gets EAGAIN' "$out"

# Exit with operations in flight, three times, then the module's state is
# what it was: nothing leaked, no warning.
for i in 1 2 3; do
	out=$(ae -t 120 exec node1 -- "$(TA "exit-busy 3")") || { echo "$out"; fail "async: exit-busy $i failed"; }
	assert_match "async: exit-busy $i posted" '^ok   posted 64 16 KiB' "$out"
done
ae dmesg-check

# Revocation while operations are in flight: node2 owns and frees after 3 s.
ssh_cfg=$(ae ssh-config)
timeout 120 ssh -F "$ssh_cfg" node2 "$(TA "owner 0xa57c 3")" >"$TEST_TMP/async-owner.out" 2>&1 &
owner_pid=$!
out=$(ae -t 120 exec node1 -- "$(TA "revoked 2 0xa57c")") || true
wait "$owner_pid" || { cat "$TEST_TMP/async-owner.out"; fail "async: the owner failed"; }
while IFS= read -r line; do echo "async revoked: $line"; done <<<"$out"
assert_match "async: revoked run passed" '^PASS: 0 failure' "$out"
assert_match "async: owner freed it" '^ok   owner frees' "$(cat "$TEST_TMP/async-owner.out")"
ae dmesg-check

# The per-user limit over several open files: with user_async_mb=1, one
# process holds 768 KiB unreaped; another of the same user gets EDQUOT
# after 256 KiB, and 768 KiB again once the first reaped and exited.
ae exec node1 -- "echo 1 >/sys/module/lite/parameters/user_async_mb"
timeout 120 ssh -F "$ssh_cfg" node1 "$(TA "hold 2 768 8")" >"$TEST_TMP/async-hold.out" 2>&1 &
hold_pid=$!
wait_line -p "$hold_pid" "$TEST_TMP/async-hold.out" '^info posted' 60
assert_match "async: the first file holds 768 KiB" '^info posted 768 KiB: ok' "$(cat "$TEST_TMP/async-hold.out")"
out=$(ae -t 120 exec node1 -- "$(TA "hold 2 768 0")") || true
assert_match "async: the user's second file stops at the user's MiB" '^info posted 256 KiB: EDQUOT' "$out"
wait "$hold_pid" || { cat "$TEST_TMP/async-hold.out"; fail "async: the holder failed"; }
out=$(ae -t 120 exec node1 -- "$(TA "hold 2 768 0")") || true
assert_match "async: charged bytes came back when reaped" '^info posted 768 KiB: ok' "$out"
ae exec node1 -- "echo 256 >/sys/module/lite/parameters/user_async_mb"
echo "ok: async: user_async_mb holds over several open files"
echo "ok: async"
