# shellcheck shell=bash
# Running one perftest measurement between two hosts of the inventory.

AE_PERFTEST_PORT=${AE_PERFTEST_PORT:-18515}

# pt_wait_listen HOST PORT SECS: wait until a TCP listener is on PORT.
pt_wait_listen() {
	local host=$1 port=$2 deadline=$((SECONDS + $3))
	while [ "$SECONDS" -lt "$deadline" ]; do
		ssh -F "$AE_SSH_CONFIG" "$host" -- "ss -Hltn 'sport = :$port' | grep -q ." 2>/dev/null &&
			return 0
		sleep 0.3
	done
	return 1
}

# pt_run TOOL SERVER CLIENT SIZE ITERS OUTDIR TAG: run perftest TOOL (e.g.
# ib_write_lat) with the server on SERVER and the client on CLIENT; leave
# the client's report in OUTDIR/TAG.json and both sides' output in
# OUTDIR/TAG.{server,client}.log. Returns non-zero on any failure, within
# AE_TIMEOUT.
pt_run() {
	local tool=$1 srv=$2 cli=$3 size=$4 iters=$5 out=$6 tag=$7
	local dev gid port srv_pid rc=0 common rjson
	dev=$(inv_var "$srv" rdma_dev) gid=$(inv_var "$srv" gid_index) port=$(inv_var "$srv" ib_port)
	[ "$(inv_var "$cli" gid_index)" = "$gid" ] ||
		ae_warn "$cli and $srv use different gid_index; perftest needs the same -x on both"
	common="-d $dev -i $port -x $gid -s $size -n $iters -F -p $AE_PERFTEST_PORT"
	rjson="/tmp/lite-ae-$tag.$$.json"
	if [ "$AE_DRY_RUN" = 1 ]; then
		printf '[dry-run] %s: %s\n' "$srv" "$tool $common"
		printf '[dry-run] %s: %s\n' "$cli" "$tool $common --out_json --out_json_file=$rjson $(inv_var "$srv" fabric_ip)"
		return 0
	fi
	mkdir -p "$out"
	timeout --kill-after=5 "$AE_TIMEOUT" ssh -F "$AE_SSH_CONFIG" "$srv" -- \
		"exec timeout $AE_TIMEOUT $tool $common" >"$out/$tag.server.log" 2>&1 &
	srv_pid=$!
	if ! pt_wait_listen "$srv" "$AE_PERFTEST_PORT" 30; then
		kill "$srv_pid" 2>/dev/null || true
		wait "$srv_pid" 2>/dev/null || true
		echo "$tool server on $srv did not start listening: $(tail -n 2 "$out/$tag.server.log" | tr '\n' ' ')" >"$out/$tag.error"
		return 1
	fi
	ae_run_bounded "$AE_TIMEOUT" "$cli: $tool client" ssh -F "$AE_SSH_CONFIG" "$cli" -- \
		"timeout $AE_TIMEOUT $tool $common --out_json --out_json_file=$rjson $(inv_var "$srv" fabric_ip) && cat $rjson; rc=\$?; rm -f $rjson; exit \$rc" \
		>"$out/$tag.client.log" 2>&1 || rc=$?
	wait "$srv_pid" || [ "$rc" != 0 ] || rc=1
	if [ "$rc" != 0 ]; then
		echo "$tool $srv<-$cli failed (exit $rc): $(grep -v '^[[:space:]]*$' "$out/$tag.client.log" | tail -n 2 | tr '\n' ' ')" >"$out/$tag.error"
		return 1
	fi
	sed -n '/^{/,$p' "$out/$tag.client.log" >"$out/$tag.json"
}
