# shellcheck shell=bash
# Inventory parser. The format is documented in inventory/README.md.
#
# After inv_load FILE:
#   INV_FILE      the file read
#   INV_NODES     array of node host names, in file order (node ids follow it)
#   INV_MANAGER   the manager's host name
#   INV_VCLUSTER  1 if the file describes the local QEMU cluster, else 0
#   inv_var HOST KEY   a host's resolved value (host line > [vars] > default)
#   inv_vc KEY         a [vcluster] value

# Keys a host line or [vars] may set, with their defaults ("" = no default).
declare -gA INV_DEFAULTS=(
	[ssh_host]="" [ssh_port]=22 [ssh_user]=root [ssh_key]="" [ssh_known_hosts]=""
	[remote_dir]=/opt/lite-ae [rdma_dev]=rxe0 [ib_port]=1 [gid_index]=auto
	[fabric_ip]="" [netdev]="" [lite_group]=lite [lite_params]="" [build]=""
	[qp_timeout]=14 [qp_retry]=7 [dsm]=yes
)
declare -gA INV_VC_DEFAULTS=(
	[nodes]=3 [mem_mb]=2048 [cpus]=1 [ssh_base_port]=22000
	[fabric_net]=198.18.0 [kernel_args]=""
)

declare -g INV_FILE="" INV_MANAGER="" INV_VCLUSTER=0
declare -ga INV_NODES=()
declare -gA INV_VAR=() INV_VC=() INV_SEEN_AT=()

# inv_keys ARRAY: the keys of an associative array, sorted, on one line.
inv_keys() {
	local -n arr=$1
	printf '%s\n' "${!arr[@]}" | sort | paste -sd' ' -
}

