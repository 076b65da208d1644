# SPDX-License-Identifier: GPL-2.0
# Shared helpers for powerpin's scripts (sourced, not run).

PP_CACHE=${POWERPIN_CACHE:-/var/cache/powerpin}
# depmod, modprobe and mkfs.ext4 live in sbin, off a normal user's PATH
PATH=$PATH:/usr/sbin:/sbin
PP_MIRROR=${POWERPIN_MIRROR:-http://deb.debian.org/debian}
PP_SECURITY_MIRROR=${POWERPIN_SECURITY_MIRROR:-http://deb.debian.org/debian-security}
PP_KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg

log() { printf 'powerpin: %s\n' "$*" >&2; }
die() { printf 'powerpin: error: %s\n' "$*" >&2; exit 1; }

# ---- the guest matrix ----------------------------------------------------------
# One guest a line: ARCH KERNEL SOURCE.
#   debian:SUITE:PACKAGE   Debian's kernel image meta package PACKAGE of SUITE;
#                          scripts/deps resolves its ABI, downloads the image
#                          and the matching headers and unpacks them into the
#                          cache (never installs them)
#   tree:linux-LINE        a kernel built from a tree the user gives, by
#                          scripts/linux-tree LINE, which leaves the same cache
#                          layout (below) and writes its ABI to
#                          $(abi_file ARCH KERNEL); until then the guest is
#                          skipped with what ltree_why_not prints
# Every guest's kernel lives in $PP_CACHE/kernel-ABI/: root/boot/vmlinuz-ABI,
# root/lib/modules/ABI/ (the modules, depmod'ed), build/ (a link to the tree
# modules are built against, the headers packages unpacked under hdr/), where
# the machine needs one dtb, and where the tree needs a newer
# compiler and C library than the host's, buildroot/: a Debian tree of the
# kernel's suite with that compiler and the headers at
# /usr/src/linux-headers-ABI, which modules are built in (scripts/in-root).
PP_MATRIX="
x86_64 5.10 debian:bullseye:linux-image-amd64
x86_64 6.1 debian:bookworm:linux-image-amd64
x86_64 6.12 debian:bookworm:linux-image-6.12-amd64
x86_64 7.2 debian:sid:linux-image-amd64
arm64 6.1 debian:bookworm:linux-image-arm64
armhf 6.1 debian:bookworm:linux-image-armmp
arm64 3.18 tree:linux-3.18
armhf 3.10 tree:linux-3.10
armhf 3.10-shamu tree:linux-3.10-shamu
arm64 4.4 tree:linux-4.4
arm64 4.9 tree:linux-4.9
arm64 4.14 tree:linux-4.14
arm64 4.19 tree:linux-4.19
arm64 5.4 tree:linux-5.4
arm64 5.15 tree:linux-5.15
arm64 6.6 tree:linux-6.6
arm64 6.12-gki tree:linux-6.12-gki
arm64 6.12-debug tree:linux-6.12-debug
"
# Lines of the matrix that run only when POWERPIN_KERNELS names them: the
# debug guest (the kernel's checkers: KASAN, lockdep, kmemleak, UBSAN) runs
# the suite several times slower than the others, beyond make check's time.
PP_OPT_IN="6.12-debug"

# guests: "ARCH KERNEL" of every guest of the matrix, narrowed by
# POWERPIN_KERNELS and POWERPIN_ARCHES (space-separated lists).
guests() {
	local arch kernel src
	while read -r arch kernel src; do
		[ -n "$arch" ] || continue
		[ -z "${POWERPIN_KERNELS:-}" ] || in_list "$kernel" $POWERPIN_KERNELS || continue
		! in_list "$kernel" $PP_OPT_IN || in_list "$kernel" ${POWERPIN_KERNELS:-} || continue
		[ -z "${POWERPIN_ARCHES:-}" ] || in_list "$arch" $POWERPIN_ARCHES || continue
		echo "$arch $kernel"
	done <<<"$PP_MATRIX"
}

# tree_guests: the lines of the (narrowed) matrix whose guest kernel is
# built from a tree (tree:linux-LINE, scripts/linux-tree)
tree_guests() {
	local arch kernel
	while read -r arch kernel; do
		[ "$(guest_source "$arch" "$kernel")" != "tree:linux-$kernel" ] || echo "$kernel"
	done < <(guests)
}

in_list() {
	local x=$1; shift
	for y in "$@"; do [ "$x" = "$y" ] && return 0; done
	return 1
}

# guest_source ARCH KERNEL: the SOURCE column of that guest
# (no awk: the guests' tests call it, and a guest's /etc has no alternatives)
guest_source() {
	local arch kernel src
	while read -r arch kernel src; do
		[ "$arch $kernel" != "$1 $2" ] || { echo "$src"; return 0; }
	done <<<"$PP_MATRIX"
	return 1
}

# ---- architectures ---------------------------------------------------------------
arch_ok() { case "$1" in x86_64|arm64|armhf) return 0 ;; *) return 1 ;; esac; }
# Debian's name, the GNU triplet, the kernel's ARCH= and the qemu binary
arch_deb() { case "$1" in x86_64) echo amd64 ;; *) echo "$1" ;; esac; }
arch_triplet() {
	case "$1" in
	x86_64) echo x86_64-linux-gnu ;;
	arm64) echo aarch64-linux-gnu ;;
	armhf) echo arm-linux-gnueabihf ;;
	esac
}
arch_kernel() { case "$1" in x86_64) echo x86 ;; armhf) echo arm ;; *) echo "$1" ;; esac; }
arch_qemu_package() { case "$1" in x86_64) echo qemu-system-x86 ;; *) echo qemu-system-arm ;; esac; }
arch_qemu() {
	case "$1" in
	x86_64) echo qemu-system-x86_64 ;;
	arm64) echo qemu-system-aarch64 ;;
	armhf) echo qemu-system-arm ;;
	esac
}
# arch_native ARCH: true when the host runs ARCH's binaries as they are
arch_native() { [ "$1" = x86_64 ]; }
# arch_cross ARCH: the CROSS_COMPILE prefix (empty on the host's own)
arch_cross() { arch_native "$1" || echo "$(arch_triplet "$1")-"; }

