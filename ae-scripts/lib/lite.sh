# shellcheck shell=bash
# Installing LITE on the inventory's hosts: build lite.ko, the tools and the
# benchmarks (microbench/), load the module everywhere, start lite-manager
# on the manager host, join
# the nodes in inventory order (so node ids follow it) and wait until every
# node reaches every other one; liblite, its headers and lite.pc go to
# /usr/local on every host. /dev/lite is for root and the group lite_group
# (default lite), created if missing. 'uninstall' reverses it, but leaves
# the group (users may be in it).

AE_MANAGER_PORT=${AE_MANAGER_PORT:-18500}
AE_MANAGER_PIDFILE=/run/lite-manager.pid
AE_MANAGER_LOG=/var/log/lite-manager.log

lite_rdir() { inv_var "$1" remote_dir; }

# lite_kver: the kernel release every node runs (they must agree: one
# lite.ko is built for all of them). Under --dry-run, the local cluster's
# (lib/vcluster.sh; a placeholder when none is cached yet: a dry run
# changes nothing, so it must not need 'make deps') or the controller's.
lite_kver() {
	local h k first=""
	if [ "$AE_DRY_RUN" = 1 ]; then
		if [ "$INV_VCLUSTER" = 1 ]; then
			(vc_kver) 2>/dev/null || echo "GUEST-KERNEL"
		else
			uname -r
		fi
		return 0
	fi
	for h in "${INV_NODES[@]}"; do
		k=$(ae_ssh "$h" 'uname -r') || k=""
		[ -n "$k" ] || ae_die "$h: cannot read its kernel version"
		if [ -z "$first" ]; then
			first=$k
		elif [ "$k" != "$first" ]; then
			ae_die "$h runs Linux $k, ${INV_NODES[0]} runs $first: one lite.ko serves every node, so they must run the same kernel"
		fi
	done
	echo "$first"
}

# Where a host's LITE comes from is its 'build' (inventory/README.md):
# 'controller' builds here and sync copies the products (the local guests
# run the controller's root, so its builds fit them; real hosts must run
# the controller's OS release and kernel build, checked first), 'hosts'
# (the default for real hosts) syncs the sources and builds on each host
# for itself: lite.ko, lite-join, liblite and the benchmarks on the nodes,
# lite-manager on the manager host.

# lite_build_on HOST: 'controller' or 'hosts'.
lite_build_on() { inv_var "$1" build; }

# lite_build_hosts WHERE: the hosts (manager first) whose build is WHERE.
lite_build_hosts() {
	local h
	while read -r h; do
		[ "$(lite_build_on "$h")" != "$1" ] || echo "$h"
	done < <(inv_all_hosts)
}

# lite_is_node HOST: true if HOST is one of the nodes.
lite_is_node() { [[ " ${INV_NODES[*]} " == *" $1 "* ]]; }

# lite_os_cmd: a remote command printing the OS release (ID VERSION_ID).
lite_os_cmd() {
	# shellcheck disable=SC2016 # for the remote shell
	echo '( . /etc/os-release && echo "${ID:-unknown} ${VERSION_ID:-unknown}" ) 2>/dev/null || echo unknown'
}

# lite_headers_version KVER: the version string (uname -v) of the kernel
# build whose headers the controller has for KVER; empty if unknown.
lite_headers_version() {
	sed -n 's/^#define UTS_VERSION "\(.*\)"$/\1/p' \
		"/lib/modules/$1/build/include/generated/utsversion.h" \
		"/lib/modules/$1/build/include/generated/compile.h" 2>/dev/null | head -n 1
}

# lite_controller_fits HOST KVER: why the controller's build does not fit
# HOST (another OS release, or a kernel build other than the headers'
# here); nothing if it does. The local guests run the controller's root.
lite_controller_fits() {
	local h=$1 kver=$2 os here kv hv
	[ "$INV_VCLUSTER" = 1 ] && return 0
	[ "$AE_DRY_RUN" = 1 ] && return 0
	os=$(ae_ssh "$h" "$(lite_os_cmd)") || os=unreachable
	here=$(sh -c "$(lite_os_cmd)")
	if [ "$os" != "$here" ]; then
		echo "$h runs $os, the controller $here: its programs would not fit there"
		return 0
	fi
	lite_is_node "$h" || return 0
	kv=$(ae_ssh "$h" 'uname -v') || kv=unknown
	hv=$(lite_headers_version "$kver")
	if [ -z "$hv" ] || [ "$kv" != "$hv" ]; then
		echo "$h runs Linux $kver '$kv', the controller's headers are for '${hv:-an unknown build}'"
	fi
}

