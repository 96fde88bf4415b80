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

# lite_build: build on the controller when its headers match the hosts'
# kernel (seconds), else on every host (minutes in an emulated guest).
lite_build() {
	local kver h
	kver=$(lite_kver) || exit 1
	if [ -f "/lib/modules/$kver/build/Makefile" ]; then
		ae_log "building lite.ko for Linux $kver and the tools on the controller"
		ae_run_bounded 600 "build" make -s -C "$AE_ROOT/lite" KVER="$kver" >&2 ||
			ae_die "building lite/ failed"
		ae_run_bounded 600 "build" make -s -C "$AE_ROOT/manager" lite-manager >&2 ||
			ae_die "building manager/ failed"
		ae_run_bounded 600 "build" make -s -C "$AE_ROOT/microbench" KVER="$kver" >&2 ||
			ae_die "building microbench/ failed"
		ae_sync || ae_die "sync failed"
	else
		ae_log "no headers for Linux $kver on the controller: building on every host"
		ae_sync || ae_die "sync failed"
		while read -r h; do
			AE_TIMEOUT=900 ae_ssh "$h" "make -s -C $(lite_rdir "$h")/lite KVER=\$(uname -r) && make -s -C $(lite_rdir "$h")/manager lite-manager && make -s -C $(lite_rdir "$h")/microbench KVER=\$(uname -r)" ||
				ae_die "$h: build failed"
		done < <(inv_all_hosts)
	fi
}

# lite_check_module HOST: fail, saying how to fix it, unless the lite.ko
# HOST would load is built for the kernel HOST runs (insmod would only
# say "Invalid module format").
lite_check_module() {
	local h=$1 facts why ko running
	ko=$(lite_rdir "$h")/lite/lite.ko
	[ "$AE_DRY_RUN" = 1 ] && { ae_ssh "$h" "$(kv_vermagic_cmd "$ko")"; return 0; }
	facts=$(ae_ssh "$h" "$(kv_vermagic_cmd "$ko")") || ae_die "$h: cannot read the kernel version or $ko"
	grep -qx 'present=yes' <<<"$facts" || ae_die "$h: $ko is missing (sync failed?)"
	why=$(kv_mismatch "$(sed -n 's/^built=//p' <<<"$facts")" "$(sed -n 's/^kernel=//p' <<<"$facts")")
	running=$(sed -n 's/^kernel=//p' <<<"$facts")
	[ -z "$why" ] || ae_die "$h: $why; every node must run the kernel lite.ko was built for: rebuild for the running kernel with 'make lite-install' (lite-ae install builds for the nodes' kernel), or by hand 'make -C lite KVER=$running' and 'lite-ae sync'"
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
	printf '%s\n' '# lite-ae install: /dev/lite for root and group $g' 'KERNEL=="lite", GROUP="$g", MODE="0660"' >$AE_UDEV_RULE
EOF
}

# lite_dev_perm_cmd HOST: after insmod, let udev finish, then set group and
# mode ourselves: a host without udevd (the local guests run busybox init)
# applies no rule at all.
lite_dev_perm_cmd() {
	local g
	g=$(inv_var "$1" lite_group)
	cat <<EOF
if command -v udevadm >/dev/null 2>&1 && udevadm control --ping >/dev/null 2>&1; then
	udevadm settle --timeout=10 || true
fi
chgrp $g /dev/lite && chmod 0660 /dev/lite
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
# /dev/lite to the group, install liblite.
lite_install_node() {
	local h=$1
	lite_check_module "$h"
	ae_ssh "$h" "$(lite_dev_setup_cmd "$h")" ||
		ae_die "$h: creating group $(inv_var "$h" lite_group) or $AE_UDEV_RULE failed"
	ae_ssh "$h" "if [ -e /sys/module/lite ]; then rmmod lite || exit 1; fi
		insmod $(lite_rdir "$h")/lite/lite.ko device=$(inv_var "$h" rdma_dev) port=$(inv_var "$h" ib_port) gid_index=$(inv_var "$h" gid_index) ${LITE_PARAMS-$(inv_var "$h" lite_params)}" ||
		ae_die "$h: loading lite.ko failed (in use? see dmesg)"
	ae_ssh "$h" "$(lite_dev_perm_cmd "$h")" ||
		ae_die "$h: cannot give /dev/lite group $(inv_var "$h" lite_group) and mode 0660"
	ae_ssh "$h" "make -s -C $(lite_rdir "$h")/lite/lib install >/dev/null" ||
		ae_die "$h: installing liblite failed"
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
}

lite_uninstall() {
	local h rc=0
	for h in "${INV_NODES[@]}"; do
		ae_ssh "$h" "[ ! -e /sys/module/lite ] || rmmod lite" || {
			ae_warn "$h: rmmod lite failed (in use?)"
			rc=1
		}
		ae_ssh "$h" "make -s -C $(lite_rdir "$h")/lite/lib uninstall >/dev/null" ||
			ae_warn "$h: removing liblite failed"
		ae_ssh "$h" "rm -f $AE_UDEV_RULE" || ae_warn "$h: removing $AE_UDEV_RULE failed"
	done
	lite_manager_stop || rc=1
	[ "$rc" = 0 ] && ae_log "LITE uninstalled"
	return "$rc"
}

# lite_stats DIR: every node's LITE counters (docs/architecture.md, debugfs
# counters and peers) into DIR/<host>.txt, or why there are none. Fails only
# when a host cannot be reached or DIR cannot be written.
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
