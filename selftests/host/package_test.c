// SPDX-License-Identifier: GPL-2.0
/*
 * The Debian packages `make deb` left in build/deb/, taken apart: the
 * binaries carry _FORTIFY_SOURCE (the Makefile honours dpkg's CPPFLAGS),
 * the maintainer is a real address and the copyright has a notice with a
 * year, the uapi header is in powerpin-dev and not in powerpin, the DKMS
 * package is in section kernel, the man pages carry the date and the
 * package's version and name documents that the package installs, and
 * lintian --pedantic has no tag left that an override does not explain.
 * scripts/deb-maintainer picks the maintainer as dch does.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include <kselftest_harness.h>

#include "cmd_helpers.h"

#define DEBS	"build/deb"

FIXTURE(pkg) {
	char dir[64];
	char ver[128];
};

FIXTURE_SETUP(pkg)
{
	if (sh("ls " DEBS "/powerpin_*.deb " DEBS "/powerpin-dev_*_all.deb "
	       DEBS "/powerpin-dkms_*_all.deb >/dev/null 2>&1"))
		SKIP(return, "no packages: make deb");
	strcpy(self->dir, "/tmp/pppkg.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	line_of("dpkg-deb -f $(ls " DEBS "/powerpin_*.deb | head -n 1) Version", self->ver,
		sizeof(self->ver));
	ASSERT_NE('\0', self->ver[0]);
	/* each package unpacked into a directory of its name */
	ASSERT_EQ(0, sh("cd %s && for d in %s/" DEBS "/*.deb; do p=$(dpkg-deb -f $d Package); "
			"mkdir $p && dpkg-deb -x $d $p && dpkg-deb -e $d $p/DEBIAN || exit 1; done",
			self->dir, getcwd(NULL, 0)));
}

FIXTURE_TEARDOWN(pkg)
{
	if (self->dir[0])
		sh("rm -rf %s", self->dir);
}

TEST_F(pkg, binaries_are_fortified)
{
	static const char *const bins[] = {
		"usr/bin/powerpin", "usr/sbin/powerpind", "usr/lib/powerpin/libpowerpin_agent.so",
	};
	unsigned int i;

	/* _FORTIFY_SOURCE turns checked calls into glibc's __*_chk */
	for (i = 0; i < sizeof(bins) / sizeof(bins[0]); i++) {
		if (sh("objdump -T %s/powerpin/%s | grep -Eq ' __[a-z_]+_chk$'", self->dir, bins[i]))
			TH_LOG("%s calls no __*_chk function", bins[i]);
		EXPECT_EQ(0, sh("objdump -T %s/powerpin/%s | grep -Eq ' __[a-z_]+_chk$'",
				self->dir, bins[i]));
	}
}

TEST_F(pkg, maintainer_copyright_sections)
{
	char got[512];

	line_of("dpkg-deb -f $(ls " DEBS "/powerpin_*.deb) Maintainer", got, sizeof(got));
	TH_LOG("Maintainer: %s", got);
	EXPECT_EQ(0, sh("echo '%s' | grep -Eqx '[^<>@]*[^ <>@] <[^@ <>]+@[^@ <>]+\\.[^@ <>]+>'", got));
	EXPECT_EQ(NULL, strstr(got, "localhost"));
	/* the changelog's trailer is the same person */
	EXPECT_EQ(0, sh("zcat %s/powerpin/usr/share/doc/powerpin/changelog.gz | "
			"grep -q '^ -- %s  '", self->dir, got));
	EXPECT_EQ(0, sh("grep -Eq '^Copyright: ([0-9]{4}-)?[0-9]{4} ' "
			"%s/powerpin/usr/share/doc/powerpin/copyright", self->dir));
	line_of("dpkg-deb -f $(ls " DEBS "/powerpin-dkms_*.deb) Section", got, sizeof(got));
	EXPECT_STREQ("kernel", got);
}

TEST_F(pkg, header_in_powerpin_dev)
{
	EXPECT_EQ(0, sh("test -f %s/powerpin-dev/usr/include/linux/powerpin.h", self->dir));
	EXPECT_NE(0, sh("test -e %s/powerpin/usr/include", self->dir));
	EXPECT_EQ(0, sh("echo '#include <linux/powerpin.h>' | cc -fsyntax-only -I%s/powerpin-dev/usr/include -x c -",
			self->dir));
}

