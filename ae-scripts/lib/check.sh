# shellcheck shell=bash
# Kick-the-tires: is every host usable, and does RDMA traffic flow between
# every pair of nodes? Prints a PASS/FAIL table, then each failure with its
# reason and a fix; returns non-zero on any failure. Every probe is bounded
# by AE_CHECK_TIMEOUT (times AE_SLOW), so a hung host costs at most that
# long. AE_CHECK_FACTS=DIR judges the facts a probe wrote earlier (DIR/
# HOST.facts, as kept in the details directory of a failed check) without
# reaching any host, and runs no traffic.

# shellcheck source=ae-scripts/lib/perftest.sh
. "$AE_ROOT/ae-scripts/lib/perftest.sh"

AE_CHECK_TIMEOUT=${AE_CHECK_TIMEOUT:-60}
AE_MIN_MEMLOCK_KB=65536

declare -ga CHK_ROWS=() CHK_FIXES=()
declare -gA CHK_HOST_OK=()
CHK_FAILED=0

chk_row() { # SUBJECT CHECK RESULT DETAIL [FIX]
	CHK_ROWS+=("$(printf '%-14s %-13s %-5s %s' "$1" "$2" "$3" "$4")")
	if [ "$3" = FAIL ]; then
		CHK_FAILED=$((CHK_FAILED + 1))
		CHK_FIXES+=("$1 $2: $4" "    fix: ${5:-see docs}")
	fi
}

# The probe runs on the host and prints key=value facts; the verdicts are
# made here so the remote side needs nothing but a POSIX shell.
chk_probe_cmd() {
	local dev=$1 port=$2 d # $3: the host
	d="/sys/class/infiniband/$dev"
	cat <<EOF
k=\$(uname -r); echo "kernel=\$k"
gi=\$($(inv_gid_cmd "$3")); echo "gid_index=\$gi"
if [ -f /lib/modules/\$k/build/Makefile ]; then echo headers=yes; else echo headers=no; fi
if [ -d $d ]; then echo dev=yes; else echo dev=no; fi
echo "devices=\$(ls /sys/class/infiniband 2>/dev/null | tr '\n' ' ')"
echo "state=\$(cat $d/ports/$port/state 2>/dev/null)"
echo "link_layer=\$(cat $d/ports/$port/link_layer 2>/dev/null)"
echo "gid=\$(cat $d/ports/$port/gids/\$gi 2>/dev/null)"
echo "gid_type=\$(cat $d/ports/$port/gid_attrs/types/\$gi 2>/dev/null)"
echo "atomic_cap=\$(ibv_devinfo -d $dev -v 2>/dev/null | sed -n 's/^[[:space:]]*atomic_cap:[[:space:]]*\([A-Z_]*\).*/\1/p' | head -n 1)"
echo "active_mtu=\$(ibv_devinfo -d $dev -i $port 2>/dev/null | sed -n 's/^[[:space:]]*active_mtu:[[:space:]]*\([0-9]*\).*/\1/p' | head -n 1)"
echo "memlock=\$(ulimit -l)"
for t in ib_write_lat ib_read_lat ib_send_lat rsync; do
	command -v \$t >/dev/null 2>&1 || echo "missing=\$t"
done
for t in make cc; do
	command -v \$t >/dev/null 2>&1 || echo "nobuild=\$t"
done
for f in infiniband/verbs.h rdma/rdma_cma.h openssl/hmac.h; do
	[ -f /usr/include/\$f ] || echo "nobuild=\$f"
done
$(chk_ga_cmd)
echo "os=\$( $(lite_os_cmd) )"
echo "kversion=\$(uname -v)"
echo "lite=\$($(lite_status_cmd "$3"))"
echo "litedev=\$(stat -c 0%a:%G /dev/lite 2>/dev/null)"
echo "liteunsafe=\$(cat /sys/module/lite/parameters/unsafe_global_rkey 2>/dev/null)"
q=/sys/kernel/debug/lite/qps
if [ -r \$q ]; then
	echo "liteqps=\$(grep -c '^peer=' \$q) \$(grep -c ' state=ready ' \$q) \$(grep -c ' dmac=00:00:00:00:00:00 ' \$q)"
fi
$(kv_vermagic_cmd "$(lite_rdir "$3")/lite/module/lite.ko" ko_)
EOF
}