# ---- private apt configurations -------------------------------------------------
# papt SUITE ARCH APT-GET-ARGS...: apt-get with a configuration of its own under
# the cache, for one suite and one architecture; the machine's own sources,
# lists and package state are neither read nor changed.
papt_dir() { echo "$PP_CACHE/apt/$1-$2"; }
papt_opts() {
	local d
	d=$(papt_dir "$1" "$2")
	printf '%s\n' -o "Dir::Etc::sourcelist=$d/sources.list" \
		-o Dir::Etc::sourceparts=/dev/null -o "Dir::State::Lists=$d/lists" \
		-o "Dir::Cache=$d/cache" -o "Dir::State::status=$d/status" \
		-o "APT::Architecture=$2" -o "APT::Architectures=$2" \
		-o Debug::NoLocking=1 -o APT::Sandbox::User=root \
		-o Acquire::Languages=none -o Acquire::Check-Valid-Until=false -o Acquire::IndexTargets::deb::DEP-11::DefaultEnabled=false
}
papt() {
	local suite=$1 arch=$2 opts
	shift 2
	mapfile -t opts < <(papt_opts "$suite" "$arch")
	apt-get -q "${opts[@]}" "$@"
}
papt_cache() {
	local suite=$1 arch=$2 opts
	shift 2
	mapfile -t opts < <(papt_opts "$suite" "$arch")
	apt-cache "${opts[@]}" "$@"
}

