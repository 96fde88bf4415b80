#!/usr/bin/env bash
# Install what the controller needs, and fetch the guest kernel of the local
# cluster. Idempotent: when everything is present it returns in about a second
# without touching the network.
set -euo pipefail

AE_ROOT=$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)
AE_CACHE=${AE_CACHE:-$AE_ROOT/.cache/vm}
# shellcheck source=ae-scripts/lib/kernels.sh
. "$AE_ROOT/ae-scripts/lib/kernels.sh"

PACKAGES=(
	qemu-system-x86 qemu-utils busybox-static kmod cpio
	rdma-core ibverbs-providers ibverbs-utils libibverbs-dev librdmacm-dev perftest
	pdsh rsync openssh-client openssh-server iproute2
	gnuplot-nox fonts-dejavu-core shellcheck make gcc coreutils procps
	clang libclang-rt-dev pkg-config libssl-dev python3
	# The module's static checks (tests/unit/kbuild, tests/unit/checkpatch):
	# sparse, and checkpatch.pl from the kernel's own source.
	sparse linux-source-6.1
	# The applications' baselines: LITE-Log against Redis streams,
	# LITE-Graph against OpenMPI (mpirun over TCP), LITE-MapReduce against
	# MapReduce-MPI (over the same OpenMPI), LITE-Graph-DSM against Global
	# Arrays (over ARMCI-MPI and the same OpenMPI). GA comes as static
	# archives that need ScaLAPACK, LAPACK, BLAS and gfortran's runtime
	# (ga-config --libs, --flibs); the guests see all of it, run-time
	# libraries included, through the controller's root.
	redis-server libhiredis-dev
	openmpi-bin libopenmpi-dev libmrmpi-dev
	libglobalarrays-dev libarmci-mpi-dev libscalapack-openmpi-dev
	liblapack-dev libblas-dev gfortran
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

# checkpatch.pl and the files it reads, taken once from linux-source-6.1
# into the cache (tests/unit/checkpatch).
if [ ! -f "$AE_CACHE/checkpatch/scripts/checkpatch.pl" ]; then
	log "extracting checkpatch.pl from /usr/src/linux-source-6.1.tar.xz"
	mkdir -p "$AE_CACHE"
	cp_tmp=$(mktemp -d "$AE_CACHE/.checkpatch.XXXXXX")
	tar -xJf /usr/src/linux-source-6.1.tar.xz -C "$cp_tmp" --strip-components=1 --wildcards \
		'*/scripts/checkpatch.pl' '*/scripts/spelling.txt' '*/scripts/const_structs.checkpatch'
	rm -rf "$AE_CACHE/checkpatch"
	mv "$cp_tmp" "$AE_CACHE/checkpatch"
fi

# Guest kernels, unpacked into the cache side by side (never installed on
# the controller), with the matching headers installed so modules can be
# built here. KVER=x fetches x if it is missing; without KVER, the cache's
# default kernel ($AE_CACHE/kver), or on a fresh cache the version the
# linux-image-amd64 metapackage points to, which becomes the default. A
# kernel already in the cache is never touched: a running cluster may be
# using its files.
kver=${KVER:-}
if kv_is_debug_name "$kver"; then
	# Built from source by deps-debug.sh, its build tree for headers.
	name=$kver
	kver=$(kv_resolve "$AE_CACHE" "$name")
	{ [ -n "$kver" ] && kv_cached "$AE_CACHE" "$kver"; } || { log "KVER=$name: no such debug guest kernel yet: run 'make deps-debug' (DEBUG_SERIES for another series)"; exit 1; }
	[ -f "/lib/modules/$kver/build/Makefile" ] || { log "KVER=$name: /lib/modules/$kver/build is missing: run 'make deps-debug'"; exit 1; }
elif [ -n "$kver" ]; then
	kv_valid "$kver" || { log "KVER='$kver' is not a kernel release (e.g. 6.12.111+deb12-amd64)"; exit 1; }
else
	kver=$(kv_default "$AE_CACHE")
fi
if [ -z "$kver" ]; then
	[ "$apt_updated" = 1 ] || { apt-get update -qq; apt_updated=1; }
	kver=$(apt-cache depends linux-image-amd64 | awk '/Depends: linux-image-/ { sub("linux-image-", "", $2); print $2; exit }')
	[ -n "$kver" ] || { log "cannot resolve the kernel behind linux-image-amd64"; exit 1; }
fi
if ! kv_cached "$AE_CACHE" "$kver"; then
	[ "$(id -u)" = 0 ] || { log "need root to fetch the guest kernel $kver"; exit 1; }
	log "fetching guest kernel linux-image-$kver"
	mkdir -p "$AE_CACHE/modules"
	# Staged in the cache's file system, so that adding it is a rename.
	tmp=$(mktemp -d "$AE_CACHE/.fetch.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	(cd "$tmp" && apt-get download -q "linux-image-$kver" >/dev/null 2>&1) || {
		log "apt-get download linux-image-$kver failed (a release Debian ships? apt-cache policy linux-image-$kver)"
		exit 1
	}
	mkdir "$tmp/root"
	dpkg-deb -x "$tmp"/linux-image-*.deb "$tmp/root"
	depmod -b "$tmp/root" "$kver"
	kc_merge_tree "$tmp/root" "$AE_CACHE/modules" || { log "cannot add $kver to $AE_CACHE/modules"; exit 1; }
fi
[ -n "$(kv_default "$AE_CACHE")" ] || echo "$kver" >"$AE_CACHE/kver"
if ! kv_is_debug "$kver"; then
	mapfile -t missing < <(missing_packages "linux-headers-$kver")
	apt_install "${missing[@]}"
fi

# Headers of every series LITE builds for ('make test' builds against each):
# the newest of a series the archive has, unless one is installed.
for series in "${AE_KERNEL_SERIES[@]}"; do
	[ -z "$(kv_series_headers "$series")" ] || continue
	[ "$apt_updated" = 1 ] || { apt-get update -qq; apt_updated=1; }
	pkg=$(apt-cache pkgnames "linux-headers-$series." |
		grep -E "^linux-headers-${series//./\\.}\.[0-9][0-9a-z.+~-]*-amd64$" |
		grep -vE -- '-(rt|cloud)-amd64$' | sort -V | tail -n 1)
	[ -n "$pkg" ] || { log "no linux-headers package of Linux $series in the archive"; exit 1; }
	apt_install "$pkg"
done
log "ok (guest kernel $kver; default $(kv_default "$AE_CACHE"))"
