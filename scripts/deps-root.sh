# SPDX-License-Identifier: GPL-2.0
# Part of scripts/deps (sourced): the guest root of an architecture whose
# binaries the host cannot share, from Debian's packages for it.
#
# The packages of scripts/guest-packages (plus POWERPIN_GUEST_PACKAGES) and
# their dependencies are unpacked with dpkg -x, without maintainer scripts:
# nothing here needs configuring beyond the links made below.  The tree has
# a merged /usr, the layout the guest's initramfs expects, and only relative
# links, so it also serves as the cross compiler's sysroot.
PP_ROOT_SUITE=bookworm

# root_packages: the package names asked for, one a line
root_packages() {
	{
		sed 's/#.*//' "$here/guest-packages"
		echo "${POWERPIN_GUEST_PACKAGES:-}"
	} | tr -s ' \t' '\n\n' | sed '/^$/d'
}

# root_merge_usr ROOT: move /bin, /sbin and /lib* into /usr and link them
root_merge_usr() {
	local d
	for d in bin sbin lib lib32 lib64 libx32; do
		[ -d "$1/$d" ] && [ ! -L "$1/$d" ] || continue
		mkdir -p "$1/usr/$d"
		cp -a "$1/$d/." "$1/usr/$d/"
		rm -rf "${1:?}/$d"
		ln -s "usr/$d" "$1/$d"
	done
}

# root_relative_links ROOT: turn every absolute link into a relative one, so
# the tree reads the same from the host (sysroot) and from the guest
root_relative_links() {
	local link target
	find "$1" -type l -lname '/*' -print0 |
	while IFS= read -r -d '' link; do
		target=$(readlink "$link")
		ln -sfn "$(realpath -s -m --relative-to="$(dirname "$link")" "$1$target")" "$link"
	done
}

# root_alternatives ROOT: the links update-alternatives would have made
root_alternatives() {
	local r=$1
	[ -e "$r/usr/bin/awk" ] || ln -s gawk "$r/usr/bin/awk"
	[ -e "$r/usr/bin/sh" ] || ln -s dash "$r/usr/bin/sh"
	[ -e "$r/usr/bin/perf" ] || { local p; p=$(cd "$r/usr/bin" && ls perf_* 2>/dev/null | head -n 1); [ -z "$p" ] || ln -s "$p" "$r/usr/bin/perf"; }
	[ -e "$r/usr/bin/python" ] || ln -s python3 "$r/usr/bin/python"
}

# make_root ARCH: (re)build the root when the package list changed
make_root() {
	local arch=$1 debarch root stamp tmp p have=() debs
	debarch=$(arch_deb "$arch")
	root=$(guest_root "$arch")
	stamp=$( (echo "$PP_ROOT_SUITE"; root_packages; cat "$here/deps-root.sh") | sha1sum | cut -c1-12)
	[ -f "$root/.done" ] && [ "$(cat "$root/.stamp" 2>/dev/null)" = "$stamp" ] && return 0
	log "building the $arch guest root from $PP_ROOT_SUITE packages"
	papt_use "$PP_ROOT_SUITE" "$debarch"
	for p in $(root_packages); do
		if papt_cache "$PP_ROOT_SUITE" "$debarch" show "$p" >/dev/null 2>&1; then
			have+=("$p")
		else
			log "guest root $arch: Debian has no $p for $debarch, left out"
		fi
	done
	# the package files apt picks (with dependencies), downloaded into the
	# private apt's own archive cache, kept for the next rebuild
	debs=$(papt "$PP_ROOT_SUITE" "$debarch" install -s -y --no-install-recommends "${have[@]}" |
		sed -n 's/^Inst \([^ ]*\) (\([^ ]*\) .*\[\([^]]*\)\]).*$/\1_\2_\3.deb/p' |
		sed 's/:/%3a/g') || die "cannot resolve the $arch guest root"
	papt "$PP_ROOT_SUITE" "$debarch" install -qq --download-only -y \
		--no-install-recommends "${have[@]}" >/dev/null || die "cannot download the $arch guest root"
	tmp=$(mktemp -d "$root.tmp.XXXXXX")
	for p in $debs; do
		dpkg -x "$(papt_dir "$PP_ROOT_SUITE" "$debarch")/cache/archives/$p" "$tmp" ||
			die "cannot unpack $p"
	done
	root_merge_usr "$tmp"
	root_relative_links "$tmp"
	root_alternatives "$tmp"
	[ -x "$tmp/usr/bin/busybox" ] && [ -x "$tmp/usr/bin/bash" ] || die "the $arch guest root has no busybox or bash"
	echo "$debs" | sort >"$tmp/.packages"
	echo "$stamp" >"$tmp/.stamp"
	touch "$tmp/.done"
	chmod 755 "$tmp"
	rm -rf "$root.old"
	[ ! -e "$root" ] || mv "$root" "$root.old"
	mv "$tmp" "$root"
	rm -rf "$root.old"
}