# papt_update SUITE ARCH: write the configuration and fetch the indexes.  An
# index that fails (the security suite's is sometimes briefly out of sync
# with its Release file) is left out: apt then offers the main suite's
# versions.  Fails only when the main suite itself cannot be read.
papt_update() {
	local suite=$1 arch=$2 d s
	d=$(papt_dir "$suite" "$arch")
	mkdir -p "$d/lists/partial" "$d/cache/archives/partial"
	[ -f "$d/status" ] || : >"$d/status"
	s="[signed-by=$PP_KEYRING]"
	{
		echo "deb $s $PP_MIRROR $suite main"
		case "$suite" in
		sid|unstable) ;;
		*)
			echo "deb $s $PP_MIRROR $suite-updates main"
			if [ "$suite" = bullseye ] || [ "$suite" = bookworm ] || [ "$suite" = trixie ]; then
				echo "deb $s $PP_SECURITY_MIRROR $suite-security main"
			fi
			;;
		esac
	} >"$d/sources.list"
	papt "$suite" "$arch" update >"$d/update.log" 2>&1 ||
		log "apt ($suite/$arch): some indexes failed, using the others ($(grep -m1 -E '^(E|W):' "$d/update.log"))"
	ls "$d/lists/"*"_dists_${suite}_main_binary-${arch}_Packages"* >/dev/null 2>&1 ||
		{ cat "$d/update.log" >&2; return 1; }
}

# ---- kernels -----------------------------------------------------------------------
abi_file() { echo "$PP_CACHE/abi/$1-$2"; }

# kernel_abi KERNEL [ARCH]: the ABI string (e.g. 6.1.0-56-amd64) of a guest's
# kernel: what scripts/deps (or the tree's build script) last put into the
# cache.  No guest kernel's headers are installed on the host.
kernel_abi() {
	local kernel=$1 arch=${2:-x86_64} abi
	guest_source "$arch" "$kernel" >/dev/null || return 1
	abi=$(cat "$(abi_file "$arch" "$kernel")" 2>/dev/null)
	[ -n "$abi" ] && echo "$abi"
}

# kernel_host_buildable ABI: print the cached tree of ABI when a plain
# `make -C TREE M=...` on this host builds modules against it, as DKMS does
# (a tree of the host's architecture, made by a compiler the host has, with
# no build root); fail otherwise
kernel_host_buildable() {
	local tree
	tree="$(kernel_dir "$1")/build"
	[ -f "$tree/Makefile" ] && [ ! -d "$(kernel_dir "$1")/buildroot" ] || return 1
	[ -z "$("$(dirname "${BASH_SOURCE[0]}")/kbuild-args" "$tree")" ] || return 1
	(cd "$tree" && pwd -P)
}

# dkms_guest_abi: the ABI of the one guest whose deb_test installs the
# packages, the module built by DKMS: Debian 12's own kernel (bookworm's
# linux-image-amd64), the one `make deb`'s packages meet first.  Under
# emulation that build takes about 4 minutes of the guest's time; the
# module of every other kernel is built on the host (`make modules`, and
# W=1 C=1 in the static checks).
dkms_guest_abi() {
	local arch kernel src
	while read -r arch kernel src; do
		[ "$arch $src" != "x86_64 debian:bookworm:linux-image-amd64" ] || kernel_abi "$kernel" x86_64
	done <<<"$PP_MATRIX"
}

# demo_kernel ARCH: the kernel `make demo` boots on ARCH (6.12 on x86_64,
# else the architecture's newest Debian kernel)
demo_kernel() {
	if [ "$1" = x86_64 ]; then
		echo 6.12
		return
	fi
	awk -v a="$1" '$1 == a && $3 ~ /^debian:/ { print $2 }' <<<"$PP_MATRIX" | sort -V | tail -n 1
}

