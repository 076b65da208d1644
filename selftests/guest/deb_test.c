// SPDX-License-Identifier: GPL-2.0
/*
 * The Debian packages from `make deb`, installed in the guest and used
 * there: dpkg installs powerpin-dkms, powerpin and powerpin-dev (over a
 * writable overlay of the guest's /usr, with the package database the
 * host's /usr goes with), DKMS builds powerpin.ko for the running kernel
 * in the postinst, modprobe loads that module, and the packaged powerpin talks to it,
 * records and reports; the man page and completion are where man and bash
 * look; removing the packages takes the module away again.  On Debian 12's
 * kernel only (scripts/lib.sh: dkms_guest_abi): the DKMS build takes
 * minutes under emulation, and the other kernels' modules are built on the
 * host.
 * Runs as root from the repo root, in a mount namespace of its own.
 */
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <time.h>
#include <sys/mount.h>
#include <sys/utsname.h>
#include <sys/wait.h>

#include "guest_harness.h"

#include "cmd_helpers.h"

#define DEBS	"build/deb"
#define ADMIN	"/tmp/deb_test.dpkg"
#define DPKG	"dpkg --admindir=" ADMIN " --force-unsafe-io"

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

FIXTURE(deb) {
	char ver[128];
	char kver[128];
	char tree[1024];
	char top[4096];
};

FIXTURE_SETUP(deb)
{
	struct utsname u;
	char cmd[256];

	if (sh("ls " DEBS "/powerpin_*.deb " DEBS "/powerpin-dkms_*_all.deb "
	       DEBS "/powerpin-dev_*_all.deb >/dev/null 2>&1") ||
	    access(DEBS "/host-dpkg-status", R_OK))
		SKIP(return, "no packages: make deb");
	ASSERT_NE(NULL, getcwd(self->top, sizeof(self->top)));
	/* make deb builds for the host's architecture only */
	line_of("dpkg --print-architecture", self->ver, sizeof(self->ver));
	if (sh("ls " DEBS "/powerpin_*_%s.deb >/dev/null 2>&1", self->ver))
		SKIP(return, "no packages for %s here: make deb builds the host's architecture",
		     self->ver[0] ? self->ver : "this architecture");
	ASSERT_EQ(0, uname(&u));
	snprintf(self->kver, sizeof(self->kver), "%s", u.release);
	/* the cache's tree of this kernel, where the host's gcc builds for it */
	snprintf(cmd, sizeof(cmd), "bash -c '. scripts/lib.sh; kernel_host_buildable %s'",
		 self->kver);
	line_of(cmd, self->tree, sizeof(self->tree));
	if (!self->tree[0] && !sh("test -f /lib/modules/%s/build/Makefile", self->kver))
		line_of("readlink -f /lib/modules/$(uname -r)/build", self->tree, sizeof(self->tree));
	if (!self->tree[0])
		SKIP(return, "no tree of %s that DKMS builds against here (another architecture, compiler or build root)", self->kver);
	line_of("bash -c '. scripts/lib.sh; dkms_guest_abi'", cmd, sizeof(cmd));
	if (strcmp(cmd, self->kver))
		SKIP(return, "the packages and their DKMS build are tested on Debian 12's kernel, %s",
		     cmd[0] ? cmd : "(not in the cache)");
	line_of("dpkg-deb -f $(ls " DEBS "/powerpin_*.deb | head -n 1) Version", self->ver,
		sizeof(self->ver));
	ASSERT_NE('\0', self->ver[0]);
	/* everything below stays in this namespace: /usr gets an overlay */
	ASSERT_EQ(0, unshare(CLONE_NEWNS));
	ASSERT_EQ(0, mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL));
	/* overlayfs is a module in Debian's kernels: load it from the cache */
	sh("modprobe -q -d \"$PP_CACHE/kernel-$PP_KVER/root\" overlay");
	ASSERT_EQ(0, sh("mkdir -p /tmp/deb_test.ov/upper /tmp/deb_test.ov/work && "
			"mount -t overlay overlay -o lowerdir=/usr,upperdir=/tmp/deb_test.ov/upper,"
			"workdir=/tmp/deb_test.ov/work /usr"));
	/*
	 * This kernel's module directory as a system has it: its build and
	 * source links, and what DKMS adds.  (The host's /usr/lib/modules may
	 * hold another build of this kernel's modules: depmod over all of
	 * them under emulation would take minutes, and none is needed.)
	 */
	ASSERT_EQ(0, sh("m=/usr/lib/modules/%s && b=%s && mkdir -p $m && "
			"mount -t tmpfs tmpfs $m && ln -s $b $m/build && ln -s $b $m/source && "
			"cp /var/cache/powerpin/kernel-%s/root/lib/modules/%s/modules.builtin* $m/ "
			"2>/dev/null; depmod %s", self->kver, self->tree, self->kver, self->kver,
			self->kver));
	ASSERT_EQ(0, sh("rm -rf " ADMIN " && mkdir -p " ADMIN "/info " ADMIN "/updates "
			ADMIN "/triggers && cp " DEBS "/host-dpkg-status " ADMIN "/status && "
			"touch " ADMIN "/available && mkdir -p /var/lib/dkms /etc/systemd/system"));
	/* the guest's /etc is its own: the alternatives dkms uses */
	ASSERT_EQ(0, sh("mkdir -p /etc/alternatives && "
			"{ test -e /usr/bin/awk || ln -sf /usr/bin/mawk /etc/alternatives/awk; } && "
			"{ test -e /etc/manpath.config || "
			"echo 'MANDATORY_MANPATH /usr/share/man' >/etc/manpath.config; }"));
	setenv("DEBIAN_FRONTEND", "noninteractive", 1);
}

