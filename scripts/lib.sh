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
