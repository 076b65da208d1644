// SPDX-License-Identifier: GPL-2.0
/*
 * DKMS: the tree scripts/dkms-tree makes (what powerpin-dkms puts in
 * /usr/src) goes through `dkms add`, `dkms build` and `dkms install` for
 * every kernel of the test matrix whose headers the cache holds and this
 * host's compiler builds against (scripts/lib.sh: kernel_host_buildable,
 * given to DKMS as --kernelsourcedir), in scratch DKMS, source and install
 * trees (the system's are left alone), and the module it installs carries
 * the tree's version and the kernel's vermagic.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include <kselftest_harness.h>

#include "cmd_helpers.h"

FIXTURE(dkms) {
	char dir[64];
	char ver[128];
	char dkms[512];
};

FIXTURE_SETUP(dkms)
{
	if (sh("command -v dkms >/dev/null"))
		SKIP(return, "dkms not installed (make deps)");
	strcpy(self->dir, "/tmp/ppdkms.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	line_of("scripts/version", self->ver, sizeof(self->ver));
	self->ver[strcspn(self->ver, "\n")] = '\0';
	ASSERT_NE('\0', self->ver[0]);
	ASSERT_EQ(0, sh("mkdir -p %s/tree %s/inst && scripts/dkms-tree %s/src >/dev/null",
			self->dir, self->dir, self->dir));
	snprintf(self->dkms, sizeof(self->dkms),
		 "dkms --dkmstree %s/tree --sourcetree %s/src --installtree %s/inst",
		 self->dir, self->dir, self->dir);
}

FIXTURE_TEARDOWN(dkms)
{
	if (self->dir[0])
		sh("rm -rf %s", self->dir);
}

TEST_F_TIMEOUT(dkms, add_build_install_for_each_kernel, 900)
{
	char kernels[4096], ko[1024], cmd[1024], *k, *save;
	int built = 0;

	/* the tree is complete as DKMS wants it */
	ASSERT_EQ(0, sh("grep -qx 'PACKAGE_VERSION=\"%s\"' %s/src/powerpin-%s/dkms.conf",
			self->ver, self->dir, self->ver));
	ASSERT_EQ(0, sh("%s add -m powerpin -v %s >/dev/null", self->dkms, self->ver));
	/* "ABI=TREE" for each kernel of the matrix DKMS can build for here */
	line_of("bash -c '. scripts/lib.sh; guests | while read -r a k; do "
		"abi=$(kernel_abi $k $a) && t=$(kernel_host_buildable $abi) && "
		"printf \"%s=%s \" $abi $t; done'", kernels, sizeof(kernels));
	for (k = strtok_r(kernels, " ", &save); k; k = strtok_r(NULL, " ", &save)) {
		char *tree = strchr(k, '=');

		ASSERT_NE(NULL, tree);
		*tree++ = '\0';
		EXPECT_EQ(0, sh("%s build -m powerpin -v %s -k %s --kernelsourcedir %s >%s/build.log 2>&1 || "
				"{ tail -n 20 %s/build.log; cat %s/tree/powerpin/%s/build/make.log; exit 1; }",
				self->dkms, self->ver, k, tree, self->dir, self->dir, self->dir, self->ver));
		ASSERT_EQ(0, sh("mkdir -p %s/inst/%s && %s install --no-depmod -m powerpin -v %s -k %s "
				"--kernelsourcedir %s >/dev/null",
				self->dir, k, self->dkms, self->ver, k, tree));
		snprintf(cmd, sizeof(cmd), "ls %s/inst/%s/updates/dkms/powerpin.ko* 2>/dev/null | head -n 1",
			 self->dir, k);
		line_of(cmd, ko, sizeof(ko));
		ASSERT_NE('\0', ko[0]);
		EXPECT_EQ(0, sh("test \"$(modinfo -F version %s)\" = '%s'", ko, self->ver));
		EXPECT_EQ(0, sh("modinfo -F vermagic %s | grep -q '^%s '", ko, k));
		EXPECT_EQ(0, sh("%s status -m powerpin -v %s -k %s | grep -q ': installed'",
				self->dkms, self->ver, k));
		built++;
	}
	if (!built)
		SKIP(return, "no tree of the matrix in the cache that DKMS builds against here (run scripts/deps)");
	ASSERT_EQ(0, sh("%s remove -m powerpin -v %s --all --no-depmod >/dev/null 2>&1", self->dkms, self->ver));
	EXPECT_EQ(0, sh("test -z \"$(find %s/inst -name 'powerpin.ko*')\"", self->dir));
}

TEST_HARNESS_MAIN
