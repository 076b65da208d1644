# SPDX-License-Identifier: GPL-2.0
# Part of scripts/deps (sourced): put one guest's kernel into the cache.
#
#   $PP_CACHE/kernel-ABI/root/    the image package unpacked, depmod'ed
#   $PP_CACHE/kernel-ABI/hdr/     the headers packages unpacked (kernels whose
#                                 headers the host does not install)
#   $PP_CACHE/kernel-ABI/build    the tree modules are built against
#   $PP_CACHE/abi/ARCH-KERNEL     the guest's ABI, for offline use

# kernel_resolve ARCH KERNEL SUITE PACKAGE: the ABI the archive offers now,
# or, when the archive cannot be read, the one already in the cache
kernel_resolve() {
	local arch=$1 kernel=$2 suite=$3 pkg=$4 debarch abi=
	debarch=$(arch_deb "$arch")
	if papt_use "$suite" "$debarch" 2>/dev/null; then
		abi=$(papt_cache "$suite" "$debarch" depends "linux-headers-${pkg#linux-image-}" 2>/dev/null |
			sed -n 's/^ *Depends: linux-headers-\(.*\)$/\1/p' | head -n 1)
	fi
	[ -n "$abi" ] || abi=$(cat "$(abi_file "$arch" "$kernel")" 2>/dev/null) || return 1
	echo "$abi"
}

# kernel_headers_unpack ARCH SUITE ABI DIR: the headers, their common part and
# build tools that run on this host, unpacked into DIR/hdr, linked as DIR/build
kernel_headers_unpack() {
	local arch=$1 suite=$2 abi=$3 dir=$4 debarch deb common kbuild mk
	debarch=$(arch_deb "$arch")
	papt_fetch "$suite" "$debarch" "$dir/deb" "linux-headers-$abi"
	deb=$(ls "$dir/deb/linux-headers-${abi}_"*.deb)
	common=$(deb_dep "$deb" '^linux-headers-.*-common')
	kbuild=$(deb_dep "$deb" '^linux-kbuild-')
	[ -z "$common" ] || papt_fetch "$suite" "$debarch" "$dir/deb" "$common"
	# kbuild's helpers (fixdep, modpost, ...) must run here: take the amd64
	# build of the same version, or the suite's newest if that is gone
	if [ -n "$kbuild" ]; then
		(papt_fetch "$suite" amd64 "$dir/deb" "$kbuild") 2>/dev/null ||
			papt_fetch "$suite" amd64 "$dir/deb" "${kbuild%%=*}"
	fi
	for deb in "$dir/deb/"linux-headers-*.deb "$dir/deb/"linux-kbuild-*.deb; do
		[ -f "$deb" ] && dpkg -x "$deb" "$dir/hdr"
	done
	# The flavour's Makefile includes the common part by absolute path:
	# make it relative to where the tree was unpacked.
	mk="$dir/hdr/usr/src/linux-headers-$abi/Makefile"
	sed -i 's|^include /usr/src/|include $(abspath $(dir $(lastword $(MAKEFILE_LIST)))..)/|' "$mk"
	ln -sfn "hdr/usr/src/linux-headers-$abi" "$dir/build"
	if kernel_needs_buildroot "$dir/build"; then
		kernel_buildroot "$suite" "$debarch" "$abi" "$dir"
		# the build root's tree is the one to read too
		rm -rf "$dir/hdr"
		ln -sfn "buildroot/usr/src/linux-headers-$abi" "$dir/build"
	fi
	kbuild_modpost_32 "$suite" "$abi" "$dir"
}

