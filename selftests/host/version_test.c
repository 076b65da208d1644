// SPDX-License-Identifier: GPL-2.0
/*
 * One version source (scripts/version): the binaries print it, `make
 * version` prints it, and a source tree without .git (a tarball, the Debian
 * source, a DKMS tree) takes it from .tarball-version, or else the base.
 * Before the first release tag a snapshot is BASE~gitN.gHASH and sorts
 * below the release BASE; after tag vX.Y.Z it is X.Y.Z+gitN.gHASH and sorts
 * above it, as dpkg compares them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include <kselftest_harness.h>

#include "cmd_helpers.h"

TEST(binaries_print_the_tree_version)
{
	char ver[256], got[512], want[512];

	ASSERT_EQ(0, first_line("scripts/version", ver, sizeof(ver)));
	ASSERT_NE('\0', ver[0]);
	/*
	 * X.Y.Z, optionally ~gitN.gHASH (before the release X.Y.Z) or
	 * +gitN.gHASH (after it) and .dirty: a valid Debian upstream version
	 */
	EXPECT_EQ(0, first_line("scripts/version | grep -Ex '[0-9]+\\.[0-9]+\\.[0-9]+([~+]git[0-9]+\\.g[0-9a-f]+)?(\\.dirty)?'",
			     got, sizeof(got)));
	ASSERT_EQ(0, first_line("make -s version", got, sizeof(got)));
	EXPECT_STREQ(ver, got);
	if (access("build/bin/powerpin", X_OK) || access("build/bin/powerpind", X_OK))
		SKIP(return, "binaries not built");
	ASSERT_EQ(0, first_line("build/bin/powerpin --version", got, sizeof(got)));
	snprintf(want, sizeof(want), "powerpin %s", ver);
	EXPECT_STREQ(want, got);
	ASSERT_EQ(0, first_line("build/bin/powerpin -V", got, sizeof(got)));
	EXPECT_STREQ(want, got);
	ASSERT_EQ(0, first_line("build/bin/powerpind --version", got, sizeof(got)));
	snprintf(want, sizeof(want), "powerpind %s", ver);
	EXPECT_STREQ(want, got);
	/* and --help says how */
	EXPECT_EQ(0, first_line("build/bin/powerpind --help | grep -- --version", got, sizeof(got)));
	EXPECT_EQ(0, first_line("build/bin/powerpin --help | grep -- --version", got, sizeof(got)));
}

/* dpkg --compare-versions A OP B: 0 when it holds */
static int dpkg_cmp(const char *a, const char *op, const char *b)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd), "dpkg --compare-versions '%s' %s '%s'", a, op, b);
	return system(cmd) ? 1 : 0;
}

TEST(snapshots_sort_around_the_release)
{
	char dir[] = "/tmp/pptag.XXXXXX", cmd[1024], base[64], got[256], want[256];
	char hash[64], snap[256], top[512];

	if (system("git rev-parse --git-dir >/dev/null 2>&1") ||
	    system("command -v dpkg >/dev/null"))
		SKIP(return, "not a git checkout, or no dpkg");
	ASSERT_NE(NULL, getcwd(top, sizeof(top)));
	ASSERT_NE(NULL, mkdtemp(dir));
	ASSERT_EQ(0, first_line("sed -n 's/^base=//p' scripts/version", base, sizeof(base)));
	/* a repository of its own, with no tag: scripts/version and one commit */
	snprintf(cmd, sizeof(cmd),
		 "cd %s && git init -q && mkdir scripts && cp %s/scripts/version scripts/ && "
		 "git add . && git -c user.name=t -c user.email=t@example.org "
		 "commit -qm one", dir, top);
	ASSERT_EQ(0, system(cmd));
	snprintf(cmd, sizeof(cmd), "git -C %s rev-parse --short=12 HEAD", dir);
	ASSERT_EQ(0, first_line(cmd, hash, sizeof(hash)));
	snprintf(cmd, sizeof(cmd), "%s/scripts/version", dir);
	ASSERT_EQ(0, first_line(cmd, snap, sizeof(snap)));
	snprintf(want, sizeof(want), "%s~git1.g%s", base, hash);
	EXPECT_STREQ(want, snap);
	EXPECT_EQ(0, dpkg_cmp(snap, "lt", base));

	/* the release: the tag's version, above the snapshot */
	snprintf(cmd, sizeof(cmd), "git -C %s tag v%s", dir, base);
	ASSERT_EQ(0, system(cmd));
	snprintf(cmd, sizeof(cmd), "%s/scripts/version", dir);
	ASSERT_EQ(0, first_line(cmd, got, sizeof(got)));
	EXPECT_STREQ(base, got);
	EXPECT_EQ(0, dpkg_cmp(got, "gt", snap));

	/* a commit after it: +gitN, above the release */
	snprintf(cmd, sizeof(cmd), "cd %s && git -c user.name=t -c user.email=t@example.org "
		 "commit -q --allow-empty -m two", dir);
	ASSERT_EQ(0, system(cmd));
	snprintf(cmd, sizeof(cmd), "git -C %s rev-parse --short=7 HEAD", dir);
	ASSERT_EQ(0, first_line(cmd, hash, sizeof(hash)));
	snprintf(cmd, sizeof(cmd), "%s/scripts/version", dir);
	ASSERT_EQ(0, first_line(cmd, got, sizeof(got)));
	snprintf(want, sizeof(want), "%s+git1.g", base);
	EXPECT_EQ(0, strncmp(got, want, strlen(want)));
	EXPECT_NE(NULL, strstr(got, hash));
	EXPECT_EQ(0, dpkg_cmp(got, "gt", base));

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	system(cmd);
}

