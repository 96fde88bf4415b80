# shellcheck shell=bash
# Atomics (sourced by lite-api): fetch_add, compare_swap and swap from all
# three nodes on an LMR of node1 (test_sync fetch-add, as the unprivileged
# user) give exact results, and run where they should: with NIC atomics
# (rxe has them) node2 and node3 post RDMA atomic work requests and send no
# ATOMIC control message, node1 reaches its own LMR through its loopback QP
# and its CPU runs none. Then node1 creates its LMR with nic_atomics=0:
# the same exact results, every remote atomic now an ATOMIC control
# message served on node1's CPU. Per node and round: iter fetch_adds,
# one compare_swap, iter swaps (on the NIC each a compare_swap loop).

ae exec all -- "install -m 755 $R/lite/tests/test_sync $GUEST_BIN/ &&
	{ mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug; }"

# counters NODE: node's LITE counters as "name value" lines.
counters() {
	ae exec "$1" -- cat /sys/kernel/debug/lite/counters
}

# delta NAME BEFORE AFTER: how much counter NAME grew.
delta() {
	local b a
	b=$(awk -v k="$1" '$1 == k { print $2 }' <<<"$2")
	a=$(awk -v k="$1" '$1 == k { print $2 }' <<<"$3")
	if [ -z "$b" ] || [ -z "$a" ]; then
		fail "no counter $1 in /sys/kernel/debug/lite/counters"
	fi
	echo $((a - b))
}

# atomics_round NAME ID ITER: test_sync fetch-add on every node, LMR on
# node1; checks the totals, the one CAS winner and that no swap was lost.
atomics_round() {
	local name=$1 put=0 got=0 final p g
	local c
	c=$(as_user "$GUEST_USER" "$GUEST_BIN/test_sync fetch-add 1 $2 $3")
	on_nodes "$name" "$c" "$c" "$c"
	assert_eq "$name: exactly one CAS winner" 1 "$(cat "$TEST_TMP/$name".node* | grep -c 'info cas won')"
	while read -r _ _ _ p _ g; do
		put=$((put + p))
		got=$((got + g))
	done < <(grep -h '^info swap put ' "$TEST_TMP/$name".node*)
	final=$(awk '/^info swap final / { print $4 }' "$TEST_TMP/$name.node1")
	[ -n "$final" ] || fail "$name: node1 printed no final swap value"
	assert_eq "$name: every value swapped in came out once (put = got + final)" "$put" "$((got + final))"
	echo "ok: $name: $(grep -c '^info swap put' <<<"$(cat "$TEST_TMP/$name".node*)") nodes swapped, put = got + final = $put"
}

# counted_round NAME ID ITER: atomics_round, with every node's counters
# from just before it in before[N] and from just after it in after[N].
counted_round() {
	local n
	for n in 1 2 3; do
		before[$n]=$(counters "node$n")
	done
	atomics_round "$@"
	for n in 1 2 3; do
		after[$n]=$(counters "node$n")
	done
}

iter=200
declare -A before after
for n in 1 2 3; do
	assert_match "node$n runs atomics on the NIC" ' atomics=nic ' "$(ae exec "node$n" -- "$R/lite/tools/lite-join --status")"
done
counted_round atomics-nic 9100 "$iter"
# node1 owns the LMR: its own atomics go through its loopback QP.
assert_eq "node1's CPU ran no atomic" 0 "$(delta atomic_cpu "${before[1]}" "${after[1]}")"
assert_eq "node1 served no ATOMIC message" 0 "$(delta ctrl_served_atomic "${before[1]}" "${after[1]}")"
lb=$(delta atomic_wr_loopback "${before[1]}" "${after[1]}")
[ "$lb" -ge $((2 * iter)) ] || fail "node1: $lb loopback atomic work requests, want >= $((2 * iter))"
for n in 2 3; do
	wr=$(delta atomic_wr_remote "${before[$n]}" "${after[$n]}")
	[ "$wr" -ge $((2 * iter)) ] || fail "node$n: $wr atomic work requests, want >= $((2 * iter))"
	assert_eq "node$n sent no ATOMIC message" 0 "$(delta ctrl_sent_atomic "${before[$n]}" "${after[$n]}")"
	echo "ok: node$n: $wr RDMA atomic work requests, 0 ATOMIC messages"
done
echo "ok: node1: $lb loopback atomic work requests, none on its CPU"

# The fallback: an LMR node1 creates with nic_atomics=0 runs its atomics on
# node1's CPU, for everyone.
ae exec node1 -- "echo 0 >/sys/module/lite/parameters/nic_atomics"
assert_match "node1 reports CPU atomics" ' atomics=cpu ' "$(ae exec node1 -- "$R/lite/tools/lite-join --status")"
counted_round atomics-cpu 9101 "$iter"
ae exec node1 -- "echo 1 >/sys/module/lite/parameters/nic_atomics"
cpu=$(delta atomic_cpu "${before[1]}" "${after[1]}")
[ "$cpu" -ge $((6 * iter)) ] || fail "node1: its CPU ran $cpu atomics, want >= $((6 * iter))"
for n in 2 3; do
	assert_eq "node$n posted no atomic work request" 0 "$(delta atomic_wr_remote "${before[$n]}" "${after[$n]}")"
	msgs=$(delta ctrl_sent_atomic "${before[$n]}" "${after[$n]}")
	[ "$msgs" -ge $((2 * iter)) ] || fail "node$n: $msgs ATOMIC messages, want >= $((2 * iter))"
done
echo "ok: nic_atomics=0: $cpu atomics on node1's CPU, remote ones as ATOMIC messages"