# ---- kernels built from a tree: 3.10 (Nexus 6) and Android's lines -------------
# No archive has these kernels: scripts/linux-tree LINE builds the guest from
# a tree the user already has, with what scripts/linux-LINE.d/ holds (board,
# config, patches).
# A line is a version (4.9), or a version and a vendor tree of it
# (3.10-shamu: the Nexus 6's own source, beside vanilla 3.10).
# ltree_var LINE: the variable that names LINE's tree (POWERPIN_LINUX_4_9,
# POWERPIN_LINUX_3_10_SHAMU)
ltree_var() { local v=${1//[.-]/_}; echo "POWERPIN_LINUX_${v^^}"; }
ltree_src_default() { echo "$PP_CACHE/linux-$1-src"; }
# ltree_d LINE: the project's directory for LINE
ltree_d() { echo "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/linux-$1.d"; }
# ltree_lines: every line the project can build a guest for
ltree_lines() {
	local d
	for d in "$(dirname "${BASH_SOURCE[0]}")"/linux-*.d/; do
		d=${d%/}; d=${d##*/linux-}; echo "${d%.d}"
	done | sort -V
}
# ltree_board LINE KEY: a value of linux-LINE.d/board (lines of "KEY VALUE")
ltree_board() {
	awk -v k="$2" '$1 == k { $1 = ""; sub(/^ /, ""); print; found = 1 } END { exit !found }' \
		"$(ltree_d "$1")/board"
}
# ltree_tree LINE: LINE's source tree (its Makefile says that version, and
# a vendor line's tree has the file its board file names as "require"), or
# fail
ltree_tree() {
	local var t v p req
	var=$(ltree_var "$1")
	t=${!var:-$(ltree_src_default "$1")}
	v=${1%%.*} p=${1#*.} p=${p%%-*}
	[ -f "$t/Makefile" ] && grep -qx "VERSION = $v" "$t/Makefile" &&
		grep -qx "PATCHLEVEL = $p" "$t/Makefile" || return 1
	if req=$(ltree_board "$1" require 2>/dev/null); then
		[ -e "$t/$req" ] || return 1
	fi
	! ltree_board "$1" kmi >/dev/null 2>&1 || ltree_kmi_list "$1" >/dev/null || return 1
	(cd "$t" && pwd -P)
}
# The GKI branches' KMI symbol lists (one file per branch): POWERPIN_KMI_DIR,
# else ../shared/kmi/ beside the checkout, else the copy scripts/deps keeps
# of them in the cache (kmi_keep), so another checkout finds them too
kmi_dir() {
	local shared
	shared="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/../shared/kmi"
	if [ -n "${POWERPIN_KMI_DIR:-}" ]; then
		echo "$POWERPIN_KMI_DIR"
	elif [ -d "$shared" ]; then
		(cd "$shared" && pwd -P)
	else
		echo "$PP_CACHE/kmi"
	fi
}
# kmi_keep: copy the lists kmi_dir names into the cache
kmi_keep() {
	local d
	d=$(kmi_dir)
	[ "$d" != "$PP_CACHE/kmi" ] && [ -d "$d" ] || return 0
	mkdir -p "$PP_CACHE/kmi" && cp -f "$d"/*.txt "$PP_CACHE/kmi/" 2>/dev/null || true
}
# ltree_kmi_list LINE: the KMI list a GKI-like line's kernel exports (its
# board's "kmi" file in kmi_dir), or fail
ltree_kmi_list() {
	local f
	f=$(ltree_board "$1" kmi 2>/dev/null) || return 1
	f="$(kmi_dir)/$f"
	[ -s "$f" ] || return 1
	echo "$f"
}
# ltree_unpack LINE: a line whose board names a Debian source package
# ("package linux-source-X.Y", installed by scripts/deps) gets its tree
# from that package's tarball, unpacked once into the cache, unless the
# user gave one
ltree_unpack() {
	local line=$1 pkg var dst tarball
	pkg=$(ltree_board "$line" package 2>/dev/null) || return 0
	var=$(ltree_var "$line")
	[ -z "${!var:-}" ] || return 0
	# a GKI-like line without its KMI list is skipped: nothing to unpack
	! ltree_board "$line" kmi >/dev/null 2>&1 || ltree_kmi_list "$line" >/dev/null || return 0
	tarball=/usr/src/$pkg.tar.xz
	[ -f "$tarball" ] || { log "linux-$line: $tarball missing (the $pkg package)"; return 0; }
	dst=$PP_CACHE/src/$pkg
	if [ ! -f "$dst/.unpacked" ] || [ "$tarball" -nt "$dst/.unpacked" ]; then
		log "linux-$line: unpacking $tarball"
		rm -rf "$dst" && mkdir -p "$PP_CACHE/src"
		tar -C "$PP_CACHE/src" -xf "$tarball" && touch "$dst/.unpacked" || return 1
	fi
	ln -sfn "$dst" "$(ltree_src_default "$line")"
}
# ltree_why_not LINE: one line saying why there is no LINE tree
ltree_why_not() {
	local var
	var=$(ltree_var "$1")
	if ltree_board "$1" kmi >/dev/null 2>&1 && ! ltree_kmi_list "$1" >/dev/null; then
		echo "no KMI list $(ltree_board "$1" kmi) in $(kmi_dir) (set POWERPIN_KMI_DIR=DIR)"
	elif [ -n "${!var:-}" ]; then
		echo "$var=${!var} is not a Linux $1 source tree$(ltree_board "$1" require 2>/dev/null |
			sed 's/^/ (it has no /; s/$/)/')"
	else
		echo "set $var=DIR or put a tree at $(ltree_src_default "$1")"
	fi
}
# A tree the user gave that cannot give its guest a kernel (not a tree of
# that line, or its build failed) is one failed guest, with the reason, and
# never the end of the run: scripts/deps records why in the cache and goes
# on; scripts/check reports that guest as not run, a failure.
ltree_failed_file() { echo "$PP_CACHE/tree-failed/linux-$1"; }
# ltree_build_or_record LINE: build LINE's kernel where its tree is there
# (scripts/linux-tree), recording why when that fails or when the tree the
# user named is not one; 0 even then (the reason is in the record)
ltree_build_or_record() {
	local line=$1 rec err var why
	rec=$(ltree_failed_file "$line")
	var=$(ltree_var "$line")
	mkdir -p "${rec%/*}"
	if ! ltree_tree "$line" >/dev/null; then
		# no tree at the default place: a skip; a tree named that is none: a failure
		if [ -n "${!var:-}" ]; then
			ltree_why_not "$line" >"$rec"
			printf 'powerpin: warning: guest %s will fail: %s\n' "$line" "$(cat "$rec")" >&2
		else
			rm -f "$rec"
		fi
		return 0
	fi
	err=$(mktemp)
	# its stderr shown as it comes and kept for the reason (errexit and
	# pipefail, the callers' settings, must not end the caller here)
	{ { "${LTREE_BUILD:-$(dirname "${BASH_SOURCE[0]}")/linux-tree}" "$line" &&
		echo 0 >"$err.rc" || echo $? >"$err.rc"; } 2>&1 1>&3 |
		tee "$err" >&2; } 3>&1 || true
	if [ "$(cat "$err.rc" 2>/dev/null)" = 0 ]; then
		rm -f "$rec"
	else
		why=$(grep -m1 '^powerpin: error: ' "$err" | sed 's/^powerpin: error: //' || true)
		[ -n "$why" ] || why=$(grep -v '^[[:space:]]*$' "$err" | tail -n 1 || true)
		[ -n "$why" ] || why="scripts/linux-tree $line failed"
		echo "its kernel could not be built from $(ltree_tree "$line"): $why" >"$rec"
		printf 'powerpin: warning: guest %s will fail: %s\n' "$line" "$(cat "$rec")" >&2
	fi
	rm -f "$err" "$err.rc"
	return 0
}
# ltree_failed LINE: why LINE's guest cannot run though its tree was given
# (and true), or nothing (and false)
ltree_failed() {
	local rec
	rec=$(ltree_failed_file "$1")
	[ -s "$rec" ] || return 1
	head -n 1 "$rec"
}
# ltree_recipe LINE: the hash of what LINE's build takes from the project
# (its patches and config, and the architecture's shared config).  The build
# records it; a kernel built from another recipe is not booted, since
# without the tree it cannot be rebuilt and it may lack a fix the rig
# relies on.
ltree_recipe() {
	local d shared p files=()
	d=$(ltree_d "$1")
	shared=$(ltree_board "$1" config 2>/dev/null) || shared=
	for p in "$d"/*.patch; do [ ! -e "$p" ] || files+=("$p"); done
	cat ${files[@]+"${files[@]}"} "$d/config" ${shared:+"$d/../$shared"} | sha1sum | cut -c1-16
}
# ltree_abi_file LINE: where scripts/linux-tree writes the release it built
ltree_abi_file() { abi_file "$(ltree_board "$1" arch)" "$1"; }
# ltree_dir LINE: the cache directory of the built kernel (empty: none built)
ltree_dir() {
	local abi
	abi=$(cat "$(ltree_abi_file "$1")" 2>/dev/null) && [ -n "$abi" ] &&
		echo "$PP_CACHE/kernel-$abi"
}
# kernel_dir ABI: the cache directory of one kernel
kernel_dir() { echo "$PP_CACHE/kernel-$1"; }

# kernel_kdir ABI: the tree to build modules against
kernel_kdir() {
	if [ -e "$(kernel_dir "$1")/build/Makefile" ]; then
		echo "$(kernel_dir "$1")/build"
	else
		echo "/lib/modules/$1/build"
	fi
}

# guest_missing ARCH KERNEL: prints why the guest cannot boot (nothing, and
# false, when it can)
guest_missing() {
	local arch=$1 kernel=$2 src abi
	src=$(guest_source "$arch" "$kernel") || { echo "not in the matrix"; return 0; }
	if ! abi=$(kernel_abi "$kernel" "$arch"); then
		case "$src" in
		tree:*)
			if ltree_tree "$kernel" >/dev/null; then
				echo "$(ltree_tree "$kernel") not built yet (run scripts/deps)"
			else
				echo "no $kernel tree: $(ltree_why_not "$kernel")"
			fi
			;;
		*) echo "kernel not fetched (run scripts/deps)" ;;
		esac
		return 0
	fi
	if [ ! -f "$(kernel_dir "$abi")/.done" ]; then
		echo "$(kernel_dir "$abi") incomplete (run scripts/deps)"
		return 0
	fi
	if [ "${src#tree:linux-}" != "$src" ] &&
	   [ "$(cat "$(kernel_dir "$abi")/recipe" 2>/dev/null)" != "$(ltree_recipe "$kernel")" ]; then
		echo "$(kernel_dir "$abi") was built from an older scripts/linux-$kernel.d/ (run scripts/linux-tree $kernel)"
		return 0
	fi
	if ! arch_native "$arch" && [ ! -f "$(guest_root "$arch")/.done" ]; then
		echo "no $arch root in the cache (run scripts/deps)"
		return 0
	fi
	return 1
}

# ---- guest roots (architectures the host cannot share its /usr with) --------
# guest_root ARCH: Debian's packages for ARCH (scripts/guest-packages) unpacked
# into one merged-/usr tree; the guest mounts its usr/ as /usr, and the build
# uses the tree as the sysroot for cross-compiling.
guest_root() { echo "$PP_CACHE/root-$(arch_deb "$1")"; }

# fuzz_timeout_verdict BIN UNIT LIMIT: a fuzz run stopped at an input that
# took over LIMIT seconds (libFuzzer's -timeout) tells a host that starved
# the run from a slow input: UNIT is run again alone, with LIMIT x 6 to
# finish in.  Prints "starved CPU" when it ends well in under LIMIT seconds
# of CPU time (user + system), else "finding CPU" (or "finding hang").
fuzz_timeout_verdict() {
	local bin=$1 unit=$2 limit=$3 t rc cpu TIMEFORMAT='%3U %3S'
	t=$(mktemp) || return 1
	rc=0
	{ time timeout $((limit * 6)) "$bin" -timeout=$((limit * 6)) "$unit" >/dev/null 2>&1; } 2>"$t" ||
		rc=$?
	cpu=$(awk '{ printf "%.1f", $1 + $2 }' "$t")
	rm -f "$t"
	if [ "$rc" -eq 124 ]; then
		echo "finding hang"
	elif [ "$rc" -eq 0 ] && awk -v c="$cpu" -v l="$limit" 'BEGIN { exit !(c < l) }'; then
		echo "starved $cpu"
	else
		echo "finding $cpu"
	fi
}