# kbuild_modpost_32 SUITE ABI DIR: Debian's amd64 modpost reads 32-bit
# objects (modpost.real-lsb-32) but knows the device-table layouts of a
# 64-bit kernel, so it rejects a 32-bit ARM module's of_device_id table.
# Build that variant again from the series' modpost source, with the layouts
# the target compiler gives (devicetable-offsets.s compiled in the kernel
# tree, as the kernel's own build does).
kbuild_modpost_32() {
	local suite=$1 abi=$2 dir=$3 src b mod
	grep -q '^CONFIG_64BIT=y' "$dir/build/.config" && return 0
	src=$(series_source "$suite" "$(echo "$abi" | sed -E 's/^([0-9]+\.[0-9]+).*/\1/')")
	mod=$(readlink -f "$dir/build/scripts/mod")
	b=$(mktemp -d)
	cp "$src/scripts/mod/devicetable-offsets.c" "$b/"
	: >"$b/Kbuild"
	# shellcheck disable=SC2046
	make -s -C "$dir/build" M="$b" $("$here/kbuild-args" "$dir/build") devicetable-offsets.s >"$b/log" 2>&1 ||
		{ cat "$b/log" >&2; die "cannot compile devicetable-offsets.c for $abi"; }
	# the kernel's sed-offsets: ".ascii "->SYM VAL EXPR"" lines to #defines
	sed -ne 's:^[[:space:]]*\.ascii[[:space:]]*"\(.*\)".*:\1:; /^->/{s:->#\(.*\):/* \1 */:; s:^->\([^ ]*\) [\$#]*\([^ ]*\) \(.*\):#define \1 \2 /* \3 */:; s:->::; p;}' \
		"$b/devicetable-offsets.s" >"$b/devicetable-offsets.h"
	grep -q SIZE_of_device_id "$b/devicetable-offsets.h" || die "no device-table layout for $abi"
	gcc -O2 -o "$b/mk_elfconfig" "$src/scripts/mod/mk_elfconfig.c"
	echo 'int x;' | $(arch_cross armhf)gcc -x c -c -o "$b/empty.o" -
	"$b/mk_elfconfig" <"$b/empty.o" >"$b/elfconfig.h"
	gcc -O2 -I"$b" -o "$b/modpost" "$src/scripts/mod/modpost.c" \
		"$src/scripts/mod/file2alias.c" "$src/scripts/mod/sumversion.c" >"$b/log" 2>&1 ||
		{ cat "$b/log" >&2; die "cannot build modpost for $abi"; }
	if [ -f "$mod/modpost.real-lsb-32" ]; then
		cp "$b/modpost" "$mod/modpost.real-lsb-32"
	else
		cp "$b/modpost" "$mod/modpost"
	fi
	rm -rf "$b"
}

# series_source SUITE SERIES: the few files of Debian's linux-source-SERIES
# the rig builds from (the max17042_battery driver, modpost), extracted once
# into the cache; prints the directory
series_source() {
	local suite=$1 series=$2 src dl
	src="$PP_CACHE/src/linux-$series"
	if [ ! -f "$src/.done" ]; then
		log "extracting max17042_battery.c and modpost from linux-source-$series ($suite)"
		dl=$(mktemp -d "$PP_CACHE/src.XXXXXX")
		papt_fetch "$suite" amd64 "$dl" "linux-source-$series"
		mkdir -p "$dl/src"
		dpkg-deb --fsys-tarfile "$dl"/linux-source-"$series"_*.deb |
			tar -xO "./usr/src/linux-source-$series.tar.xz" |
			tar -xJ -C "$dl/src" --strip-components=1 \
				"linux-source-$series/drivers/power/supply/max17042_battery.c" \
				"linux-source-$series/scripts/mod" "linux-source-$series/include/linux" ||
			die "cannot extract linux-source-$series"
		touch "$dl/src/.done"
		rm -rf "$src" && mkdir -p "$PP_CACHE/src" && mv "$dl/src" "$src"
		rm -rf "$dl"
	fi
	echo "$src"
}

