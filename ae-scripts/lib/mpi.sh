# shellcheck shell=bash
# mpirun across the inventory's first N nodes, for the figures that compare
# an application with its MPI baseline (app-graph, app-mapreduce).
# mpirun starts its ranks over ssh between the hosts: on the local cluster
# with the guests' own key, which each guest copied at boot
# (vc_guest_ssh_cmd); elsewhere set MPI_RSH_AGENT (e.g. 'ssh -i KEY'), else
# OpenMPI's plain ssh must reach every host as root. MPI_NET (default the
# first node's fabric /24) confines OpenMPI's data and control traffic.

# mpi_setup FIGURE: check that mpirun can start every rank from one path
# (the first node's remote_dir), and settle the network and ssh agent.
mpi_setup() {
	local h
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
	! mb_oversubscribed "$1" || cmd+=" --mca mpi_yield_when_idle 1"
	[ -z "$MPI_RSH" ] || cmd+=" --mca plm_rsh_agent '$MPI_RSH'"
	echo "$cmd"
}

# mpi_version_note OUTDIR: the mpirun version and the network, in the
# provenance.
mpi_version_note() {
	local n yield="ranks spin while they wait (no point oversubscribed)"
	for n in $(seq "${#INV_NODES[@]}"); do
		if mb_oversubscribed "$n"; then
			yield="ranks yield while they wait (mpi_yield_when_idle 1) from $n nodes on: more vCPUs than the host's $(nproc) cores"
			break
		fi
	done
	[ "$AE_DRY_RUN" = 1 ] ||
		mb_note "$1" "mpi: $(ae_ssh "${INV_NODES[0]}" "mpirun --version" 2>&1 | head -n 1), btl tcp on $MPI_NET_CIDR; $yield"
}
