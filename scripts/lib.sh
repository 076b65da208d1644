# SPDX-License-Identifier: GPL-2.0
# Shared helpers for powerpin's scripts (sourced, not run).

PP_CACHE=${POWERPIN_CACHE:-/var/cache/powerpin}
# Kernel matrix: name -> Debian meta package of the image.
PP_KERNELS=${POWERPIN_KERNELS:-"6.1 6.12"}

log() { printf 'powerpin: %s\n' "$*" >&2; }
die() { printf 'powerpin: error: %s\n' "$*" >&2; exit 1; }

# kernel_meta NAME: the meta package that tracks kernel NAME.
kernel_meta() {
	case "$1" in
	6.1) echo linux-image-amd64 ;;
	6.12) echo linux-image-6.12-amd64 ;;
	*) return 1 ;;
	esac
}

# kernel_abi NAME: the ABI string (e.g. 6.1.0-56-amd64) the meta package
# currently depends on.
kernel_abi() {
	local meta
	meta=$(kernel_meta "$1") || return 1
	apt-cache depends "$meta" 2>/dev/null |
		sed -n 's/^ *Depends: linux-image-\(.*\)$/\1/p' |
		grep -v unsigned | head -n 1 | grep .
}
