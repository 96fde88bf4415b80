# shellcheck shell=bash
# Part of tests/integration/lite-api (sourced): a low-priority writer held
# back behind a high-priority stream dies at once on SIGKILL. As the
# unprivileged user: a high-priority RPC stream node1 -> node2 runs for
# 20 s; meanwhile 2 threads of low-priority 64 KiB writes from node1 wait
# behind it, with prio_low_max_wait_us raised to 30 s so that a hold that
# ignored the kill would last until the stream ends, 15 s after the kill;
# the writer is gone within 5 s of SIGKILL (3.1 s was seen on the debug
# kernel on a loaded host, 0.3 s on the stock one), the stream
# finishes, and dmesg stays clean.

ae exec all -- "install -m 755 $R/microbench/lite_bench $GUEST_BIN/"
ae exec node1 -- "echo 30000000 >/sys/module/lite/parameters/prio_low_max_wait_us"
ssh_cfg=$(ae ssh-config)
timeout 60 ssh -F "$ssh_cfg" node2 "$(as_user "$GUEST_USER" "$GUEST_BIN/lite_bench -m rpc --lite-port 7")" \
	>"$TEST_TMP/prio-kill-server.out" 2>&1 &
srv_pid=$!
sleep 3
# shellcheck disable=SC2016 # expanded by the guest's shell
out=$(ae -t 90 exec node1 -- "cd /; g=\$(id -g $GUEST_USER)
	setpriv --reuid=$GUEST_USER --regid=\$g --init-groups -- $GUEST_BIN/lite_bench -m rpc --lite-port 7 --prio high -s 64 -D 20 -w 0 -r 1 2 >/dev/null & c=\$!
	sleep 2
	setpriv --reuid=$GUEST_USER --regid=\$g --init-groups -- $GUEST_BIN/lite_bench -m tput -o write --prio low -t 2 -s 64K --mr-total 1M -D 30 -w 0 -r 1 2 >/tmp/prio-kill-writer.log 2>&1 & w=\$!
	sleep 3
	kill -0 \$w && echo writer_alive || cat /tmp/prio-kill-writer.log
	t0=\$(date +%s%N); kill -9 \$w; wait \$w; t1=\$(date +%s%N)
	echo killed_ms=\$(( (t1 - t0) / 1000000 ))
	wait \$c; echo stream_rc=\$?") || true
ae exec node1 -- "echo 100000 >/sys/module/lite/parameters/prio_low_max_wait_us"
wait "$srv_pid" || { cat "$TEST_TMP/prio-kill-server.out"; fail "prio-kill: the echo server failed"; }
while IFS= read -r line; do echo "prio-kill: $line"; done <<<"$out"
assert_match "prio-kill: the writer was running" '^writer_alive$' "$out"
ms=$(sed -n 's/^killed_ms=//p' <<<"$out")
if [ -z "$ms" ] || [ "$ms" -ge 5000 ]; then
	fail "prio-kill: the held writer took ${ms:-?} ms to die after SIGKILL"
fi
assert_match "prio-kill: the stream finished" '^stream_rc=0$' "$out"
ae dmesg-check