# lite_build_here KVER: lite.ko, the tools, lite-manager and the
# benchmarks, built on the controller for Linux KVER.
lite_build_here() {
	local kver=$1
	ae_log "building lite.ko for Linux $kver and the tools on the controller"
	ae_run_bounded 600 "build" make -s -j"$(nproc)" -C "$AE_ROOT/lite" KVER="$kver" >&2 ||
		ae_die "building lite/ failed"
	ae_run_bounded 600 "build" make -s -j"$(nproc)" -C "$AE_ROOT/manager" lite-manager >&2 ||
		ae_die "building manager/ failed"
	ae_run_bounded 600 "build" make -s -j"$(nproc)" -C "$AE_ROOT/microbench" KVER="$kver" >&2 ||
		ae_die "building microbench/ failed"
}

# lite_build_there_cmd HOST all|bench: the build a host does for itself: a
# node's lite.ko, lite_dsm.ko, tools, liblite, the applications and benchmarks, the manager's
# lite-manager (only the benchmarks with 'bench'), for its running kernel.
lite_build_there_cmd() {
	local h=$1 r cmd=""
	r=$(lite_rdir "$h")
	if lite_is_node "$h"; then
		[ "$2" = bench ] || cmd="make -s -C $r/lite module tools lib apps dsm KVER=\$(uname -r) && "
		cmd+="make -s -C $r/microbench KVER=\$(uname -r)"
	fi
	if [ "$h" = "$INV_MANAGER" ] && [ "$2" != bench ]; then
		cmd+="${cmd:+ && }make -s -C $r/manager lite-manager"
	fi
	echo "${cmd:-true}"
}

# lite_build: build what every host needs, where its 'build' says, and
# sync. lite_build_for bench: only the benchmarks (a figure's programs may
# be newer than the installed module).
lite_build() { lite_build_for all; }

lite_build_for() {
	local kver h why what=$1
	local -a on_ctl on_hosts
	mapfile -t on_ctl < <(lite_build_hosts controller)
	mapfile -t on_hosts < <(lite_build_hosts hosts)
	# One build here serves every node: they must run one kernel. Hosts
	# that build for themselves may run different ones.
	[ "${#on_ctl[@]}" = 0 ] || kver=$(lite_kver) || exit 1
	if [ "${#on_ctl[@]}" -gt 0 ] && [ ! -f "/lib/modules/$kver/build/Makefile" ]; then
		[ "$INV_VCLUSTER" = 1 ] ||
			ae_die "build = controller, but the controller has no headers for Linux $kver: install linux-headers-$kver here, or set build = hosts in $INV_FILE"
		ae_log "no headers for Linux $kver on the controller: building on every host"
		on_hosts+=("${on_ctl[@]}")
		on_ctl=()
	fi
	if [ "${#on_ctl[@]}" -gt 0 ]; then
		for h in "${on_ctl[@]}"; do
			why=$(lite_controller_fits "$h" "$kver")
			[ -z "$why" ] || ae_die "build = controller does not fit: $why; set build = hosts for it in $INV_FILE"
		done
		if [ "$what" = bench ]; then
			ae_run_bounded 600 "build" make -s -j"$(nproc)" -C "$AE_ROOT/microbench" KVER="$kver" >&2 ||
				ae_die "building microbench/ failed"
		else
			lite_build_here "$kver"
		fi
	fi
	ae_sync || ae_die "sync failed"
	[ "${#on_hosts[@]}" -gt 0 ] || return 0
	ae_log "building on ${#on_hosts[@]} hosts: ${on_hosts[*]}"
	ae_in_parallel lite_build_there "$what" -- "${on_hosts[@]}" || ae_die "build failed"
}

# lite_build_there HOST WHAT: lite_build_for's build on HOST itself.
lite_build_there() {
	if [ "$AE_DRY_RUN" = 1 ]; then
		AE_TIMEOUT=1800 ae_ssh "$1" "$(lite_build_there_cmd "$1" "$2")"
		return
	fi
	AE_TIMEOUT=1800 ae_ssh "$1" "$(lite_build_there_cmd "$1" "$2")" >&2 || {
		ae_warn "$1: build failed (above; kick-the-tires names missing compilers and headers)"
		return 1
	}
}