# The Debian 12 packages Global Arrays' programs (microbench/ga_bench,
# lite/apps/lite-graph-dsm/ga-graph) are built and run with: GA and
# ARMCI-MPI are static archives, and neither package declares the
# ScaLAPACK, LAPACK, BLAS and Fortran runtime they need (ga-config --libs
# --flibs), nor OpenMPI (ae-scripts/deps.sh installs the same).
CHK_GA_PACKAGES="libglobalarrays-dev libarmci-mpi-dev libscalapack-openmpi-dev liblapack-dev libblas-dev gfortran libopenmpi-dev openmpi-bin"

# chk_ga_cmd: POSIX sh printing noga=WHAT for each thing the GA programs
# lack where it runs: ga-config, mpicc (without them the Makefiles leave
# ga_bench and ga-graph out with a note), mpirun, and each library that
# ga-config names (-lX) not in its -L directories or the compiler's.
chk_ga_cmd() {
	cat <<'EOF'
for t in ga-config mpicc mpirun; do
	command -v $t >/dev/null 2>&1 || echo "noga=$t"
done
if command -v ga-config >/dev/null 2>&1 && command -v cc >/dev/null 2>&1; then
	f=$(ga-config --ldflags --libs --flibs 2>/dev/null)
	dirs=$( { echo "$f" | tr ' ' '\n' | sed -n 's/^-L//p'; cc -print-search-dirs 2>/dev/null | sed -n 's/^libraries: =//p' | tr ':' '\n'; } )
	for l in $(echo "$f" | tr ' ' '\n' | sed -n 's/^-l//p' | sort -u); do
		echo "$dirs" | while read -r d; do
			if [ -e "$d/lib$l.so" ] || [ -e "$d/lib$l.a" ]; then echo found; break; fi
		done | grep -q found || echo "noga=-l$l"
	done
fi
EOF
}

# chk_probe HOST: run the probe on HOST within the step limit.
chk_probe() {
	AE_TIMEOUT=$CHK_LIMIT ae_ssh "$1" \
		"$(chk_probe_cmd "$(inv_var "$1" rdma_dev)" "$(inv_var "$1" ib_port)" "$1")"
}

chk_fact() { sed -n "s/^$2=//p;T;q" "$CHK_DIR/$1.facts"; }

