# shellcheck shell=bash
# Guest kernels: which kernel series LITE supports, the boot cache that
# holds several kernels side by side, and what to say when a module was
# built for another kernel than the one a host runs. Sourced by lite-ae
# and deps.sh, so it uses nothing but bash and coreutils.
#
# The cache ($AE_CACHE): modules/ is the union of the unpacked
# linux-image packages (modules/boot/vmlinuz-KVER, modules/lib/modules/KVER
# for every KVER fetched), initramfs-KVER.cpio.gz one per kernel, and kver
# the default kernel (the one 'make up' boots without KVER=).

# The series LITE builds for; tests/unit/kbuild builds against the newest
# installed headers of each, and 'make deps' installs them.
# shellcheck disable=SC2034 # used by deps.sh and tests/unit/kbuild
AE_KERNEL_SERIES=(6.1 6.12)

# kv_valid KVER: true for a kernel release name (no path, no spaces).
kv_valid() { [[ "$1" =~ ^[0-9]+\.[0-9]+[A-Za-z0-9.+_~-]*$ ]]; }

# kv_debug_name SERIES: what KVER= says for the debug kernel of SERIES:
# 'debug' for 6.1 (the first one), 'debug-6.12' for 6.12.
kv_debug_name() {
	if [ "$1" = 6.1 ]; then echo debug; else echo "debug-$1"; fi
}

# kv_debug_file NAME: the cache file that holds the release of debug
# kernel NAME (debug -> debug-kver, debug-6.12 -> debug-kver-6.12).
kv_debug_file() { echo "debug-kver${1#debug}"; }

# kv_is_debug_name KVER: true for debug, debug-6.1 or debug-6.12.
kv_is_debug_name() { [[ "$1" =~ ^debug(-[0-9]+\.[0-9]+)?$ ]]; }

# kv_resolve CACHE KVER: KVER, except a debug name (kv_debug_name): the
# release of that debug guest kernel (make deps-debug,
# ae-scripts/deps-debug.sh), empty when it has not been built.
kv_resolve() {
	if kv_is_debug_name "$2"; then
		local n=$2
		[ "$n" != debug-6.1 ] || n=debug
		[ -f "$1/$(kv_debug_file "$n")" ] && cat "$1/$(kv_debug_file "$n")"
		return 0
	fi
	echo "$2"
}

# kv_is_debug KVER: true for the debug guest kernel's release.
kv_is_debug() { [[ "$1" == *-lite-debug ]]; }

# kv_cached CACHE KVER: true when CACHE holds the image and modules of KVER.
kv_cached() {
	[ -f "$1/modules/boot/vmlinuz-$2" ] && [ -d "$1/modules/lib/modules/$2/kernel" ]
}

# kv_default CACHE: the cache's default kernel, empty if none.
kv_default() {
	[ -f "$1/kver" ] && cat "$1/kver"
	return 0
}

# kv_series_headers SERIES: the newest kernel of SERIES (6.1, 6.12) whose
# headers are installed, e.g. 6.12.111+deb12-amd64; empty if none.
kv_series_headers() {
	local d k
	for d in /lib/modules/"$1".*/build; do
		[ -f "$d/Makefile" ] || continue
		k=${d%/build}
		k=${k##*/}
		# Debian's generic kernels only (not rt, cloud or the debug
		# kernel); an if, so that the loop's status is 0 (pipefail).
		if [[ "$k" == *-amd64 ]] && [[ "$k" != *-rt-amd64 ]] && [[ "$k" != *-cloud-amd64 ]]; then
			echo "$k"
		fi
	done | sort -V | tail -n 1
}

# kc_merge_tree SRC DST: move every file and symlink of the tree SRC into
# DST at the same relative path. Refuses (status 1, nothing moved) when any
# of them already exists in DST: a kernel added to the cache never
# replaces a file of another one, which a running guest may be using.
kc_merge_tree() {
	local src=$1 dst=$2 f clash=0
	while IFS= read -r -d '' f; do
		if [ -e "$dst/$f" ] || [ -L "$dst/$f" ]; then
			printf '%s\n' "kc_merge_tree: $dst/$f exists; not replacing it" >&2
			clash=1
		fi
	done < <(cd "$src" && find . \( -type f -o -type l \) -printf '%P\0')
	[ "$clash" = 0 ] || return 1
	while IFS= read -r -d '' f; do
		mkdir -p "$dst/$(dirname "$f")"
		mv -n "$src/$f" "$dst/$f"
	done < <(cd "$src" && find . \( -type f -o -type l \) -printf '%P\0')
}

# kv_mismatch BUILT RUNNING: empty when a module built for BUILT loads on
# a host running RUNNING; else what is wrong, in one line.
kv_mismatch() {
	local built=$1 running=$2
	if [ -z "$built" ]; then
		echo "lite.ko has no vermagic (not a kernel module?)"
	elif [ "$built" != "$running" ]; then
		echo "lite.ko is built for Linux $built, but this host runs $running"
	fi
}

# kv_vermagic_cmd FILE [PREFIX]: a remote command line (POSIX shell)
# printing the running kernel, whether FILE (a .ko) is there and the
# kernel it was built for: PREFIXkernel=..., PREFIXpresent=yes|no,
# PREFIXbuilt=... (empty when FILE is missing).
kv_vermagic_cmd() {
	local f=$1 p=${2:-}
	# shellcheck disable=SC2016 # for the remote shell
	printf 'echo "%skernel=$(uname -r)"; if [ -f %s ]; then echo %spresent=yes; m=$( (modinfo -F vermagic %s || /sbin/modinfo -F vermagic %s) 2>/dev/null); else echo %spresent=no; m=; fi; echo "%sbuilt=${m%%%% *}"\n' \
		"$p" "$f" "$p" "$f" "$f" "$p" "$p"
}