TEST(tree_without_git)
{
	char dir[] = "/tmp/ppversion.XXXXXX", cmd[1024], got[256], base[64];

	if (system("git rev-parse --git-dir >/dev/null 2>&1"))
		SKIP(return, "not a git checkout");
	ASSERT_NE(NULL, mkdtemp(dir));
	/* what a release tarball holds: the tracked files, no .git */
	snprintf(cmd, sizeof(cmd), "git archive HEAD | tar -x -C %s", dir);
	ASSERT_EQ(0, system(cmd));
	ASSERT_EQ(0, first_line("sed -n 's/^base=//p' scripts/version", base, sizeof(base)));
	ASSERT_NE('\0', base[0]);
	snprintf(cmd, sizeof(cmd), "%s/scripts/version", dir);
	ASSERT_EQ(0, first_line(cmd, got, sizeof(got)));
	EXPECT_STREQ(base, got);

	snprintf(cmd, sizeof(cmd), "echo 9.8.7+test > %s/.tarball-version", dir);
	ASSERT_EQ(0, system(cmd));
	snprintf(cmd, sizeof(cmd), "%s/scripts/version", dir);
	ASSERT_EQ(0, first_line(cmd, got, sizeof(got)));
	EXPECT_STREQ("9.8.7+test", got);
	snprintf(cmd, sizeof(cmd), "make -s -C %s version", dir);
	ASSERT_EQ(0, first_line(cmd, got, sizeof(got)));
	EXPECT_STREQ("9.8.7+test", got);

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	system(cmd);
}

TEST(dist_tarball_keeps_the_version)
{
	char dir[] = "/tmp/ppdist.XXXXXX", cmd[1024], ver[256], got[256], tarball[512];

	if (system("git rev-parse --git-dir >/dev/null 2>&1"))
		SKIP(return, "not a git checkout");
	ASSERT_NE(NULL, mkdtemp(dir));
	ASSERT_EQ(0, first_line("scripts/version", ver, sizeof(ver)));
	ASSERT_EQ(0, first_line("make -s dist", tarball, sizeof(tarball)));
	snprintf(cmd, sizeof(cmd), "tar -C %s -xJf %s", dir, tarball);
	ASSERT_EQ(0, system(cmd));
	snprintf(cmd, sizeof(cmd), "%s/powerpin-%s/scripts/version", dir, ver);
	ASSERT_EQ(0, first_line(cmd, got, sizeof(got)));
	EXPECT_STREQ(ver, got);
	/* and it is a tree make can work in */
	snprintf(cmd, sizeof(cmd), "make -s -C %s/powerpin-%s version", dir, ver);
	ASSERT_EQ(0, first_line(cmd, got, sizeof(got)));
	EXPECT_STREQ(ver, got);
	snprintf(cmd, sizeof(cmd), "rm -rf %s %s", dir, tarball);
	system(cmd);
}

TEST_HARNESS_MAIN