FIXTURE_TEARDOWN(deb)
{
	/* the module from the tree back, for the tests after this one */
	if (self->top[0]) {
		sh("rmmod powerpin 2>/dev/null; insmod %s/build/%s/powerpin.ko", self->top,
		   self->kver);
		/* dpkg's database, the overlay's upper layer, the logs */
		sh("rm -rf /tmp/deb_test.*");
	}
}

TEST_F_TIMEOUT(deb, install_use_remove, 900)
{
	char got[512], want[512];
	double t0 = now_s();

	/* the module package first: its postinst builds for this kernel */
	ASSERT_EQ(0, sh(DPKG " -i " DEBS "/powerpin-dkms_*_all.deb " DEBS "/powerpin_*.deb "
			DEBS "/powerpin-dev_*_all.deb >/tmp/deb_test.log 2>&1 || { tail -n 40 /tmp/deb_test.log; "
			"cat /var/lib/dkms/powerpin/*/build/make.log; exit 1; }"));
	TH_LOG("dpkg -i with the DKMS build: %.0f s", now_s() - t0);
	snprintf(want, sizeof(want), "powerpin/%s, %s, ", self->ver, self->kver);
	line_of("dkms status powerpin", got, sizeof(got));
	EXPECT_EQ(0, strncmp(got, want, strlen(want)));
	EXPECT_NE(NULL, strstr(got, "installed"));

	/* modprobe finds the DKMS module, and it is that version */
	ASSERT_EQ(0, sh("rmmod powerpin && modprobe powerpin"));
	line_of("cat /sys/module/powerpin/version", got, sizeof(got));
	EXPECT_STREQ(self->ver, got);
	line_of("modinfo -F filename powerpin", got, sizeof(got));
	EXPECT_NE(NULL, strstr(got, "/updates/dkms/"));

	/* the packaged tools, against it */
	snprintf(want, sizeof(want), "powerpin %s", self->ver);
	line_of("/usr/bin/powerpin --version", got, sizeof(got));
	EXPECT_STREQ(want, got);
	EXPECT_EQ(0, sh("/usr/bin/powerpin status 2>/tmp/deb_test.err | grep -q '^state:' && "
			"! test -s /tmp/deb_test.err"));
	EXPECT_EQ(0, sh("/usr/sbin/powerpind --check-config >/dev/null"));
	EXPECT_EQ(0, sh("cd /tmp && /usr/bin/powerpin record -q -d 1.5 -o /tmp/deb_test.dat && "
			"/usr/bin/powerpin report /tmp/deb_test.dat --json /tmp/deb_test.json >/dev/null && "
			"grep -Eq '\"samples\": [1-9]' /tmp/deb_test.json"));
	/* the docs where man and bash look for them */
	EXPECT_EQ(0, sh("man -w powerpin | grep -q /usr/share/man/man1/powerpin.1"));
	EXPECT_EQ(0, sh("man -w 4 powerpin | grep -q /usr/share/man/man4/powerpin.4"));
	EXPECT_EQ(0, sh("man -w powerpind | grep -q /usr/share/man/man8/powerpind.8"));
	EXPECT_EQ(0, sh("LC_ALL=C MANWIDTH=80 man powerpin 2>/dev/null | grep -q COMMANDS"));
	EXPECT_EQ(0, sh("test -f /usr/share/bash-completion/completions/powerpin"));
	EXPECT_EQ(0, sh("test -f /usr/share/doc/powerpin/kmod/README.md && "
			"test -f /usr/share/doc/powerpin/capture-format.md"));
	/*
	 * the header, from powerpin-dev, compiles as a program includes it
	 * (gcc: cc is an alternative, which the guest's /etc does not have)
	 */
	EXPECT_EQ(0, sh(DPKG " -S /usr/include/linux/powerpin.h | grep -q '^powerpin-dev:'"));
	EXPECT_EQ(0, sh("echo '#include <linux/powerpin.h>' | gcc -fsyntax-only -x c -"));
	EXPECT_EQ(0, sh("test -f /lib/systemd/system/powerpind.service && "
			"grep -q '^ExecStart=/usr/sbin/powerpind ' /lib/systemd/system/powerpind.service"));

	/* removal takes the module and the tools away */
	ASSERT_EQ(0, sh("rmmod powerpin && " DPKG " -r powerpin-dev powerpin powerpin-dkms >>/tmp/deb_test.log 2>&1 || "
			"{ tail -n 20 /tmp/deb_test.log; exit 1; }"));
	EXPECT_NE(0, sh("modprobe -n powerpin 2>/dev/null"));
	EXPECT_NE(0, sh("test -e /usr/bin/powerpin"));
	EXPECT_NE(0, sh("dkms status powerpin | grep -q ."));
}

TEST_HARNESS_MAIN
