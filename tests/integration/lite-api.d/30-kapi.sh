# shellcheck shell=bash
# The kernel API (lite/include/lite_kapi.h), by lite/tests/kapi/lite_kapi_test.ko
# (built by `lite-ae install`): role=server on node2 and node3, role=client
# on node1, whose load runs one check per exported call and fails if one
# failed. Every liteapi_* symbol that lite/module/*.c exports (read now, so a new
# export without a check fails here) must have an "ok: <name>" line; no
# node may log a FAIL. Both roles must unload; the module can fail (shown
# with inject_fail=1). Left behind until lite.ko is unloaded (the kernel
# API has no call to release them): ports 60 and 61 stay registered to the
# kernel's context on node2/3 and node1, and a few locks exist.
# Sourced by tests/integration/lite-api (ae, R, TEST_TMP, assert_*).

kapi_ko=$R/lite/tests/kapi/lite_kapi_test.ko
# The lines of this module since its last load on a node.
kapi_log() {
	ae exec "$1" -- "dmesg | awk '/lite_kapi_test: (client|server): start/ { out = \"\" } /lite_kapi_test: / { out = out \$0 \"\\n\" } END { printf \"%s\", out }'"
}

mapfile -t kapi_exports < <(sed -n 's/^EXPORT_SYMBOL\(_GPL\)\?(\(liteapi_[a-z0-9_]*\));$/\2/p' "$AE_ROOT"/lite/module/*.c | sort -u)
[ "${#kapi_exports[@]}" -ge 33 ] || fail "kapi: only ${#kapi_exports[@]} exported liteapi_* calls found in lite/module/*.c"

for n in node2 node3; do
	ae exec "$n" -- "[ ! -e /sys/module/lite_kapi_test ] || rmmod lite_kapi_test; insmod $kapi_ko role=server"
done
rc=0
ae -t 300 exec node1 -- "insmod $kapi_ko role=client servers=2,3 nodes=3" || rc=$?
out=$(kapi_log node1)
echo "$out"
assert_no_match "kapi: no failed check" 'FAIL' "$out"
assert_eq "kapi: the client's load succeeded" 0 "$rc"
for s in "${kapi_exports[@]}"; do
	assert_match "kapi: $s checked" "lite_kapi_test: ok: $s\$" "$out"
done
ae exec node1 -- rmmod lite_kapi_test

# A failing check fails the load, and says which.
rc=0
ae exec node1 -- "insmod $kapi_ko role=client servers=2,3 only=liteapi_get_total_node inject_fail=1" || rc=$?
out=$(kapi_log node1)
assert_eq "kapi: an injected failure fails the load" 1 "$((rc != 0))"
assert_match "kapi: the failed check is named" 'FAIL: liteapi_get_total_node: injected' "$out"
assert_no_match "kapi: no other check ran" 'ok: ' "$out"

# The servers stop cleanly (their kthread is waiting in receive_message).
for n in node2 node3; do
	ae -t 60 exec "$n" -- rmmod lite_kapi_test
	out=$(kapi_log "$n")
	awk -v p="$n: " '{ print p $0 }' <<<"$out"
	assert_no_match "kapi: $n server: no failed check" 'FAIL' "$out"
	assert_match "kapi: $n server stopped" 'server: stopped \(0 failed checks\)' "$out"
done
echo "ok: kapi (${#kapi_exports[@]} exported calls checked)"