# The guests need the kernel's own max17042_battery driver, which Debian
# builds for x86 but not for its ARM kernels.  There it is built here from
# the driver's source in Debian's linux-source package of the same series and
# added to the cached modules as updates/.
kernel_add_drivers() {
	local suite=$1 abi=$2 dir=$3 src series b upd
	upd="$dir/root/lib/modules/$abi/updates"
	[ -f "$dir/build/.config" ] || die "$dir/build/.config missing"
	grep -q '^CONFIG_BATTERY_MAX17042=[ym]' "$dir/build/.config" && return 0
	[ -f "$upd/max17042_battery.ko" ] && return 0
	log "building max17042_battery for $abi"
	series=$(echo "$abi" | sed -E 's/^([0-9]+\.[0-9]+).*/\1/')
	src=$(series_source "$suite" "$series")
	b=$(mktemp -d)
	cp "$src/drivers/power/supply/max17042_battery.c" "$b/"
	echo 'obj-m := max17042_battery.o' >"$b/Kbuild"
	# shellcheck disable=SC2046
	make -s -C "$dir/build" M="$b" $("$here/kbuild-args" "$dir/build") modules >"$b/log" 2>&1 ||
		{ cat "$b/log" >&2; die "cannot build max17042_battery for $abi"; }
	mkdir -p "$upd"
	cp "$b/max17042_battery.ko" "$upd/.max17042_battery.ko.tmp"
	mv "$upd/.max17042_battery.ko.tmp" "$upd/max17042_battery.ko"
	depmod -b "$dir/root" "$abi"
	rm -rf "$b"
}

# kernel_image_unpack SUITE DEBARCH ABI DIR: the image package and the
# packages of the same ABI it has split off (sid: linux-base-ABI, linux-binary-ABI with the
# vmlinuz, linux-modules-ABI) into DIR/root, laid out as root/boot/vmlinuz-ABI
# and root/lib/modules/ABI whichever way the packages place them
kernel_image_unpack() {
	local suite=$1 debarch=$2 abi=$3 dir=$4 img parts p
	img=$(ls "$dir/deb/linux-image-${abi}_"*.deb)
	parts=$(dpkg-deb -f "$img" Depends | tr ',|' '\n\n' | sed 's/^ *//; s/ .*//' |
		grep -E "^linux-(base|binary|modules)-${abi//+/\\+}$" || true)
	for p in $parts; do
		papt_fetch "$suite" "$debarch" "$dir/deb" "$p"
	done
	for p in "$img" $(for p in $parts; do ls "$dir/deb/${p}_"*.deb; done); do
		dpkg -x "$p" "$dir/root"
	done
	if [ ! -e "$dir/root/lib" ] && [ -d "$dir/root/usr/lib/modules" ]; then
		ln -s usr/lib "$dir/root/lib"
	fi
	if [ ! -f "$dir/root/boot/vmlinuz-$abi" ] && [ -f "$dir/root/lib/modules/$abi/vmlinuz" ]; then
		mkdir -p "$dir/root/boot"
		ln -s "../lib/modules/$abi/vmlinuz" "$dir/root/boot/vmlinuz-$abi"
	fi
	[ -f "$dir/root/boot/vmlinuz-$abi" ] || die "no vmlinuz in linux-image-$abi"
}