# inv_check_value KEY VALUE: print why VALUE is invalid for KEY, if it is.
inv_check_value() {
	local key=$1 v=$2
	case "$key" in
	ssh_port | ssh_base_port)
		if ! ae_is_uint "$v" || [ "$v" -lt 1 ] || [ "$v" -gt 65535 ]; then
			echo "want a TCP port 1..65535"
		fi ;;
	ib_port)
		if ! ae_is_uint "$v" || [ "$v" -lt 1 ] || [ "$v" -gt 255 ]; then
			echo "want an IB port number 1..255"
		fi ;;
	qp_timeout)
		{ ae_is_uint "$v" && [ "$v" -ge 1 ] && [ "$v" -le 31 ]; } ||
			echo "want an ACK timeout exponent 1..31 (4.096 us * 2^N)" ;;
	qp_retry)
		{ ae_is_uint "$v" && [ "$v" -le 7 ]; } || echo "want a retry count 0..7" ;;
	gid_index)
		[ "$v" = auto ] || { ae_is_uint "$v" && [ "$v" -le 255 ]; } ||
			echo "want 'auto' or a GID table index 0..255" ;;
	nodes)
		if ! ae_is_uint "$v" || [ "$v" -lt 1 ] || [ "$v" -gt 32 ]; then
			echo "want a node count 1..32"
		fi ;;
	mem_mb)
		if ! ae_is_uint "$v" || [ "$v" -lt 512 ]; then
			echo "want guest memory in MiB, at least 512"
		fi ;;
	cpus)
		if ! ae_is_uint "$v" || [ "$v" -lt 1 ] || [ "$v" -gt 16 ]; then
			echo "want a vCPU count 1..16"
		fi ;;
	remote_dir)
		[[ "$v" =~ ^/[A-Za-z0-9._/+-]*$ ]] || echo "want an absolute path without spaces" ;;
	ssh_user)
		[[ "$v" =~ ^[a-z_][a-z0-9_.-]*$ ]] || echo "want a user name" ;;
	ssh_host | fabric_ip)
		[[ "$v" =~ ^[A-Za-z0-9._:-]+$ ]] || echo "want a host name or IP address" ;;
	fabric_net)
		[[ "$v" =~ ^[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}$ ]] || echo "want the first three octets of a /24, e.g. 198.18.0" ;;
	rdma_dev | netdev)
		[[ "$v" =~ ^[A-Za-z0-9_.-]+$ ]] || echo "want a device name" ;;
	ssh_key | ssh_known_hosts)
		[[ "$v" =~ ^[^[:space:]]+$ ]] || echo "want a file path without spaces" ;;
	build)
		[[ "$v" =~ ^(hosts|controller)$ ]] || echo "want 'hosts' (build on each host) or 'controller' (build here, copy to the hosts)" ;;
	dsm)
		[[ "$v" =~ ^(yes|no)$ ]] || echo "want 'yes' (lite-ae install loads lite_dsm.ko after lite.ko) or 'no'" ;;
	lite_group)
		[[ "$v" =~ ^[a-z_][a-z0-9_-]*$ ]] && [ "${#v}" -le 32 ] || echo "want a group name" ;;
	lite_params)
		# insmod arguments; device, port, the GID and the transport
		# settings (every stack's alike) have their keys.
		if [[ ! "$v" =~ ^([a-z_]+=[A-Za-z0-9_.,-]+)?( [a-z_]+=[A-Za-z0-9_.,-]+)*$ ]]; then
			echo "want NAME=VALUE module parameters separated by spaces"
		elif [[ " $v" =~ \ (device|port|gid_index|fabric_ip|qp_timeout|qp_retry)= ]]; then
			echo "device, port, gid_index, fabric_ip, qp_timeout and qp_retry have keys of their own (rdma_dev, ib_port, ...)"
		fi ;;
	kernel_args)
		# Joined into the guest kernel's command line, where quotes
		# group words and AE_* words are the guest's own settings.
		local LC_ALL=C
		if [ "${#v}" -gt 512 ] || [[ ! "$v" =~ ^[[:print:]]+$ ]] || [[ "$v" == *[\"\'\`\\]* ]]; then
			echo "want printable ASCII without quotes or backslashes, at most 512 characters"
		elif [[ " $v" == *" AE_"* ]]; then
			echo "AE_* parameters are set by lite-ae itself"
		fi ;;
	esac
}

# inv_set_host_var WHERE HOST KEY VALUE: record KEY=VALUE for HOST ('*' = all).
inv_set_host_var() {
	local where=$1 host=$2 key=$3 val=$4 why
	[[ -v "INV_DEFAULTS[$key]" ]] ||
		ae_die "$where: unknown key '$key' (known: $(inv_keys INV_DEFAULTS))"
	why=$(inv_check_value "$key" "$val")
	[ -z "$why" ] || ae_die "$where: bad value '$val' for $key: $why"
	if [[ -v "INV_VAR[$host/$key]" ]] && [ "${INV_VAR[$host/$key]}" != "$val" ]; then
		ae_die "$where: $key of $host set twice ('${INV_VAR[$host/$key]}', then '$val')"
	fi
	INV_VAR[$host/$key]=$val
}

# inv_host_line WHERE SECTION LINE: parse "name key=value ...".
inv_host_line() {
	local where=$1 section=$2 line=$3 name kv
	local -a words
	read -r -a words <<<"$line"
	name=${words[0]}
	[[ "$name" =~ ^[A-Za-z0-9][A-Za-z0-9._-]*$ ]] ||
		ae_die "$where: bad host name '$name' (letters, digits, '.', '_', '-')"
	for kv in "${words[@]:1}"; do
		[[ "$kv" == *=* ]] || ae_die "$where: expected key=value after host $name, got '$kv'"
		inv_set_host_var "$where" "$name" "${kv%%=*}" "${kv#*=}"
	done
	if [ "$section" = manager ]; then
		[ -z "$INV_MANAGER" ] || ae_die "$where: a second manager '$name' (only one allowed)"
		INV_MANAGER=$name
		INV_SEEN_AT[manager]=${where##*:}
	else
		[[ -v "INV_SEEN_AT[node/$name]" ]] &&
			ae_die "$where: host $name listed twice (first at line ${INV_SEEN_AT[node/$name]})"
		INV_SEEN_AT[node/$name]=${where##*:}
		INV_NODES+=("$name")
	fi
}

# inv_load FILE: parse and validate FILE; die with FILE:LINE on any error.
inv_load() {
	local file=$1 n=0 section="" raw line key val where vc_line=0 nodes_line=0
	[ -f "$file" ] || ae_die "inventory $file: no such file"
	[ -r "$file" ] || ae_die "inventory $file: not readable"
	# shellcheck disable=SC2034 # INV_FILE is read by the callers
	INV_FILE=$file INV_MANAGER="" INV_VCLUSTER=0
	INV_NODES=() INV_VAR=() INV_VC=() INV_SEEN_AT=()

	while IFS= read -r raw || [ -n "$raw" ]; do
		n=$((n + 1))
		where="$file:$n"
		line=${raw%%[#;]*}
		line=${line#"${line%%[![:space:]]*}"}
		line=${line%"${line##*[![:space:]]}"}
		[ -n "$line" ] || continue
		if [[ "$line" =~ ^\[(.*)\]$ ]]; then
			section=${BASH_REMATCH[1]}
			case "$section" in
			vars | manager) ;;
			nodes) nodes_line=$n ;;
			vcluster) INV_VCLUSTER=1 vc_line=$n ;;
			*) ae_die "$where: unknown section [$section] (known: [vars] [manager] [nodes] [vcluster])" ;;
			esac
			continue
		fi
		case "$section" in
		"") ae_die "$where: '$line' is outside any section (start with [vars], [manager], [nodes] or [vcluster])" ;;
		vars | vcluster)
			[[ "$line" =~ ^([A-Za-z_][A-Za-z0-9_]*)[[:space:]]*=[[:space:]]*(.*)$ ]] ||
				ae_die "$where: expected 'key = value' in [$section], got '$line'"
			key=${BASH_REMATCH[1]} val=${BASH_REMATCH[2]}
			[ -n "$val" ] || ae_die "$where: empty value for $key"
			if [ "$section" = vars ]; then
				inv_set_host_var "$where" '*' "$key" "$val"
			else
				[[ -v "INV_VC_DEFAULTS[$key]" ]] ||
					ae_die "$where: unknown key '$key' in [vcluster] (known: $(inv_keys INV_VC_DEFAULTS))"
				local why
				why=$(inv_check_value "$key" "$val")
				[ -z "$why" ] || ae_die "$where: bad value '$val' for $key: $why"
				INV_VC[$key]=$val
			fi ;;
		manager | nodes) inv_host_line "$where" "$section" "$line" ;;
		esac
	done <"$file"

	if [ "$INV_VCLUSTER" = 1 ]; then
		[ "${#INV_NODES[@]}" = 0 ] ||
			ae_die "$file:$nodes_line: [nodes] and [vcluster] exclude each other: the virtual cluster names its hosts node1..nodeN"
		inv_expand_vcluster "$file:$vc_line"
	fi
	[ "${#INV_NODES[@]}" -gt 0 ] || ae_die "$file: no hosts: add a [nodes] section (or [vcluster])"
	[ -n "$INV_MANAGER" ] || INV_MANAGER=${INV_NODES[0]}
}

