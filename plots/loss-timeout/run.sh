#!/usr/bin/env bash
# Retransmissions against the QP ACK timeout on the local cluster: ROUNDS
# rounds (default 2) of a QUICK qos figure (LITE RPCs under 15 s of
# synchronous 64 KiB writes) at qp_timeout 17 (0.54 s) and 19 (2.1 s), in
# a shuffled order, LITE reinstalled for each. Writes OUT (default
# runs.csv beside this script): round,qp_timeout,result, then the loss:
# line's counters of that run. If the fabric lost packets, a longer
# timeout would delay the retries, not remove them; if the ACKs only came
# late, fewer retries remain.
set -euo pipefail

here=$(dirname "$(readlink -f "$0")")
root=$(readlink -f "$here/../..")
rounds=${ROUNDS:-2}
out=${OUT:-$here/runs.csv}
inv=${INVENTORY:-$root/inventory/local}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
keys="completer_retry_err retry_exceeded_err rcvd_seq_err duplicate_request nic_rx_dropped nic_tx_dropped qdisc_dropped softnet_dropped host_udp_rcvbuf_errors"

echo "round,qp_timeout,result,${keys// /,}" >"$out"
for ((r = 1; r <= rounds; r++)); do
	for t in $(printf '%s\n' 17 19 | shuf); do
		# The same cluster (its state is named after the file), another timeout.
		mkdir -p "$tmp/$t"
		sed "s/^qp_timeout = .*/qp_timeout = $t/" "$inv" >"$tmp/$t/$(basename "$inv")"
		grep -q "^qp_timeout = $t\$" "$tmp/$t/$(basename "$inv")" ||
			{ echo "loss-timeout: $inv has no 'qp_timeout = N' line" >&2; exit 1; }
		AE_STATE_DIR=$root/.run/$(basename "$inv") "$root/ae-scripts/lite-ae" -i "$tmp/$t/$(basename "$inv")" install
		dir=$(AE_STATE_DIR=$root/.run/$(basename "$inv") QUICK=1 "$root/ae-scripts/lite-ae" -i "$tmp/$t/$(basename "$inv")" run qos 2>&1 |
			tee /dev/stderr | sed -n 's/.*qos: results go to //p')
		[ -d "$dir" ] || { echo "loss-timeout: the qos run left no result directory" >&2; exit 1; }
		sed -n 's/^loss: //p' "$dir/provenance.txt" | awk -v r="$r" -v t="$t" -v d="${dir##*/}" -v keys="$keys" '
			{ for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] } }
			END { n = split(keys, k, " "); printf "%s,%s,%s", r, t, d; for (i = 1; i <= n; i++) printf ",%s", v[k[i]]; print "" }' >>"$out"
	done
done
