# shellcheck shell=bash
# Running one perftest measurement between two hosts of the inventory.

AE_PERFTEST_PORT=${AE_PERFTEST_PORT:-18515}

# pt_port_args HOST: perftest's device, port, GID index and QP timeout on
# HOST (each side names its own; the GID index and timeout are LITE's
# there; perftest's retry count is 7, fixed, as qp_retry's default).
pt_port_args() {
	echo "-d $(inv_var "$1" rdma_dev) -i $(inv_var "$1" ib_port) -x \$($(inv_gid_cmd "$1")) -u $(inv_var "$1" qp_timeout)"
}

# pt_run TOOL SERVER CLIENT SIZE ITERS OUTDIR TAG: run perftest TOOL (e.g.
# ib_write_lat) with the server on SERVER and the client on CLIENT
# (ae_pair); leave the client's report in OUTDIR/TAG.json, both sides'
# output in OUTDIR/TAG.{server,client}.log and their command lines in
# OUTDIR/TAG.cmdline ("server|client HOST COMMAND", one line each: the QP
# timeout perftest was given, which it does not print; ae-scripts/qp-settings).
# Returns non-zero on any failure, within AE_TIMEOUT, and says why in
# OUTDIR/TAG.error.
pt_run() {
	local tool=$1 srv=$2 cli=$3 size=$4 iters=$5 out=$6 tag=$7
	local common rjson srv_cmd cli_cmd
	common="-s $size -n $iters -F -p $AE_PERFTEST_PORT"
	rjson="/tmp/lite-ae-$tag.$$.json"
	srv_cmd="$tool $(pt_port_args "$srv") $common"
	cli_cmd="$tool $(pt_port_args "$cli") $common --out_json --out_json_file=$rjson $(inv_var "$srv" fabric_ip)"
	if [ "$AE_DRY_RUN" != 1 ]; then
		mkdir -p "$out"
		printf 'server %s %s\nclient %s %s\n' "$srv" "$srv_cmd" "$cli" "$cli_cmd" >"$out/$tag.cmdline"
	fi
	# perftest's server prints nothing until a client comes: wait for its port.
	if ! ae_pair --merge --fetch "$rjson" "$tool client" "$srv" "$srv_cmd" "tcp:$AE_PERFTEST_PORT" \
		"$cli" "$cli_cmd" "$out/$tag"; then
		echo "$tool $srv<-$cli: $AE_PAIR_ERR" >"$out/$tag.error"
		return 1
	fi
	[ "$AE_DRY_RUN" = 1 ] || sed -n '/^{/,$p' "$out/$tag.client.log" >"$out/$tag.json"
}