chk_judge_host() {
	local h=$1 rc=$2 is_node=$3 dev port gid ip kernel v mtu missing ok=1
	dev=$(inv_var "$h" rdma_dev) port=$(inv_var "$h" ib_port) ip=$(inv_fabric_ipv4 "$h")
	if [ "$rc" != 0 ]; then
		local why
		why=$(grep -v '^$' "$CHK_DIR/$h.err" | tail -n 1)
		[ "$rc" = 124 ] && why="no answer within ${CHK_LIMIT}s"
		chk_row "$h" ssh FAIL "unreachable: ${why:-ssh exit $rc}" \
			"is it up? (local cluster: 'lite-ae up'); check ssh_host/ssh_port/ssh_user in $INV_FILE; try: ssh -F $AE_SSH_CONFIG $h true"
		CHK_HOST_OK[$h]=0
		return
	fi
	kernel=$(chk_fact "$h" kernel)
	chk_row "$h" ssh PASS "kernel $kernel"
	if [ "$(chk_fact "$h" headers)" = yes ]; then
		chk_row "$h" headers PASS "/lib/modules/$kernel/build"
	else
		chk_row "$h" headers FAIL "no kernel headers for $kernel" \
			"apt-get install linux-headers-$kernel (the LITE module is built against them)"
		ok=0
	fi
	missing=$(chk_fact "$h" missing)
	if [ -z "$missing" ]; then
		chk_row "$h" tools PASS "perftest, rsync"
	else
		chk_row "$h" tools FAIL "missing: $(sed -n 's/^missing=//p' "$CHK_DIR/$h.facts" | paste -sd' ' -)" \
			"apt-get install perftest rsync"
		ok=0
	fi
	chk_judge_build "$h" "$is_node" || ok=0
	[ "$is_node" = 0 ] || chk_judge_ga "$h"
	if [ "$is_node" = 0 ]; then
		CHK_HOST_OK[$h]=$ok
		return
	fi
	if [ "$(chk_fact "$h" dev)" != yes ]; then
		v=$(chk_fact "$h" devices)
		chk_row "$h" rdma-device FAIL "$dev not present (devices: ${v:-none})" \
			"Soft-RoCE: rdma link add $dev type rxe netdev $(inv_var "$h" netdev | sed 's/^$/IFACE/'); hardware: load the NIC driver; or set rdma_dev in $INV_FILE"
		CHK_HOST_OK[$h]=0
		return
	fi
	chk_row "$h" rdma-device PASS "$dev"
	v=$(chk_fact "$h" state)
	if [[ "$v" == *ACTIVE* ]]; then
		chk_row "$h" port PASS "port $port ${v#*: } ($(chk_fact "$h" link_layer))"
	else
		chk_row "$h" port FAIL "port $port of $dev is '${v:-missing}', not ACTIVE" \
			"check the link: rdma link show; ip link set $(inv_var "$h" netdev | sed 's/^$/IFACE/') up; or set ib_port in $INV_FILE"
		ok=0
	fi
	v=$(chk_fact "$h" gid) gid=$(chk_fact "$h" gid_index)
	if [ -z "$gid" ]; then
		chk_row "$h" gid FAIL "gid_index auto: no RoCE v2 GID of ${ip:-an IPv4 address} on $dev port $port" \
			"is fabric_ip on the port's netdev? (ip addr; rdma link show); list the GIDs: grep . /sys/class/infiniband/$dev/ports/$port/gid_attrs/types/*; or set gid_index in $INV_FILE"
		ok=0
	elif [ -n "$v" ] && [[ "$v" =~ [1-9a-f] ]]; then
		chk_row "$h" gid PASS "index $gid = $v ($(chk_fact "$h" gid_type))"
	else
		chk_row "$h" gid FAIL "GID index $gid of $dev port $port is ${v:+empty}${v:-absent}" \
			"list valid ones: grep . /sys/class/infiniband/$dev/ports/$port/gids/* and set gid_index in $INV_FILE"
		ok=0
	fi
	v=$(chk_fact "$h" atomic_cap) mtu=$(chk_fact "$h" active_mtu)
	case "$v" in
	"") chk_row "$h" device INFO "capabilities unknown: no ibv_devinfo (apt-get install ibverbs-utils)" ;;
	ATOMIC_NONE) chk_row "$h" device WARN "no RDMA atomics (atomic_cap $v): LITE runs atomics on the owners' CPUs, and the atomic figure measures those; active MTU ${mtu:-?}" \
		"for NIC atomics use a device (or a VF) whose atomic_cap is not ATOMIC_NONE" ;;
	*) chk_row "$h" device PASS "atomics $v, active MTU ${mtu:-?}" ;;
	esac
	v=$(chk_fact "$h" memlock)
	if [ "$v" = unlimited ] || { ae_is_uint "$v" && [ "$v" -ge "$AE_MIN_MEMLOCK_KB" ]; }; then
		chk_row "$h" memlock PASS "$v"
	else
		chk_row "$h" memlock FAIL "locked-memory limit ${v:-unknown} KiB < $AE_MIN_MEMLOCK_KB" \
			"add '* - memlock unlimited' to /etc/security/limits.conf and log in again"
		ok=0
	fi
	chk_judge_module "$h"
	chk_judge_lite "$h"
	CHK_HOST_OK[$h]=$ok
}