# fetch_kernel ARCH KERNEL: the guest's image and headers into the cache.
# Nothing is installed on the host: a headers package of Debian's pulls its
# kernel image, whose install rebuilds the host's initramfs.
fetch_kernel() {
	local arch=$1 kernel=$2 src suite pkg debarch abi dir
	src=$(guest_source "$arch" "$kernel") || die "no guest $arch $kernel"
	case "$src" in
	debian:*) ;;
	*) return 0 ;;	# a kernel built from source has its own script
	esac
	suite=$(echo "$src" | cut -d: -f2)
	pkg=${src##*:}
	debarch=$(arch_deb "$arch")
	abi=$(kernel_resolve "$arch" "$kernel" "$suite" "$pkg") ||
		die "cannot resolve the ABI of $pkg ($suite $debarch)"
	dir=$(kernel_dir "$abi")
	# a cache entry from when the host installed these headers: unpack them
	case "$(readlink "$dir/build" 2>/dev/null)" in
	/*) rm -f "$dir/.done" ;;
	esac
	if [ ! -f "$dir/.done" ]; then
		log "fetching linux-image-$abi ($suite $debarch)"
		rm -rf "$dir.tmp" && mkdir -p "$dir.tmp/deb"
		papt_fetch "$suite" "$debarch" "$dir.tmp/deb" "linux-image-$abi"
		kernel_image_unpack "$suite" "$debarch" "$abi" "$dir.tmp"
		kernel_headers_unpack "$arch" "$suite" "$abi" "$dir.tmp"
		rm -rf "$dir.tmp/deb"
		# modules.dep for the guest's modprobe (the package's postinst
		# would have made it; we never install the package)
		depmod -b "$dir.tmp/root" "$abi"
		touch "$dir.tmp/.done"
		rm -rf "$dir" && mv "$dir.tmp" "$dir"
	fi
	kernel_add_drivers "$suite" "$abi" "$dir"
	echo "$abi" >"$(abi_file "$arch" "$kernel").tmp"
	mv "$(abi_file "$arch" "$kernel").tmp" "$(abi_file "$arch" "$kernel")"
}

# kernel_needs_buildroot DIR: was the tree made by a newer gcc than the
# host's, or do its helpers need a newer C library?  (sid's 7.x: gcc-16,
# glibc 2.38.)  Its flags then name options the host's gcc does not know,
# and its modpost and objtool do not start here.
kernel_needs_buildroot() {
	local tree=$1 kgcc hgcc kglibc hglibc f
	kgcc=$(sed -n 's/^CONFIG_GCC_VERSION=\([0-9]*\)$/\1/p' "$tree/.config")
	hgcc=$(gcc -dumpfullversion | awk -F. '{ printf "%d%02d%02d", $1, $2, $3 }')
	[ -n "$kgcc" ] && [ $((kgcc / 10000)) -gt $((hgcc / 10000)) ] && return 0
	hglibc=$(getconf GNU_LIBC_VERSION | awk '{ print $2 }')
	kglibc=$(for f in $(find -L "$tree/scripts" "$tree/tools" -type f -perm -u+x 2>/dev/null); do
			objdump -T "$f" 2>/dev/null | grep -oE 'GLIBC_2\.[0-9]+' | sed 's/GLIBC_//'
		done | sort -V | tail -n 1)
	[ -n "$kglibc" ] && [ "$(printf '%s\n%s\n' "$kglibc" "$hglibc" | sort -V | tail -n 1)" != "$hglibc" ]
}

# kernel_buildroot SUITE DEBARCH ABI DIR: DIR/buildroot, a Debian tree of
# SUITE with the kernel's own compiler, make and the headers package (and so
# the kbuild helpers built for that suite), made by mmdebstrap; modules for
# this kernel are built inside it (scripts/in-root).  About 150 MB.
kernel_buildroot() {
	local suite=$1 debarch=$2 abi=$3 dir=$4 cc
	cc=$(sed -n 's/^CONFIG_CC_VERSION_TEXT=".*\(gcc-[0-9]*\) .*/\1/p' "$dir/build/.config")
	log "making a $suite build root for $abi (${cc:-gcc}, make, headers)"
	mmdebstrap --quiet --variant=apt --arch="$debarch" \
		--aptopt='Acquire::Languages "none"' --aptopt='Acquire::Check-Valid-Until "false"' \
		--dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-exclude=/usr/share/man/*' \
		--dpkgopt='path-exclude=/usr/share/locale/*' \
		--include="${cc:-gcc},make,libc6-dev,sparse,linux-headers-$abi" \
		"$suite" "$dir/buildroot" "deb [signed-by=$PP_KEYRING] $PP_MIRROR $suite main" >"$dir/buildroot.log" 2>&1 ||
		{ tail -n 20 "$dir/buildroot.log" >&2; die "cannot make the $suite build root for $abi"; }
	[ -f "$dir/buildroot/usr/src/linux-headers-$abi/Makefile" ] || die "no headers in the build root of $abi"
}
