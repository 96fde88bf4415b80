# shellcheck shell=bash
# mpirun across the inventory's first N nodes, for the figures that compare
# an application with its MPI baseline (app-graph, app-mapreduce).
# mpirun starts its ranks over ssh between the hosts: on the local cluster
# with the guests' own key, which each guest copied at boot
# (vc_guest_ssh_cmd); elsewhere set MPI_RSH_AGENT (e.g. 'ssh -i KEY'), else
# OpenMPI's plain ssh must reach every host as root. MPI_NET (default the
# first node's fabric /24) confines OpenMPI's data and control traffic.

# mpi_setup FIGURE [--one-sided]: check that mpirun can start every rank
# from one path (the first node's remote_dir), and settle the network and
# ssh agent. --one-sided (the figures whose programs use MPI's one-sided
# operations: Global Arrays over ARMCI-MPI) pins OpenMPI's one-sided
# component to MPI_OSC (default pt2pt: over the btl, TCP here, as
# tests/unit/dsm-bench runs ga_bench). Left to itself OpenMPI 4.1 takes
# the one of highest priority that initialises (rdma 101, then ucx 60),
# which depends on what each host has: two clusters could measure GA
# over different transports without saying so.
mpi_setup() {
	local h
	MPI_OSC_SEL=""
	[ "${2:-}" != --one-sided ] || MPI_OSC_SEL=${MPI_OSC:-pt2pt}
	for h in "${INV_NODES[@]}"; do
		[ "$(lite_rdir "$h")" = "$(lite_rdir "${INV_NODES[0]}")" ] ||
			ae_die "$1: mpirun needs one remote_dir on every node; $h has $(lite_rdir "$h"), ${INV_NODES[0]} $(lite_rdir "${INV_NODES[0]}")"
	done
	MPI_NET_CIDR=${MPI_NET:-$(inv_var "${INV_NODES[0]}" fabric_ip | sed 's/\.[0-9]*$/.0/')/24}
	if [ -n "${MPI_RSH_AGENT+set}" ]; then
		MPI_RSH=$MPI_RSH_AGENT
	elif [ "$INV_VCLUSTER" = 1 ]; then
		MPI_RSH=$(vc_guest_ssh_cmd)
	else
		MPI_RSH=""
	fi
}

# mpi_need FIGURE PROG HOST...: PROG (a path under the one remote_dir) is
# on every HOST that runs one of its ranks, else the figure stops at once
# naming them: a Global Arrays program is built only where ga-config and
# mpicc are (kick-the-tires' ga row says what each node lacks).
mpi_need() {
	local fig=$1 prog=$2 h
	local -a miss=()
	shift 2
	[ "$AE_DRY_RUN" = 0 ] || return 0
	for h in "$@"; do
		ae_ssh "$h" "test -x $prog" || miss+=("$h")
	done
	[ "${#miss[@]}" = 0 ] ||
		ae_die "$fig: no ${prog##*/} on ${miss[*]}: it is built only where Global Arrays and OpenMPI are (Debian 12: ${CHK_GA_PACKAGES:-see lib/check.sh}); 'lite-ae check' names what each node lacks; then make deps (build = controller) or lite-ae install (build = hosts)"
}

# mpi_hosts N: mpirun's --host list, one slot on each of the first N
# nodes' fabric addresses.
mpi_hosts() {
	local h list=""
	for h in "${INV_NODES[@]:0:$1}"; do
		list+="${list:+,}$(inv_var "$h" fabric_ip):1"
	done
	echo "$list"
}

# mpi_cmd N: the mpirun command line (without the program) for one rank on
# each of the first N nodes, over TCP on MPI_NET_CIDR (mpi_setup first).
# Where those guests have more vCPUs than this host has cores
# (mb_oversubscribed), the ranks yield the CPU while they wait
# (mpi_yield_when_idle): mpirun sees one slot per host and would let them
# spin, taking the cores the other guests' ranks and Soft-RoCE need.
mpi_cmd() {
	local cmd
	cmd="mpirun --allow-run-as-root -np $1 --host $(mpi_hosts "$1") --mca btl tcp,self"
	cmd+=" --mca btl_tcp_if_include $MPI_NET_CIDR --mca oob_tcp_if_include $MPI_NET_CIDR"
	[ -z "${MPI_OSC_SEL:-}" ] || cmd+=" --mca osc $MPI_OSC_SEL"
	! mb_oversubscribed "$1" || cmd+=" --mca mpi_yield_when_idle 1"
	[ -z "$MPI_RSH" ] || cmd+=" --mca plm_rsh_agent '$MPI_RSH'"
	echo "$cmd"
}

# mpi_version_note OUTDIR: the mpirun version and the network, in the
# provenance; with a pinned one-sided component (mpi_setup --one-sided)
# that too (mpi_osc:), after checking that every node's OpenMPI has it.
mpi_version_note() {
	local h have first="" n yield="ranks spin while they wait (no point oversubscribed)"
	[ "$AE_DRY_RUN" = 0 ] || return 0
	for n in $(seq "${#INV_NODES[@]}"); do
		if mb_oversubscribed "$n"; then
			yield="ranks yield while they wait (mpi_yield_when_idle 1) from $n nodes on: more vCPUs than the host's $(nproc) cores"
			break
		fi
	done
	mb_note "$1" "mpi: $(ae_ssh "${INV_NODES[0]}" "mpirun --version" 2>&1 | head -n 1), btl tcp on $MPI_NET_CIDR; $yield"
	[ -n "${MPI_OSC_SEL:-}" ] || return 0
	for h in "${INV_NODES[@]}"; do
		have=$(ae_ssh "$h" ompi_info 2>/dev/null | sed -n 's/^ *MCA osc: \([^ ]*\) .*/\1/p' | paste -sd' ' -) || have=""
		[[ " $have " == *" $MPI_OSC_SEL "* ]] ||
			ae_die "OpenMPI on $h has no one-sided component '$MPI_OSC_SEL' (ompi_info's osc: ${have:-none found}); MPI_OSC=NAME pins another"
		[ -n "$first" ] || first=$have
	done
	mb_note "$1" "mpi_osc: $MPI_OSC_SEL (pinned: --mca osc $MPI_OSC_SEL, knob MPI_OSC; the osc components of ${INV_NODES[0]}'s OpenMPI: $first)"
}
