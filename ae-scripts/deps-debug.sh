#!/usr/bin/env bash
# make deps-debug: build, once, the debug guest kernel: Debian's
# linux-source-SERIES (the upstream version of the stock guest kernel;
# DEBUG_SERIES=6.1, the default, or 6.12) with
# x86_64_defconfig + kvm_guest.config + ae-scripts/debug-kernel.config
# (KASAN, lockdep, kmemleak, UBSAN, ...; docs/debug-kernel.md). It goes
# into the boot cache beside the stock kernels (modules/boot/vmlinuz-KVER,
# modules/lib/modules/KVER) and its build tree serves as the controller's
# /lib/modules/KVER/build, so lite.ko builds against it like against any
# headers package. $AE_CACHE/debug-kver names the 6.1 one ('make up
# KVER=debug'), $AE_CACHE/debug-kver-6.12 the 6.12 one (KVER=debug-6.12).
# Idempotent: a kernel already in the cache is not rebuilt.
# Knobs: DEBUG_SERIES (6.1), DEBUG_JOBS (default nproc).
set -euo pipefail

AE_ROOT=$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)
AE_CACHE=${AE_CACHE:-$AE_ROOT/.cache/vm}
# shellcheck source=ae-scripts/lib/kernels.sh
. "$AE_ROOT/ae-scripts/lib/kernels.sh"
FRAGMENT=$AE_ROOT/ae-scripts/debug-kernel.config
SERIES=${DEBUG_SERIES:-6.1}
case " ${AE_KERNEL_SERIES[*]} " in
*" $SERIES "*) ;;
*) printf 'deps-debug: DEBUG_SERIES=%s: LITE supports %s\n' "$SERIES" "${AE_KERNEL_SERIES[*]}" >&2; exit 1 ;;
esac
BUILD_PACKAGES=("linux-source-$SERIES" bc bison flex libelf-dev libssl-dev xz-utils cpio rsync kmod make gcc)

log() { printf 'deps-debug: %s\n' "$*" >&2; }
die() { log "$*"; exit 1; }

KVER="" "$AE_ROOT/ae-scripts/deps.sh"

missing=()
for p in "${BUILD_PACKAGES[@]}"; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
	[ "$(id -u)" = 0 ] || die "need root to install: ${missing[*]}"
	apt-get update -qq
	log "installing: ${missing[*]}"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi

tarball=$(find /usr/src -maxdepth 1 -name "linux-source-$SERIES.tar.xz" | head -n 1)
[ -n "$tarball" ] || die "linux-source-$SERIES installed, but /usr/src/linux-source-$SERIES.tar.xz is missing"
srcver=$(dpkg-query -W -f='${Version}' "linux-source-$SERIES")

# The build tree: one per source package version, kept (it is the headers).
tree=$AE_CACHE/debug/linux-$srcver
if [ ! -f "$tree/.lite-built" ]; then
	rm -rf "$tree" "$tree.tmp"
	mkdir -p "$tree.tmp"
	log "unpacking $tarball ($srcver)"
	tar -xf "$tarball" -C "$tree.tmp" --strip-components=1
	mv "$tree.tmp" "$tree"
	(
		cd "$tree"
		make -s x86_64_defconfig
		scripts/kconfig/merge_config.sh -m .config kernel/configs/kvm_guest.config \
			"$FRAGMENT" >/dev/null
		make -s olddefconfig
	)
	# Every option the fragment sets must have taken (a dependency Kconfig
	# could not meet drops one silently).
	bad=0
	while IFS= read -r line; do
		case $line in
		CONFIG_*=*)
			grep -qxF "$line" "$tree/.config" || {
				log "$FRAGMENT: '$line' did not take effect (.config has: $(grep "^${line%%=*}=" "$tree/.config" || echo 'not set'))"
				bad=1
			} ;;
		"# CONFIG_"*" is not set")
			opt=${line#"# "}
			opt=${opt%% *}
			! grep -q "^$opt=" "$tree/.config" || log "note: $opt stays on (selected by another option)" ;;
		esac
	done <"$FRAGMENT"
	[ "$bad" = 0 ] || die "the debug kernel's configuration is not what $FRAGMENT asks for"
	log "building ($(nproc) CPUs; about 40 minutes on 2 cores)"
	start=$SECONDS
	make -s -C "$tree" -j"${DEBUG_JOBS:-$(nproc)}" bzImage modules >"$AE_CACHE/debug/build-$SERIES.log" 2>&1 ||
		die "the kernel build failed; last lines of $AE_CACHE/debug/build-$SERIES.log:
$(tail -n 20 "$AE_CACHE/debug/build-$SERIES.log")"
	log "built in $(((SECONDS - start) / 60)) min"
	touch "$tree/.lite-built"
fi

kver=$(make -s -C "$tree" kernelrelease)
kv_valid "$kver" || die "unexpected kernel release '$kver'"
if ! kv_cached "$AE_CACHE" "$kver"; then
	tmp=$(mktemp -d "$AE_CACHE/.debug.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	make -s -C "$tree" INSTALL_MOD_PATH="$tmp/root" INSTALL_MOD_STRIP=1 DEPMOD=true modules_install
	rm -f "$tmp/root/lib/modules/$kver/build" "$tmp/root/lib/modules/$kver/source"
	mkdir -p "$tmp/root/boot"
	cp "$tree/arch/x86/boot/bzImage" "$tmp/root/boot/vmlinuz-$kver"
	depmod -b "$tmp/root" "$kver"
	kc_merge_tree "$tmp/root" "$AE_CACHE/modules" || die "cannot add $kver to $AE_CACHE/modules"
fi
# Its headers, where builds for Linux $kver look (as a headers package
# would put them); the guests see the same path through the shared root.
# Linked by the path the tree resolves to: a clone whose .cache links to
# another checkout's may be deleted, the other checkout's cache stays.
[ "$(id -u)" = 0 ] || die "need root to link /lib/modules/$kver/build"
mkdir -p "/lib/modules/$kver"
ln -sfn "$(readlink -f "$tree")" "/lib/modules/$kver/build"
name=$(kv_debug_name "$SERIES")
echo "$kver" >"$AE_CACHE/$(kv_debug_file "$name")"
log "ok (debug guest kernel $kver: make up KVER=$name)"
