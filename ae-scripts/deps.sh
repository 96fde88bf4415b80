#!/usr/bin/env bash
# Install what the controller needs, and fetch the guest kernel of the local
# cluster. Idempotent: when everything is present it returns in about a second
# without touching the network.
set -euo pipefail

AE_ROOT=$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)
AE_CACHE=${AE_CACHE:-$AE_ROOT/.cache/vm}

PACKAGES=(
	qemu-system-x86 qemu-utils busybox-static kmod cpio
	rdma-core ibverbs-providers ibverbs-utils libibverbs-dev librdmacm-dev perftest
	pdsh rsync openssh-client openssh-server iproute2
	gnuplot-nox fonts-dejavu-core shellcheck make gcc coreutils procps
	clang libclang-rt-dev pkg-config libssl-dev python3
)

log() { printf 'deps: %s\n' "$*" >&2; }

missing_packages() {
	local p
	for p in "$@"; do
		dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' ||
			echo "$p"
	done
}

apt_updated=0
apt_install() {
	[ "$#" -gt 0 ] || return 0
	[ "$(id -u)" = 0 ] || { log "need root to install: $*"; exit 1; }
	if [ "$apt_updated" = 0 ]; then
		apt-get update -qq
		apt_updated=1
	fi
	log "installing: $*"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

mapfile -t missing < <(missing_packages "${PACKAGES[@]}")
apt_install "${missing[@]}"

# Guest kernel: the version the linux-image-amd64 metapackage points to,
# unpacked into the cache (never installed on the controller), with the
# matching headers installed so modules can be built here.
if [ -f "$AE_CACHE/kver" ] && [ -f "$AE_CACHE/modules/boot/vmlinuz-$(cat "$AE_CACHE/kver")" ]; then
	kver=$(cat "$AE_CACHE/kver")
else
	[ "$apt_updated" = 1 ] || { apt-get update -qq; apt_updated=1; }
	kver=$(apt-cache depends linux-image-amd64 | awk '/Depends: linux-image-/ { sub("linux-image-", "", $2); print $2; exit }')
	[ -n "$kver" ] || { log "cannot resolve the kernel behind linux-image-amd64"; exit 1; }
	log "fetching guest kernel linux-image-$kver"
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	(cd "$tmp" && apt-get download -q "linux-image-$kver" >/dev/null 2>&1)
	rm -rf "$AE_CACHE/modules"
	mkdir -p "$AE_CACHE/modules"
	dpkg-deb -x "$tmp"/linux-image-*.deb "$AE_CACHE/modules"
	depmod -b "$AE_CACHE/modules" "$kver"
	echo "$kver" >"$AE_CACHE/kver"
fi
mapfile -t missing < <(missing_packages "linux-headers-$kver")
apt_install "${missing[@]}"
log "ok (guest kernel $kver)"