TEST_F(pkg, man_pages_date_version_and_docs)
{
	static const char *const pages[] = {
		"man1/powerpin.1", "man4/powerpin.4", "man8/powerpind.8",
	};
	char cmd[1024], th[512], want[256], docs[4096];
	unsigned int i;

	for (i = 0; i < sizeof(pages) / sizeof(pages[0]); i++) {
		snprintf(cmd, sizeof(cmd), "zcat %s/powerpin/usr/share/man/%s.gz | grep '^\\.TH '",
			 self->dir, pages[i]);
		line_of(cmd, th, sizeof(th));
		TH_LOG("%s", th);
		snprintf(want, sizeof(want), "\"powerpin %s\"", self->ver);
		EXPECT_NE(NULL, strstr(th, want));
		EXPECT_EQ(0, sh("echo '%s' | grep -Eq '\"[0-9]{4}-[0-9]{2}-[0-9]{2}\"'", th));
		EXPECT_NE(0, sh("zcat %s/powerpin/usr/share/man/%s.gz | grep -q @", self->dir, pages[i]));
	}
	/* every document a page names is in the package */
	snprintf(cmd, sizeof(cmd), "zcat %s/powerpin/usr/share/man/man*/* | "
		 "grep -o '/usr/share/doc/powerpin/[a-zA-Z/\\\\.-]*[a-z]' | sed 's/\\\\//g' | sort -u | "
		 "tr '\\n' ' '", self->dir);
	line_of(cmd, docs, sizeof(docs));
	TH_LOG("named: %s", docs);
	EXPECT_NE(NULL, strstr(docs, "/usr/share/doc/powerpin/kmod/README.md"));
	EXPECT_NE(NULL, strstr(docs, "/usr/share/doc/powerpin/output-files.md"));
	EXPECT_EQ(0, sh("cd %s/powerpin && for f in %s; do test -e .$f || "
			"{ echo \"$f not installed\"; exit 1; }; done", self->dir, docs));
	EXPECT_EQ(0, sh("test -f %s/powerpin/usr/share/doc/powerpin/report.md", self->dir));
}

TEST_F(pkg, lintian_pedantic_clean)
{
	if (sh("command -v lintian >/dev/null"))
		SKIP(return, "no lintian (make deps)");
	/* tags not overridden; the overrides each carry their reason */
	EXPECT_EQ(0, sh("lintian --pedantic --info " DEBS "/*.changes > %s/lintian 2>&1; "
			"cat %s/lintian; ! grep -Eq '^[EWIPX]: ' %s/lintian",
			self->dir, self->dir, self->dir));
}

/* scripts/deb-maintainer with only @env set (no git identity) */
static int maint(const char *env, char *out, size_t len)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd), "env -u DEBFULLNAME -u DEBEMAIL -u NAME -u EMAIL "
		 "GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_SYSTEM=/dev/null %s "
		 "scripts/deb-maintainer 2>&1", env);
	line_of(cmd, out, len);
	snprintf(cmd, sizeof(cmd), "env -u DEBFULLNAME -u DEBEMAIL -u NAME -u EMAIL "
		 "GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_SYSTEM=/dev/null %s "
		 "scripts/deb-maintainer >/dev/null 2>&1", env);
	return sh("%s", cmd);
}

TEST(maintainer_as_dch_finds_it)
{
	char got[512];

	EXPECT_EQ(0, maint("DEBFULLNAME='Ann Other' DEBEMAIL=ann@example.org", got, sizeof(got)));
	EXPECT_STREQ("Ann Other <ann@example.org>", got);
	EXPECT_EQ(0, maint("DEBEMAIL='Ann Other <ann@example.org>'", got, sizeof(got)));
	EXPECT_STREQ("Ann Other <ann@example.org>", got);
	EXPECT_EQ(0, maint("NAME=Bob EMAIL=bob@example.net", got, sizeof(got)));
	EXPECT_STREQ("Bob <bob@example.net>", got);
	/* DEBEMAIL before EMAIL, as dch */
	EXPECT_EQ(0, maint("NAME=Bob EMAIL=bob@example.net DEBEMAIL=b2@example.net", got,
			   sizeof(got)));
	EXPECT_STREQ("Bob <b2@example.net>", got);
	/* user@host is no address: refused, saying what to set */
	EXPECT_EQ(1, maint("DEBFULLNAME=Ann DEBEMAIL=ann@localhost", got, sizeof(got)));
	EXPECT_NE(NULL, strstr(got, "DEBEMAIL"));
	EXPECT_EQ(1, maint("DEBFULLNAME=Ann DEBEMAIL=ann", got, sizeof(got)));
}

TEST_HARNESS_MAIN