# chk_judge_ga NODE: can the figures dsm and app-graph-dsm run their
# Global Arrays baselines on NODE? Where the node builds for itself
# (build = hosts) it needs what chk_ga_cmd looks for; with build =
# controller, the controller needs it (checked here, once) and the node
# mpirun. A FAIL names what is missing and the packages, so that those
# figures do not fail later for it; RDMA traffic does not depend on it.
CHK_GA_CONTROLLER=unchecked
chk_judge_ga() {
	local h=$1 here miss
	miss=$(sed -n 's/^noga=//p' "$CHK_DIR/$h.facts" | sort -u | paste -sd' ' -)
	if [ "$(inv_var "$h" build)" = hosts ]; then
		here="on this host (build = hosts)"
	else
		[ "$CHK_GA_CONTROLLER" != unchecked ] ||
			CHK_GA_CONTROLLER=$(sh -c "$(chk_ga_cmd)" 2>/dev/null | sed -n 's/^noga=//p' | sort -u | paste -sd' ' -)
		here="on the controller (build = controller)"
		if [[ " $miss " == *" mpirun "* ]]; then miss="mpirun (on $h)"; else miss=""; fi
		[ -z "$CHK_GA_CONTROLLER" ] || miss+="${miss:+, }$CHK_GA_CONTROLLER (on the controller)"
	fi
	if [ -z "$miss" ]; then
		chk_row "$h" ga PASS "Global Arrays and MPI $here: ga-config, mpicc, mpirun, GA's libraries"
		return 0
	fi
	chk_row "$h" ga FAIL "Global Arrays incomplete $here: missing $miss; ga_bench and ga-graph are not built or do not run (figures dsm, app-graph-dsm)" \
		"apt-get install $CHK_GA_PACKAGES (Debian 12)$([ "$(inv_var "$h" build)" = hosts ] && echo ", then lite-ae install" || echo ": make deps on the controller, openmpi-bin on the node")"
}

