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

# root_packages ARCH FOREIGN: the packages asked for in ARCH's root that come
# from FOREIGN's archive (FOREIGN = ARCH: the root's own), one a line
root_packages() {
	{
		awk -v a="$1" -v f="$2" '
			{ sub(/#.*/, "") }
			/^[a-z0-9_]+(\+[a-z0-9_]+)?:/ {
				split($1, p, ":"); split(p[1], q, "+")
				root = q[1]; from = (2 in q) ? q[2] : q[1]
				$1 = ""
				if (root == a && from == f) print
				next
			}
			a == f { print }' "$here/guest-packages"
		[ "$1" != "$2" ] || echo "${POWERPIN_GUEST_PACKAGES:-}"
	} | tr -s ' \t' '\n\n' | sed '/^$/d'
}

# root_foreign ARCH: the other architectures ARCH's root takes packages from
root_foreign() {
	sed -n "s/^$1+\([a-z0-9_]*\):.*/\1/p" "$here/guest-packages" | sort -u
}

# root_debs SUITE DEBARCH PKG...: resolve PKG... with their dependencies,
# download them into the private apt's archive cache (kept for the next
# rebuild) and print the package files
root_debs() {
	local suite=$1 debarch=$2 p have=() debs
	shift 2
	papt_use "$suite" "$debarch"
	for p in "$@"; do
		if papt_cache "$suite" "$debarch" show "$p" >/dev/null 2>&1; then
			have+=("$p")
		else
			log "guest root: Debian has no $p for $debarch, left out"
		fi
	done
	[ "${#have[@]}" -gt 0 ] || return 0
	debs=$(papt "$suite" "$debarch" install -s -y --no-install-recommends "${have[@]}" |
		sed -n 's/^Inst \([^ ]*\) (\([^ ]*\) .*\[\([^]]*\)\]).*$/\1_\2_\3.deb/p' |
		sed 's/:/%3a/g') || die "cannot resolve the $debarch packages of the guest root"
	papt "$suite" "$debarch" install -qq --download-only -y \
		--no-install-recommends "${have[@]}" >/dev/null || die "cannot download the $debarch packages of the guest root"
	for p in $debs; do
		echo "$(papt_dir "$suite" "$debarch")/cache/archives/$p"
	done
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
	local arch=$1 debarch root stamp tmp p f debs=()
	debarch=$(arch_deb "$arch")
	root=$(guest_root "$arch")
	stamp=$( (echo "$PP_ROOT_SUITE"; root_packages "$debarch" "$debarch";
		for f in $(root_foreign "$debarch"); do echo "$f:"; root_packages "$debarch" "$f"; done
		cat "$here/deps-root.sh") | sha1sum | cut -c1-12)
	[ -f "$root/.done" ] && [ "$(cat "$root/.stamp" 2>/dev/null)" = "$stamp" ] && return 0
	log "building the $arch guest root from $PP_ROOT_SUITE packages"
	mapfile -t debs < <(root_debs "$PP_ROOT_SUITE" "$debarch" $(root_packages "$debarch" "$debarch"))
	for f in $(root_foreign "$debarch"); do
		mapfile -t -O "${#debs[@]}" debs < <(root_debs "$PP_ROOT_SUITE" "$f" $(root_packages "$debarch" "$f"))
	done
	tmp=$(mktemp -d "$root.tmp.XXXXXX")
	for p in "${debs[@]}"; do
		dpkg -x "$p" "$tmp" || die "cannot unpack $p"
	done
	root_merge_usr "$tmp"
	root_relative_links "$tmp"
	root_alternatives "$tmp"
	[ -x "$tmp/usr/bin/busybox" ] && [ -x "$tmp/usr/bin/bash" ] || die "the $arch guest root has no busybox or bash"
	printf '%s\n' "${debs[@]##*/}" | sort >"$tmp/.packages"
	echo "$stamp" >"$tmp/.stamp"
	touch "$tmp/.done"
	chmod 755 "$tmp"
	rm -rf "$root.old"
	[ ! -e "$root" ] || mv "$root" "$root.old"
	mv "$tmp" "$root"
	rm -rf "$root.old"
}
