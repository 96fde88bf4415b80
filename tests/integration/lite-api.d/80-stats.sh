# shellcheck shell=bash
# Counters (lite/module/stats.c; 'lite-ae stats'): after the parts above, every
# node has the debugfs counters and a per-peer table whose header names
# each column; across the nodes, the peers' rows count the one-sided
# operations, RPC messages and control requests those parts made.
ae stats "$TEST_TMP/stats"
cols='node rdma_ops rdma_bytes rpc_sent rpc_bytes ring_full timeouts revoked ctrl_sent ctrl_dropped ctrl_resent rdma_retried'
for n in 1 2 3; do
	f=$TEST_TMP/stats/node$n.txt
	sed "s/^/node$n: /" "$f"
	assert_match "node$n: counters" '^ctrl_sent_alloc [0-9]+$' "$(cat "$f")"
	assert_match "node$n: peers header" "^$cols\$" "$(cat "$f")"
done
# Sum each column over every node's peer rows (the lines after '# peers'
# that start with a node id).
sums=$(awk '/^# peers/ { p = 1; next } p && /^[0-9]+ / { for (i = 2; i <= NF; i++) s[i] += $i }
	END { for (i = 2; i <= 9; i++) printf "%d ", s[i]; print "" }' "$TEST_TMP"/stats/node*.txt)
read -r ops bytes rpcs rpc_bytes _ _ _ ctrl <<<"$sums"
echo "sums over all nodes: $cols -> $sums"
[ "$ops" -gt 0 ] && [ "$bytes" -ge "$ops" ] || fail "no one-sided operations counted: $sums"
[ "$rpcs" -gt 0 ] && [ "$rpc_bytes" -ge "$rpcs" ] || fail "no RPC messages counted: $sums"
[ "$ctrl" -gt 0 ] || fail "no control requests counted: $sums"
echo "ok: counters"