# lite_check_module HOST: fail, saying how to fix it, unless the lite.ko
# HOST would load is built for the kernel HOST runs (insmod would only
# say "Invalid module format").
lite_check_module() {
	local h=$1 facts why ko running
	ko=$(lite_rdir "$h")/lite/module/lite.ko
	[ "$AE_DRY_RUN" = 1 ] && { ae_ssh "$h" "$(kv_vermagic_cmd "$ko")"; return 0; }
	facts=$(ae_ssh "$h" "$(kv_vermagic_cmd "$ko")") || ae_die "$h: cannot read the kernel version or $ko"
	grep -qx 'present=yes' <<<"$facts" || ae_die "$h: $ko is missing (sync failed?)"
	why=$(kv_mismatch "$(sed -n 's/^built=//p' <<<"$facts")" "$(sed -n 's/^kernel=//p' <<<"$facts")")
	running=$(sed -n 's/^kernel=//p' <<<"$facts")
	[ -z "$why" ] || ae_die "$h: $why; every node must run the kernel lite.ko was built for: rebuild for the running kernel with 'make lite-install' (lite-ae install builds for the nodes' kernel), or by hand 'make -C lite KVER=$running' and 'lite-ae sync' (with build = hosts: on the host, in $(lite_rdir "$h"))"
}

AE_UDEV_RULE=/etc/udev/rules.d/60-lite.rules

