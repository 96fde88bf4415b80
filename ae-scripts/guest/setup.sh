#!/bin/bash
# Stage 2 of a local-cluster guest: busybox init runs this once at boot on the
# overlay of the controller's root. It turns the guest into what a real host
# of the inventory looks like: hostname, kernel modules and headers for the
# running kernel, a fabric NIC with a Soft-RoCE device on it, and sshd.
# Parameters (kernel command line): AE_NODE, AE_FABRIC_IP, AE_RDMA_DEV,
# AE_CACHE (boot cache directory), AE_HOSTS (name=ip,... of every guest).
set -euo pipefail

say() { echo "lite-ae guest $AE_NODE: $*" >/dev/console; }
trap 'say "setup failed at line $LINENO"' ERR

kver=$(uname -r)
hostname "$AE_NODE"
echo "$AE_NODE" >/etc/hostname

# Take what is needed from the controller's boot cache first: the mounts
# below may hide its path (a checkout can live under /tmp or /root), and
# nothing run here later may need it. /etc/lite-ae/ssh is VC_GUEST_SSH
# (lib/vcluster.sh): sshd's files, and the key and known_hosts with which
# one guest reaches another (mpirun).
mkdir -p /etc/lite-ae/ssh "/lib/modules/$kver/kernel"
cp "$AE_CACHE/ssh/sshd_config" "$AE_CACHE/ssh/authorized_keys" \
	"$AE_CACHE/ssh/ssh_host_ed25519_key" "$AE_CACHE/ssh/guest_ed25519" \
	"$AE_CACHE/ssh/known_hosts" /etc/lite-ae/ssh/
chmod 600 /etc/lite-ae/ssh/ssh_host_ed25519_key /etc/lite-ae/ssh/guest_ed25519
# The guest kernel's modules; the controller's linux-headers package
# already provides /lib/modules/$kver/build.
cp "$AE_CACHE/modules/lib/modules/$kver"/modules.* "/lib/modules/$kver/"
mount --bind "$AE_CACHE/modules/lib/modules/$kver/kernel" "/lib/modules/$kver/kernel"
# The debug kernels' build trees are in the checkout's cache, which the
# mounts below hide when the checkout (or a link on the way to its cache)
# is under /tmp or /root: linked by the path it resolves to, and bound
# where it stays visible when that is hidden too.
build=$(readlink -f "/lib/modules/$kver/build" || true)
if [ -f "$build/Makefile" ]; then
	case "$build" in
	/tmp/* | /root/* | /run/*)
		mkdir -p "/lib/modules/$kver/build.tree"
		mount --bind "$build" "/lib/modules/$kver/build.tree"
		ln -sfn build.tree "/lib/modules/$kver/build"
		;;
	*) ln -sfn "$build" "/lib/modules/$kver/build" ;;
	esac
fi

# Fresh runtime directories and a home of its own: the controller's /run,
# /tmp and dotfiles (shell init, keys) stay out.
mount -t tmpfs -o mode=0755 run /run
mount -t tmpfs -o mode=1777 tmp /tmp
mount -t tmpfs -o mode=0700 roothome /root
mkdir -p /dev/pts /dev/shm
mount -t devpts -o gid=5,mode=620,ptmxmode=666 devpts /dev/pts
mount -t tmpfs -o mode=1777 shm /dev/shm

modprobe -a crc32_generic virtio_net rdma_rxe ib_uverbs rdma_ucm

# NICs are told apart by MAC: 52:54:00:1a:* fabric, 52:54:00:1b:* management.
for dev in /sys/class/net/*; do
	case "$(cat "$dev/address")" in
	52:54:00:1a:*) ip link set "${dev##*/}" name fabric0 ;;
	52:54:00:1b:*) ip link set "${dev##*/}" name mgmt0 ;;
	esac
done
ip link set lo up
# The multicast fabric loops each guest's own frames back to it, which
# IPv6 duplicate address detection would take for a clash: the fabric is
# IPv4 only (RoCEv2 GID index 1 is the IPv4-mapped one).
echo 1 >/proc/sys/net/ipv6/conf/fabric0/disable_ipv6
ip addr add "$AE_FABRIC_IP/24" dev fabric0
# Jumbo frames, as RoCE fabrics run: rxe's path MTU becomes 4096 (from 1024
# at 1500), a quarter of the packets per byte for every RDMA stack, and TCP
# gets 9000-byte segments too. app-graph at 3 nodes: LITE-Graph 63 -> 48 ms
# per iteration, mpi-graph 181 -> 73 ms (one run each). The fabric's UDP
# datagrams stay under loopback's 64 KiB MTU.
ip link set fabric0 mtu 9000 up
ip addr add 10.0.2.15/24 dev mgmt0
ip link set mgmt0 up

{
	echo "127.0.0.1 localhost"
	IFS=, read -r -a pairs <<<"$AE_HOSTS"
	for p in "${pairs[@]}"; do
		echo "${p#*=} ${p%%=*}"
	done
} >/etc/hosts

rdma link add "$AE_RDMA_DEV" type rxe netdev fabric0

# RDMA programs pin memory: sessions inherit sshd's limit.
ulimit -l unlimited
mkdir -p /run/sshd
/usr/sbin/sshd -f /etc/lite-ae/ssh/sshd_config
say "ready"