# chk_judge_build HOST IS_NODE: can LITE be built for HOST where its
# 'build' says (lib/lite.sh)? On the host: make, a C compiler and the
# headers of libibverbs, librdmacm (a node's benchmarks) and libcrypto
# (the manager's lite-manager); on the controller: the host runs the
# controller's OS release and the kernel build of its headers. 'make'
# is needed either way (lite-ae install runs make install for liblite).
chk_judge_build() {
	local h=$1 is_node=$2 miss=() m kver why
	while read -r m; do
		case $m in
		"") ;;
		make) miss+=("$m") ;;
		cc) [ "$(inv_var "$h" build)" = controller ] || miss+=("$m") ;;
		openssl/*) [ "$(inv_var "$h" build)" = controller ] || [ "$h" != "$INV_MANAGER" ] || miss+=("$m") ;;
		*) [ "$(inv_var "$h" build)" = controller ] || [ "$is_node" = 0 ] || miss+=("$m") ;;
		esac
	done < <(sed -n 's/^nobuild=//p' "$CHK_DIR/$h.facts")
	if [ "${#miss[@]}" -gt 0 ]; then
		chk_row "$h" build FAIL "missing: ${miss[*]}" \
			"apt-get install build-essential libibverbs-dev librdmacm-dev libssl-dev (LITE is built on this host: build = $(inv_var "$h" build))"
		return 1
	fi
	if [ "$(inv_var "$h" build)" = hosts ]; then
		chk_row "$h" build PASS "on this host: make, cc, headers"
		return 0
	fi
	if [ "$INV_VCLUSTER" = 1 ]; then
		chk_row "$h" build PASS "on the controller (the local guests run its root)"
		return 0
	fi
	kver=$(chk_fact "$h" kernel)
	why=""
	if [ "$(chk_fact "$h" os)" != "$(sh -c "$(lite_os_cmd)")" ]; then
		why="it runs $(chk_fact "$h" os), the controller $(sh -c "$(lite_os_cmd)")"
	elif [ "$is_node" = 1 ] && [ "$(chk_fact "$h" kversion)" != "$(lite_headers_version "$kver")" ]; then
		why="the controller has no headers of its kernel build ($kver '$(chk_fact "$h" kversion)')"
	fi
	if [ -n "$why" ]; then
		chk_row "$h" build FAIL "build = controller, but $why" \
			"set build = hosts in $INV_FILE (LITE is then built on each host), or install linux-headers-$kver on the controller"
		return 1
	fi
	chk_row "$h" build PASS "on the controller ($(chk_fact "$h" os), Linux $kver)"
}

# chk_judge_module HOST: the lite.ko that 'lite-ae install' left on HOST
# must be built for the kernel HOST runs; not built yet is fine (INFO).
chk_judge_module() {
	local h=$1 kernel built why ko
	ko=$(lite_rdir "$h")/lite/module/lite.ko
	kernel=$(chk_fact "$h" ko_kernel) built=$(chk_fact "$h" ko_built)
	if [ "$(chk_fact "$h" ko_present)" != yes ]; then
		chk_row "$h" module INFO "no $ko yet (lite-ae install builds it for Linux $kernel)"
		return
	fi
	why=$(kv_mismatch "$built" "$kernel")
	if [ -z "$why" ]; then
		chk_row "$h" module PASS "lite.ko built for Linux $built"
	else
		chk_row "$h" module FAIL "$why ($ko)" \
			"rebuild it for the running kernel: make lite-install (lite-ae install builds for the nodes' kernel); by hand: make -C lite KVER=$kernel, then lite-ae sync"
	fi
}

# chk_judge_lite HOST: LITE's own state; not installed is fine (INFO).
# The detail ends with /dev/lite's mode and group (dev=0660:lite).
# Where debugfs is readable, its QPs too (lite/qps): one with a zero
# destination MAC is a FAIL (a RoCE NIC sends nothing on it), one not
# ready a WARN (being reconnected after an error; dmesg says which), a
# lost manager connection a FAIL.
chk_judge_lite() {
	local h=$1 v n=${#INV_NODES[@]} dev qt="" qr="" qz="" qps=""
	v=$(chk_fact "$h" lite) dev=$(chk_fact "$h" litedev)
	read -r qt qr qz <<<"$(chk_fact "$h" liteqps)" || true
	[ -z "$qt" ] || qps=" qps_ready=$qr/$qt"
	# lite-join --status's second line, manager=lost: ..., is a fact too.
	if [ -n "$(chk_fact "$h" manager)" ]; then
		chk_row "$h" lite FAIL "the manager connection is lost: no membership change reaches this node; $v" \
			"lite-ae install rejoins every node; check that lite-manager runs on $INV_MANAGER"
		return
	fi
	if [ "$(chk_fact "$h" liteunsafe)" = Y ] && [ "$v" != not-loaded ]; then
		chk_row "$h" lite WARN "UNSAFE: loaded with unsafe_global_rkey=1, every peer can read and write all memory of this host its RDMA device reaches; $v" \
			"drop unsafe_global_rkey from lite_params unless the device cannot fast-register (docs/security.md)"
		return
	fi
	if [ "${qz:-0}" != 0 ] && [ "$v" != not-loaded ]; then
		chk_row "$h" lite FAIL "$qz of $qt QPs send to the zero MAC 00:00:00:00:00:00 (a RoCE NIC drops what they send); $v" \
			"the peer's next hop did not resolve: dmesg names it; check that the hosts reach each other's fabric_ip (ARP/ND) from the GID's net device"
		return
	fi
	if [ -n "$qt" ] && [ "$qr" != "$qt" ] && [ "$v" != not-loaded ]; then
		chk_row "$h" lite WARN "only $qr of $qt QPs ready (the others are being reconnected after an error); $v" \
			"dmesg says which QP broke and why; they come back by themselves within seconds"
		return
	fi
	case "$v" in
	not-loaded | "") chk_row "$h" lite INFO "lite.ko not loaded (lite-ae install)" ;;
	*"nodes=$n "*) chk_row "$h" lite PASS "$v$qps dev=${dev:-?}" ;;
	*) chk_row "$h" lite FAIL "cluster incomplete: $v (want nodes=$n)" \
		"lite-ae install re-forms it; the kernel log (dmesg) says which peer failed" ;;
	esac
}

# chk_cluster: what must agree between the nodes. RoCE v1 and v2 ports
# cannot talk to each other (FAIL); with unequal MTUs each pair runs at the
# smaller one (WARN). Nodes that failed their own checks are left out.
chk_cluster() {
	local h t m types=() mtus=()
	for h in "${INV_NODES[@]}"; do
		[ "${CHK_HOST_OK[$h]:-0}" = 1 ] || continue
		t=$(chk_fact "$h" gid_type) m=$(chk_fact "$h" active_mtu)
		types+=("$h: ${t:-?}")
		[ -z "$m" ] || mtus+=("$h: $m")
	done
	[ "${#types[@]}" -gt 1 ] || return 0
	if [ "$(printf '%s\n' "${types[@]}" | sed 's/^[^:]*: //' | sort -u | wc -l)" = 1 ]; then
		chk_row cluster gid-type PASS "${types[0]#*: } on every node"
	else
		chk_row cluster gid-type FAIL "GID types differ ($(printf '%s, ' "${types[@]}" | sed 's/, $//')): RoCE v1 and v2 ports cannot reach each other" \
			"let every host's gid_index be auto (RoCE v2 where the port has it) or choose RoCE v2 ones in $INV_FILE: grep . /sys/class/infiniband/DEV/ports/PORT/gid_attrs/types/*"
	fi
	[ "${#mtus[@]}" -gt 1 ] || return 0
	if [ "$(printf '%s\n' "${mtus[@]}" | sed 's/^[^:]*: //' | sort -u | wc -l)" = 1 ]; then
		chk_row cluster mtu PASS "active MTU ${mtus[0]#*: } on every node"
	else
		chk_row cluster mtu WARN "active MTUs differ ($(printf '%s, ' "${mtus[@]}" | sed 's/, $//')): each pair runs at the smaller, so figures differ by pair" \
			"give every host's RDMA net device (RoCE) or port (IB) the same MTU"
	fi
}

# chk_pair_run A B SUBJ: ib_write_lat, server on B, client on A, its
# report parsed into CHK_ROW (parse-perftest's row).
CHK_ROW=""
chk_pair_run() {
	AE_TIMEOUT=$CHK_LIMIT pt_run ib_write_lat "$2" "$1" 64 200 "$CHK_DIR" "$3" &&
		CHK_ROW=$("$AE_ROOT/ae-scripts/parse-perftest" "$CHK_DIR/$3.json" 2>"$CHK_DIR/$3.error")
}

# chk_pair A B: a short RDMA write latency run, server on B, client on A.
chk_pair() {
	local a=$1 b=$2 subj="$1-$2" f
	if [ "${CHK_HOST_OK[$a]}" != 1 ] || [ "${CHK_HOST_OK[$b]}" != 1 ]; then
		chk_row "$subj" rdma-traffic SKIP "not run: $([ "${CHK_HOST_OK[$a]}" = 1 ] && echo "$b" || echo "$a") failed its own checks"
		return
	fi
	if chk_pair_run "$a" "$b" "$subj" ||
		{
			# perftest could not calibrate its clock (a loaded or emulated
			# CPU: "Correlation coefficient r^2 ... < 0.9") and reported
			# inf for every latency though the traffic ran: once more, the
			# first try's logs kept as SUBJ.try1.*.
			grep -qs '^Correlation coefficient r^2' "$CHK_DIR/$subj.client.log" &&
				for f in "$CHK_DIR/$subj".*; do mv "$f" "$CHK_DIR/$subj.try1.${f##*/"$subj".}"; done &&
				chk_pair_run "$a" "$b" "$subj"
		}; then
		chk_row "$subj" rdma-traffic PASS "RC write 64 B x200: median $(cut -d, -f4 <<<"$CHK_ROW") us, p99 $(cut -d, -f7 <<<"$CHK_ROW") us"
	else
		chk_row "$subj" rdma-traffic FAIL "$(cat "$CHK_DIR/$subj.error" 2>/dev/null)" \
			"logs: $CHK_DIR/$subj.*.log; both hosts must reach each other's fabric_ip with GIDs of one type"
	fi
}