# lite_dev_setup_cmd HOST: the group, and a udev rule that gives /dev/lite
# to it wherever udevd runs.
lite_dev_setup_cmd() {
	local g
	g=$(inv_var "$1" lite_group)
	cat <<EOF
getent group $g >/dev/null || groupadd -r $g || exit 1
mkdir -p ${AE_UDEV_RULE%/*} &&
	printf '%s\n' '# lite-ae install: /dev/lite and /dev/lite_dsm for root and group $g' 'KERNEL=="lite", GROUP="$g", MODE="0660"' 'KERNEL=="lite_dsm", GROUP="$g", MODE="0660"' >$AE_UDEV_RULE
EOF
}

# lite_dev_perm_cmd HOST [DEV]: after insmod, let udev finish, then set
# group and mode of /dev/DEV (default lite) ourselves: a host without udevd
# (the local guests run busybox init) applies no rule at all.
lite_dev_perm_cmd() {
	local g dev=/dev/${2:-lite}
	g=$(inv_var "$1" lite_group)
	cat <<EOF
if command -v udevadm >/dev/null 2>&1 && udevadm control --ping >/dev/null 2>&1; then
	udevadm settle --timeout=10 || true
fi
chgrp $g $dev && chmod 0660 $dev
EOF
}

lite_manager_stop() {
	ae_ssh "$INV_MANAGER" "p=\$(cat $AE_MANAGER_PIDFILE 2>/dev/null) || exit 0
		if [ \"\$(cat /proc/\$p/comm 2>/dev/null)\" = lite-manager ]; then
			kill \$p
			for i in \$(seq 50); do kill -0 \$p 2>/dev/null || break; sleep 0.1; done
		fi
		rm -f $AE_MANAGER_PIDFILE"
}

# The cluster key: made on the controller once (AE_STATE/cluster.key, 0600)
# and copied over ssh's stdin (never an argument, never logged) to
# AE_KEY_FILE, root-only, on every host; lite-manager and lite-join read it.
AE_KEY_FILE=/etc/lite/cluster.key
lite_key_setup() {
	local key=$AE_STATE/cluster.key h
	if [ ! -s "$key" ]; then
		(umask 077 && od -An -tx1 -N32 /dev/urandom | tr -d ' \n' >"$key.tmp" &&
			echo >>"$key.tmp" && mv "$key.tmp" "$key") ||
			ae_die "cannot write the cluster key $key"
		ae_log "made a cluster key: $key"
	fi
	if [ "$(stat -c %a "$key")" != 600 ] || [ ! -O "$key" ]; then
		ae_die "$key: mode $(stat -c %a "$key"), owner $(stat -c %U "$key"): a key must be ours and readable by us only (chmod 600 $key)"
	fi
	for h in $(inv_all_hosts); do
		# A fresh file under umask 077: 0600 from its first byte.
		ae_ssh "$h" "umask 077 && mkdir -p ${AE_KEY_FILE%/*} && rm -f $AE_KEY_FILE.tmp &&
			cat >$AE_KEY_FILE.tmp && mv $AE_KEY_FILE.tmp $AE_KEY_FILE" <"$key" ||
			ae_die "$h: cannot install the cluster key as $AE_KEY_FILE"
	done
}

# lite_install_node HOST: load lite.ko (built for HOST's kernel), give
# /dev/lite to the group, install liblite: one ssh round trip, each step
# naming itself when it fails.
lite_install_node() {
	local h=$1 r
	r=$(lite_rdir "$h")
	lite_check_module "$h"
	ae_ssh "$h" "{
$(lite_dev_setup_cmd "$h")
} || { echo 'creating group $(inv_var "$h" lite_group) or $AE_UDEV_RULE failed' >&2; exit 1; }
if [ -e /sys/module/lite_dsm ]; then rmmod lite_dsm || { echo 'lite_dsm.ko is loaded and in use' >&2; exit 1; }; fi
if [ -e /sys/module/lite ]; then rmmod lite || { echo 'lite.ko is loaded and in use' >&2; exit 1; }; fi
insmod $r/lite/module/lite.ko device=$(inv_var "$h" rdma_dev) port=$(inv_var "$h" ib_port) $(inv_lite_addr_params "$h") qp_timeout=$(inv_var "$h" qp_timeout) qp_retry=$(inv_var "$h" qp_retry) ${LITE_PARAMS-$(inv_var "$h" lite_params)} ||
	{ echo 'loading lite.ko failed (see dmesg)' >&2; exit 1; }
{
$(lite_dev_perm_cmd "$h")
} || { echo 'cannot give /dev/lite group $(inv_var "$h" lite_group) and mode 0660' >&2; exit 1; }
make -s -C $r/lite/lib install >/dev/null || { echo 'installing liblite failed' >&2; exit 1; }" ||
		ae_die "$h: LITE not installed (above)"
}

lite_install() {
	local h i=0 out n=${#INV_NODES[@]} mgr_ip why
	# LITE_PARAMS in the environment stands in for every host's lite_params.
	if [ -n "${LITE_PARAMS+set}" ]; then
		why=$(inv_check_value lite_params "$LITE_PARAMS")
		[ -z "$why" ] || ae_die "LITE_PARAMS='$LITE_PARAMS': $why"
	fi
	lite_build
	# The hosts load the module and build liblite in parallel (a build in
	# a guest takes seconds); each says itself what went wrong.
	ae_in_parallel lite_install_node -- "${INV_NODES[@]}" || ae_die "LITE not installed (see above)"
	lite_manager_stop
	lite_key_setup
	# Listening on the fabric address only, where the nodes join.
	mgr_ip=$(inv_var "$INV_MANAGER" fabric_ip)
	ae_ssh "$INV_MANAGER" "setsid $(lite_rdir "$INV_MANAGER")/manager/lite-manager -a $mgr_ip -p $AE_MANAGER_PORT --key-file $AE_KEY_FILE --pidfile $AE_MANAGER_PIDFILE </dev/null >>$AE_MANAGER_LOG 2>&1 &
		for i in \$(seq 50); do [ -s $AE_MANAGER_PIDFILE ] && exit 0; sleep 0.1; done
		echo 'lite-manager did not start:' >&2; tail -n 5 $AE_MANAGER_LOG >&2; exit 1" ||
		ae_die "$INV_MANAGER: cannot start lite-manager"
	for h in "${INV_NODES[@]}"; do
		i=$((i + 1))
		out=$(ae_ssh "$h" "$(lite_rdir "$h")/lite/tools/lite-join -p $AE_MANAGER_PORT $mgr_ip") ||
			ae_die "$h: joining the manager at $mgr_ip:$AE_MANAGER_PORT failed"
		[ "$AE_DRY_RUN" = 1 ] || [ "$out" = "node_id=$i" ] ||
			ae_die "$h: got '$out', expected node_id=$i (inventory order)"
	done
	for h in "${INV_NODES[@]}"; do
		out=$(ae_ssh "$h" "$(lite_rdir "$h")/lite/tools/lite-join --status --wait $n --timeout 90") ||
			ae_die "$h: the cluster did not form: $out"
		ae_log "$h: $out"
	done
	ae_log "LITE installed: $n nodes joined, manager on $INV_MANAGER ($mgr_ip:$AE_MANAGER_PORT)"
	# lite_dsm reads the cluster key and registers its RPC port at load:
	# after the key is in place and the node joined. LITE_DSM in the
	# environment stands in for every host's 'dsm'.
	if [ -n "${LITE_DSM+set}" ]; then
		why=$(inv_check_value dsm "$LITE_DSM")
		[ -z "$why" ] || ae_die "LITE_DSM='$LITE_DSM': $why"
	fi
	local -a dsm_nodes=()
	for h in "${INV_NODES[@]}"; do
		[ "${LITE_DSM-$(inv_var "$h" dsm)}" = no ] || dsm_nodes+=("$h")
	done
	[ "${#dsm_nodes[@]}" -gt 0 ] || return 0
	ae_in_parallel lite_dsm_install_node -- "${dsm_nodes[@]}" || ae_die "lite_dsm not installed (see above)"
	ae_log "lite_dsm loaded on ${#dsm_nodes[@]} nodes: /dev/lite_dsm, liblite-dsm"
}

# lite_dsm_install_node HOST: load lite_dsm.ko (LITE-Kernel-DSM,
# docs/dsm.md), give /dev/lite_dsm to the group, install liblite-dsm.
lite_dsm_install_node() {
	local h=$1 r
	r=$(lite_rdir "$h")
	ae_ssh "$h" "insmod $r/lite/dsm/lite_dsm.ko || { echo 'loading lite_dsm.ko failed (see dmesg)' >&2; exit 1; }
{
$(lite_dev_perm_cmd "$h" lite_dsm)
} || { echo 'cannot give /dev/lite_dsm group $(inv_var "$h" lite_group) and mode 0660' >&2; exit 1; }
make -s -C $r/lite/dsm/lib install >/dev/null || { echo 'installing liblite-dsm failed' >&2; exit 1; }" ||
		ae_die "$h: lite_dsm not installed (above)"
}

lite_uninstall() {
	local rc=0
	ae_in_parallel lite_uninstall_node -- "${INV_NODES[@]}" || rc=1
	lite_manager_stop || rc=1
	[ "$rc" = 0 ] && ae_log "LITE uninstalled"
	return "$rc"
}

# lite_uninstall_node HOST: lite_uninstall's part on HOST, in one round
# trip: every step is tried, each failure named. ldconfig runs once, after
# both libraries are gone: a debug-kernel guest reading the host's root
# over 9p takes about a minute for each run.
lite_uninstall_node() {
	ae_ssh "$1" "rc=0
if [ -e /sys/module/lite_dsm ] && ! rmmod lite_dsm; then echo 'rmmod lite_dsm failed (a region mapped?)' >&2; rc=1; fi
if [ -e /sys/module/lite ] && ! rmmod lite; then echo 'rmmod lite failed (in use?)' >&2; rc=1; fi
make -s -C $(lite_rdir "$1")/lite/lib uninstall LDCONFIG=true >/dev/null || { echo 'removing liblite failed' >&2; rc=1; }
make -s -C $(lite_rdir "$1")/lite/dsm/lib uninstall LDCONFIG=true >/dev/null || { echo 'removing liblite-dsm failed' >&2; rc=1; }
ldconfig || { echo 'ldconfig failed' >&2; rc=1; }
rm -f $AE_UDEV_RULE || rc=1
exit \$rc" || {
		ae_warn "$1: uninstall incomplete (above)"
		return 1
	}
}

# lite_stats DIR: every node's LITE counters (docs/architecture.md, debugfs
# counters and peers) and its QPs' settings (debugfs qps, after a '# qps'
# line: ae-scripts/qp-settings reads them back for provenance) into
# DIR/<host>.txt, or why there are none. Fails only when a host cannot be
# reached or DIR cannot be written.
lite_stats() {
	local dir=$1 h rc=0 out
	[ "$AE_DRY_RUN" = 1 ] || mkdir -p "$dir" || ae_die "cannot create $dir"
	for h in "${INV_NODES[@]}"; do
		out=$dir/$h.txt
		[ "$AE_DRY_RUN" != 1 ] || out=/dev/stdout
		ae_ssh "$h" "d=/sys/kernel/debug/lite
			mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug 2>/dev/null
			if [ -r \$d/peers ]; then
				echo '# counters'; cat \$d/counters; echo '# peers'; cat \$d/peers
				if [ -r \$d/qps ] && q=\$(cat \$d/qps); then
					echo '# qps'; [ -z \"\$q\" ] || echo \"\$q\"
				else
					echo '# qps unreadable'
				fi
			else
				echo '# no LITE counters here (lite.ko not loaded, or no debugfs)'
			fi" >"$out" || {
			ae_warn "$h: cannot read LITE's counters"
			rc=1
		}
	done
	return "$rc"
}

# lite_status_cmd HOST: prints "node_id=.. nodes=.." or "not-loaded".
lite_status_cmd() {
	echo "if [ -e /dev/lite ]; then $(lite_rdir "$1")/lite/tools/lite-join --status 2>&1 || true; else echo not-loaded; fi"
}