# inv_expand_vcluster WHERE: name the virtual cluster's hosts node1..nodeN,
# reachable on 127.0.0.1:ssh_base_port+i, fabric address fabric_net.i.
# NODES in the environment overrides the node count.
inv_expand_vcluster() {
	local where=$1 i n base net why
	if [ -n "${NODES:-}" ]; then
		why=$(inv_check_value nodes "$NODES")
		[ -z "$why" ] || ae_die "NODES=$NODES: $why"
		INV_VC[nodes]=$NODES
	fi
	n=$(inv_vc nodes) base=$(inv_vc ssh_base_port) net=$(inv_vc fabric_net)
	[ $((base + n)) -le 65535 ] || ae_die "$where: ssh_base_port + nodes exceeds 65535"
	for ((i = 1; i <= n; i++)); do
		INV_NODES+=("node$i")
		INV_VAR[node$i/ssh_host]=127.0.0.1
		INV_VAR[node$i/ssh_port]=$((base + i))
		INV_VAR[node$i/fabric_ip]=$net.$i
		INV_VAR[node$i/netdev]=fabric0
	done
	if [ -n "$INV_MANAGER" ] && [[ ! " ${INV_NODES[*]} " == *" $INV_MANAGER "* ]]; then
		ae_die "$INV_FILE:${INV_SEEN_AT[manager]}: manager $INV_MANAGER is not one of node1..node$n"
	fi
}

