# shellcheck shell=bash
# Loss, counted around every figure run: what the fabric dropped and what
# the transports did about it, so a reader can tell a result the fabric
# bent from one it did not. Per node: rxe's (or the NIC's) hw_counters of
# the port LITE and perftest use, the fabric net device's drop and error
# counters, its queueing discipline's drops, the packets the kernel's
# per-CPU backlog dropped (softnet_stat) and TCP's retransmitted segments;
# on the controller (which
# carries the local cluster's fabric as UDP datagrams between QEMUs): UDP
# receive-buffer errors. Before and after the run into DIR/stats/loss.csv
# (host,counter,before,after,delta), and their totals into provenance.txt
# as one line:
#   loss: completer_retry_err=N retry_exceeded_err=N rcvd_seq_err=N ...
# The same snapshots carry each host's 1-minute load average, which
# provenance.txt's load: line gives before -> after (a busy host bends
# timings as loss does).

# The counters the loss: line totals, in its order: rxe's names (most
# RDMA NICs name the first ones alike), then ours.
LOSS_KEYS="completer_retry_err retry_exceeded_err rcvd_seq_err duplicate_request out_of_seq_request rcvd_rnr_err send_rnr_err nic_rx_dropped nic_rx_errors nic_tx_dropped qdisc_dropped softnet_dropped tcp_retrans host_udp_rcvbuf_errors"

# loss_host_cmd HOST: a command printing HOST's counters, one "name value"
# per line (hw_counters under their own names, then nic_*, tcp_retrans).
loss_host_cmd() {
	local d
	d=/sys/class/infiniband/$(inv_var "$1" rdma_dev)/ports/$(inv_var "$1" ib_port)
	cat <<EOF
d=$d
for f in \$d/hw_counters/*; do [ -r "\$f" ] && echo "\${f##*/} \$(cat "\$f")"; done
gi=\$($(inv_gid_cmd "$1"))
nd=\$(cat \$d/gid_attrs/ndevs/\$gi 2>/dev/null)
for c in rx_dropped rx_errors tx_dropped; do
	[ -r "/sys/class/net/\$nd/statistics/\$c" ] && echo "nic_\$c \$(cat "/sys/class/net/\$nd/statistics/\$c")"
done
[ -z "\$nd" ] || ! command -v tc >/dev/null ||
	tc -s qdisc show dev "\$nd" | awk '/ dropped / { for (i = 1; i < NF; i++) if (\$i == "(dropped") { sub(",", "", \$(i + 1)); s += \$(i + 1) } } END { print "qdisc_dropped", s + 0 }'
awk '{ v = 0; for (i = 1; i <= length(\$2); i++) v = v * 16 + index("0123456789abcdef", substr(tolower(\$2), i, 1)) - 1; s += v }
	END { print "softnet_dropped", s + 0 }' /proc/net/softnet_stat 2>/dev/null
awk '/^Tcp:/ { if (!h) { for (i = 1; i <= NF; i++) k[i] = \$i; h = 1 } else for (i = 1; i <= NF; i++) if (k[i] == "RetransSegs") print "tcp_retrans", \$i }' /proc/net/snmp
echo "load1 \$(cut -d' ' -f1 /proc/loadavg)"
EOF
}

# loss_local: the controller's UDP receive-buffer errors ("name value").
loss_local() {
	awk '/^Udp:/ { if (!h) { for (i = 1; i <= NF; i++) k[i] = $i; h = 1 } else for (i = 1; i <= NF; i++) if (k[i] == "RcvbufErrors") print "host_udp_rcvbuf_errors", $i }' /proc/net/snmp
	echo "load1 $(cut -d' ' -f1 /proc/loadavg)"
}

# loss_snapshot DIR TAG: every host's counters into DIR/stats/loss.TAG.HOST
# (and the controller's into DIR/stats/loss.TAG.controller). A host that
# does not answer leaves its file empty: its deltas are then missing, not 0.
loss_snapshot() {
	local dir=$1/stats tag=$2 h
	local -A pid=()
	mkdir -p "$dir"
	for h in "${INV_NODES[@]}"; do
		ae_ssh "$h" "$(loss_host_cmd "$h")" >"$dir/loss.$tag.$h" 2>/dev/null &
		pid[$h]=$!
	done
	loss_local >"$dir/loss.$tag.controller"
	for h in "${INV_NODES[@]}"; do
		wait "${pid[$h]}" || {
			ae_warn "$h: loss counters not read ($tag)"
			: >"$dir/loss.$tag.$h"
		}
	done
}

# loss_report DIR: DIR/stats/loss.csv from the two snapshots, and the
# totals of LOSS_KEYS as provenance.txt's loss: line (a counter no host
# has is left out; "hosts_missing=N" when a snapshot is empty).
loss_report() {
	local dir=$1 h missing=0 line
	{
		echo "host,counter,before,after,delta"
		for h in "${INV_NODES[@]}" controller; do
			if [ ! -s "$dir/stats/loss.before.$h" ] || [ ! -s "$dir/stats/loss.after.$h" ]; then
				missing=$((missing + 1))
				continue
			fi
			awk -v h="$h" 'NR == FNR { b[$1] = $2; next }
				($1 in b) && $1 != "load1" { printf "%s,%s,%s,%s,%d\n", h, $1, b[$1], $2, $2 - b[$1] }' \
				"$dir/stats/loss.before.$h" "$dir/stats/loss.after.$h"
		done
	} >"$dir/stats/loss.csv"
	line=$(awk -F, -v keys="$LOSS_KEYS" 'NR > 1 { t[$2] += $5; seen[$2] = 1 }
		END { n = split(keys, k, " "); for (i = 1; i <= n; i++) if (seen[k[i]]) printf "%s%s=%d", (o++ ? " " : ""), k[i], t[k[i]] }' \
		"$dir/stats/loss.csv")
	[ "$missing" = 0 ] || line+=" hosts_missing=$missing"
	echo "loss: $line" >>"$dir/provenance.txt"
	line=""
	for h in controller "${INV_NODES[@]}"; do
		line+=" $h=$(sed -n 's/^load1 //p' "$dir/stats/loss.before.$h")->$(sed -n 's/^load1 //p' "$dir/stats/loss.after.$h")"
	done
	echo "load:$line (1-minute load average, before -> after the run)" >>"$dir/provenance.txt"
}