check_main() {
	local h i j rc pids=() hosts=() is_node
	CHK_DIR=$(mktemp -d "$AE_STATE/check.XXXXXX")
	CHK_LIMIT=$((AE_CHECK_TIMEOUT * AE_SLOW))
	mapfile -t hosts < <(inv_all_hosts)
	printf 'kick-the-tires: %s (%d hosts), step limit %ss\n' "$INV_FILE" "${#hosts[@]}" "$CHK_LIMIT"
	if [ "$AE_DRY_RUN" = 1 ]; then
		for h in "${hosts[@]}"; do chk_probe "$h"; done
		pt_run ib_write_lat "${INV_NODES[1]:-${INV_NODES[0]}}" "${INV_NODES[0]}" 64 200 "$CHK_DIR" dry
		return 0
	fi
	for h in "${hosts[@]}"; do
		if [ -n "${AE_CHECK_FACTS:-}" ]; then
			[ -r "$AE_CHECK_FACTS/$h.facts" ] || ae_die "AE_CHECK_FACTS: no $AE_CHECK_FACTS/$h.facts"
			cp "$AE_CHECK_FACTS/$h.facts" "$CHK_DIR/"
			: >"$CHK_DIR/$h.err"
			true &
		else
			chk_probe "$h" >"$CHK_DIR/$h.facts" 2>"$CHK_DIR/$h.err" &
		fi
		pids+=($!)
	done
	for i in "${!hosts[@]}"; do
		rc=0
		wait "${pids[$i]}" || rc=$?
		is_node=0
		[[ " ${INV_NODES[*]} " == *" ${hosts[$i]} "* ]] && is_node=1
		chk_judge_host "${hosts[$i]}" "$rc" "$is_node"
	done
	chk_cluster
	for ((i = 0; i < ${#INV_NODES[@]}; i++)); do
		for ((j = i + 1; j < ${#INV_NODES[@]}; j++)); do
			if [ -n "${AE_CHECK_FACTS:-}" ]; then
				chk_row "${INV_NODES[$i]}-${INV_NODES[$j]}" rdma-traffic SKIP "not run: judging AE_CHECK_FACTS"
			else
				chk_pair "${INV_NODES[$i]}" "${INV_NODES[$j]}"
			fi
		done
	done

	printf '%-14s %-13s %-5s %s\n' "HOST/PAIR" CHECK RESULT DETAIL
	printf '%s\n' "${CHK_ROWS[@]}"
	if [ "$CHK_FAILED" -gt 0 ]; then
		printf '\nFailures:\n'
		printf '  %s\n' "${CHK_FIXES[@]}"
		printf '\nkick-the-tires: FAIL (%d of %d checks failed; details in %s)\n' \
			"$CHK_FAILED" "${#CHK_ROWS[@]}" "$CHK_DIR"
		return 1
	fi
	printf '\nkick-the-tires: PASS (%d checks)\n' "${#CHK_ROWS[@]}"
	rm -rf "$CHK_DIR"
}

# Kernel log lines that mean trouble: warnings, oopses, the debug kernel's
# reports, and those of slab and page debugging (slub_debug, page_poison;
# the test fixtures boot with them), which name a corrupted or doubly freed
# object without an oops.
AE_DMESG_PROBLEMS='WARNING:|BUG:|kernel BUG at|Oops|Call Trace:|general protection fault|Kernel panic'
AE_DMESG_PROBLEMS+='|BUG [^ ]+ \(|Poison overwritten|double free|Redzone|Object already free'
AE_DMESG_PROBLEMS+='|list_del corruption|list_add corruption|page_poison:|pagealloc: memory corruption'
AE_DMESG_PROBLEMS+='|INFO: .* corrupted'
# The debug kernel's (docs/debug-kernel.md) reports that start with neither
# WARNING: nor BUG: (KASAN, lockdep, sleep-in-atomic, lockups and ODEBUG's
# reports do: the last match 'BUG:' in 'ODEBUG:').
AE_DMESG_PROBLEMS+='|UBSAN:|suspected memory leak|unreferenced object 0x'
AE_DMESG_PROBLEMS+='|INFO: task .* blocked for more than|rcu: INFO: .* detected stall'

# dmesg_problems: print the lines of a kernel log (stdin) that mean
# trouble; status 0 if there are any. The command line echoed at boot
# names page_poison and the like without anything being wrong, and so
# does init's environment, which a kernel that does not know page_poison=
# (the debug kernel) lists one parameter a line.
dmesg_problems() {
	grep -vi 'command line' | grep -E "$AE_DMESG_PROBLEMS"
}

# check_dmesg: any WARNING/BUG/Oops or slab/page debugging report in a
# node's kernel log fails.
check_dmesg() {
	local out rc=0 h
	for h in "${INV_NODES[@]}"; do
		out=$(ae_ssh "$h" "dmesg --notime 2>/dev/null || cat /dev/kmsg" 2>&1) || {
			ae_warn "$h: cannot read the kernel log: $out"
			rc=1
			continue
		}
		if dmesg_problems <<<"$out" >&2; then
			ae_warn "$h: kernel log shows the problems above"
			rc=1
		fi
	done
	[ "$rc" = 0 ] && ae_log "dmesg clean on ${#INV_NODES[@]} nodes"
	return "$rc"
}
