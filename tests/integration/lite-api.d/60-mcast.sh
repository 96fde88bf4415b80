# shellcheck shell=bash
# Part of tests/integration/lite-api (sourced): the multicast call,
# lite_rpc_mcall / LITE_IOC_MCALL, as the unprivileged user. Servers on
# node2 and node3 answer with their node id and a hash of the request;
# node1 calls both and checks each slot byte-exact and each status: a port
# registered on one node only (ECONNREFUSED for the other), a request above
# one port's max_size (EMSGSIZE), reply slots too small (EMSGSIZE), this
# node and a non-member in the list (ENOTCONN), 16 destinations, a 1 MiB
# request, bad arguments (EINVAL, EFAULT), a node that never answers
# (ETIMEDOUT after rpc_timeout_ms, lowered to 3 s on node1 here, while the
# other's answer arrives), a signal during a call (EINTR). Also prints a
# latency comparison (mcall to 2 nodes against two sequential calls);
# nothing is asserted on it.

ae exec all -- "install -m 755 $R/lite/tests/test_mcast $GUEST_BIN/"
mcast_timeout=$(ae exec node1 -- cat /sys/module/lite/parameters/rpc_timeout_ms)
ae exec node1 -- "echo 3000 > /sys/module/lite/parameters/rpc_timeout_ms"
# Ports: 40 echo on both, 41 (max 4096) on node2 only, 42 echo on node2
# and silent on node3.
M() { as_user "$GUEST_USER" "$GUEST_BIN/test_mcast $1"; }
on_nodes mcast "$(M "client 2 3 40 41 42")" \
	"$(M "server 100 40:1048576:echo 41:4096:echo 42:4096:echo")" \
	"$(M "server 100 40:1048576:echo 42:4096:silent")"
ae exec node1 -- "echo $mcast_timeout > /sys/module/lite/parameters/rpc_timeout_ms"
assert_match "mcast: the client's checks ran" '^PASS: 0 failure' "$(cat "$TEST_TMP/mcast.node1")"
for n in 2 3; do
	assert_match "mcast: node$n's server stopped on QUIT" '^info QUIT on port 40' "$(cat "$TEST_TMP/mcast.node$n")"
done
assert_match "mcast: the silent node timed out alone" '^ok +one silent: node 3 status ETIMEDOUT' "$(cat "$TEST_TMP/mcast.node1")"
grep '^info bench' "$TEST_TMP/mcast.node1" || true