inv_var() {
	local host=$1 key=$2
	if [[ -v "INV_VAR[$host/$key]" ]]; then
		printf '%s\n' "${INV_VAR[$host/$key]}"
	elif [[ -v "INV_VAR[*/$key]" ]]; then
		printf '%s\n' "${INV_VAR[*/$key]}"
	elif [ "$key" = ssh_host ]; then
		printf '%s\n' "$host"
	elif [ "$key" = fabric_ip ]; then
		inv_var "$host" ssh_host
	elif [ "$key" = build ]; then
		# The local guests run the controller's root: its builds fit them.
		if [ "$INV_VCLUSTER" = 1 ]; then echo controller; else echo hosts; fi
	else
		printf '%s\n' "${INV_DEFAULTS[$key]}"
	fi
}

# inv_fabric_ipv4 HOST: HOST's fabric_ip if it is an IPv4 address, else "".
inv_fabric_ipv4() {
	local ip
	ip=$(inv_var "$1" fabric_ip)
	if [[ "$ip" =~ ^[0-9]{1,3}(\.[0-9]{1,3}){3}$ ]]; then echo "$ip"; fi
}

# inv_gid_cmd HOST: a shell command printing, on HOST, the GID index that
# LITE and perftest use there: gid_index, or for 'auto' the one lite.ko
# picks (lite/module/device.c): 0 on InfiniBand; on RoCE the RoCE v2 GID of
# fabric_ip (an IPv4 address), else the first RoCE v2 GID of an IPv4
# address. Nothing when there is none. It sets shell variables: run it in
# a command substitution.
inv_gid_cmd() {
	local h=$1 gi ip d pat='0000:0000:0000:0000:0000:ffff:*' a b c e
	gi=$(inv_var "$h" gid_index)
	if [ "$gi" != auto ]; then
		echo "echo $gi"
		return
	fi
	ip=$(inv_fabric_ipv4 "$h")
	if [ -n "$ip" ]; then
		IFS=. read -r a b c e <<<"$ip"
		pat=$(printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' "$a" "$b" "$c" "$e")
	fi
	d=/sys/class/infiniband/$(inv_var "$h" rdma_dev)/ports/$(inv_var "$h" ib_port)
	printf '%s\n' "d=$d; if [ \"\$(cat \$d/link_layer 2>/dev/null)\" = InfiniBand ]; then echo 0; else for i in \$(ls \$d/gids 2>/dev/null | sort -n); do [ \"\$(cat \$d/gid_attrs/types/\$i 2>/dev/null)\" = 'RoCE v2' ] || continue; case \$(cat \$d/gids/\$i) in $pat) echo \$i; break ;; esac; done; fi"
}

# inv_qp_settings HOST: the transport settings every stack uses on HOST
# (LITE, perftest, the verbs programs), as "timeout=N retry=N".
inv_qp_settings() {
	echo "timeout=$(inv_var "$1" qp_timeout) retry=$(inv_var "$1" qp_retry)"
}

# inv_lite_addr_params HOST: lite.ko's parameters that choose HOST's GID.
inv_lite_addr_params() {
	local gi ip
	gi=$(inv_var "$1" gid_index) ip=$(inv_fabric_ipv4 "$1")
	if [ "$gi" != auto ]; then echo "gid_index=$gi"; elif [ -n "$ip" ]; then echo "fabric_ip=$ip"; fi
}

inv_vc() {
	if [[ -v "INV_VC[$1]" ]]; then
		printf '%s\n' "${INV_VC[$1]}"
	else
		printf '%s\n' "${INV_VC_DEFAULTS[$1]}"
	fi
}

# inv_all_hosts: manager first (if it is not a node), then the nodes.
inv_all_hosts() {
	[[ " ${INV_NODES[*]} " == *" $INV_MANAGER "* ]] || printf '%s\n' "$INV_MANAGER"
	printf '%s\n' "${INV_NODES[@]}"
}

# inv_dump: one line per host with every resolved key, for humans and tests.
inv_dump() {
	local h k line role
	while read -r h; do
		role=node
		[ "$h" = "$INV_MANAGER" ] && role=manager
		[ "$h" = "$INV_MANAGER" ] && [[ " ${INV_NODES[*]} " == *" $h "* ]] && role=manager,node
		line="$h role=$role"
		for k in ssh_host ssh_port ssh_user remote_dir rdma_dev ib_port gid_index fabric_ip netdev ssh_key lite_group build qp_timeout qp_retry; do
			line+=" $k=$(inv_var "$h" "$k")"
		done
		printf '%s\n' "$line"
	done < <(inv_all_hosts)
}
