# SPDX-License-Identifier: GPL-2.0
# Shared helpers for powerpin's scripts (sourced, not run).

PP_CACHE=${POWERPIN_CACHE:-/var/cache/powerpin}
# depmod, modprobe and mkfs.ext4 live in sbin, off a normal user's PATH
PATH=$PATH:/usr/sbin:/sbin
# Kernel matrix: name -> Debian meta package of the image.
PP_KERNELS=${POWERPIN_KERNELS:-"6.1 6.12"}

log() { printf 'powerpin: %s\n' "$*" >&2; }
die() { printf 'powerpin: error: %s\n' "$*" >&2; exit 1; }

# kernel_meta NAME: the headers meta package that tracks kernel NAME; the
# image meta package of the same name (linux-image-*) always has the same ABI.
kernel_meta() {
	case "$1" in
	6.1) echo linux-headers-amd64 ;;
	6.12) echo linux-headers-6.12-amd64 ;;
	*) return 1 ;;
	esac
}

# kernel_abi NAME: the ABI string (e.g. 6.1.0-56-amd64) the meta package
# depends on: the installed meta package if there is one (offline, and what
# the installed headers match), else the archive's.
kernel_abi() {
	local meta abi
	meta=$(kernel_meta "$1") || return 1
	abi=$(dpkg-query -W -f='${Depends}' "$meta" 2>/dev/null |
		sed -n 's/^linux-headers-\([^ ,]*\).*/\1/p')
	[ -n "$abi" ] || abi=$(apt-cache depends "$meta" 2>/dev/null |
		sed -n 's/^ *Depends: linux-headers-\(.*\)$/\1/p' | head -n 1)
	[ -n "$abi" ] && echo "$abi"
}

# ---- Linux 3.10 (Nexus 6 generation), 32-bit ARM -----------------------------
# No archive has a 3.10 kernel: the guest is built by scripts/linux-3.10 from
# a tree the user already has.
linux310_src_default() { echo "$PP_CACHE/linux-3.10-src"; }
# linux310_tree: the 3.10 source tree to use, or fail
linux310_tree() {
	local t=${POWERPIN_LINUX_3_10:-$(linux310_src_default)}
	[ -f "$t/Makefile" ] && grep -qx 'VERSION = 3' "$t/Makefile" &&
		grep -qx 'PATCHLEVEL = 10' "$t/Makefile" || return 1
	(cd "$t" && pwd -P)
}
# linux310_why_not: one line saying why there is no 3.10 tree
linux310_why_not() {
	if [ -n "${POWERPIN_LINUX_3_10:-}" ]; then
		echo "POWERPIN_LINUX_3_10=$POWERPIN_LINUX_3_10 is not a Linux 3.10 source tree"
	else
		echo "set POWERPIN_LINUX_3_10=DIR or put a tree at $(linux310_src_default)"
	fi
}
# linux310_abi_file: where scripts/linux-3.10 writes the release it built
linux310_abi_file() { echo "$PP_CACHE/abi/armhf-3.10"; }
# linux310_dir: the cache directory of the built kernel (empty: none built)
linux310_dir() {
	local abi
	abi=$(cat "$(linux310_abi_file)" 2>/dev/null) && [ -n "$abi" ] &&
		echo "$PP_CACHE/kernel-$abi"
}
