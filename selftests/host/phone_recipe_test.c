// SPDX-License-Identifier: GPL-2.0
/*
 * kmod/README.md's Nexus 6 recipe, word for word, on a clean copy of the
 * stock shamu source (POWERPIN_LINUX_3_10_SHAMU, or the cache's
 * linux-3.10-shamu-src): shamu_defconfig with module support, the fixes
 * Debian's cross compiler needs, the module built with the same
 * CROSS_COMPILE against that configuration, and modcheck against what the
 * flashed kernel's `adb shell uname -r` and `uname -v` print (adb is a
 * stand-in that answers as that kernel: there is no phone here).
 *
 * One step differs, said here and in the README: the phone's image
 * (`make zImage-dtb`, the whole Qualcomm kernel) is not built; the test
 * runs `make modules_prepare`, the part of that build the module needs.
 * The module built this way is for shamu_defconfig's kernel, which no
 * emulator here boots; the shamu guest of make check loads the one built
 * the same way against its own configuration (scripts/linux-tree).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <kselftest_harness.h>

#include "cmd_helpers.h"

/* The recipe, each line as kmod/README.md has it. */
static const char * const recipe[] = {
	"cd ~/shamu-kernel",
	"export ARCH=arm CROSS_COMPILE=arm-linux-gnueabihf-",
	"for p in ~/powerpin/scripts/linux-3.10-shamu.d/000[1235]-*.patch; do patch -p1 < \"$p\"; done",
	"make shamu_defconfig",
	"scripts/config --enable MODULES --enable MODULE_UNLOAD",
	"make HOSTCFLAGS=\"-O2 -fcommon\" olddefconfig",
	"make HOSTCFLAGS=\"-O2 -fcommon\" modules_prepare",
	"cd ~/powerpin",
	"make modules KDIR=~/shamu-kernel KO_DIR=build/phone KBUILD_DIR=build/kmod-phone",
	"build/bin/powerpin modcheck build/phone/powerpin.ko --release \"$(adb shell uname -r)\" --kernel-version \"$(adb shell uname -v)\"",
};

/* What the stand-in adb answers: shamu's release and version strings */
#define ADB "adb() { case \"$3\" in -r) echo 3.10.40;; -v) echo '#1 SMP PREEMPT Wed Nov 19 01:17:55 UTC 2014';; esac; }"

FIXTURE(recipe) {
	char home[64];
	char tree[512];
};

FIXTURE_SETUP(recipe)
{
	char top[512];

	line_of("bash -c '. scripts/lib.sh && ltree_tree 3.10-shamu' 2>/dev/null",
		self->tree, sizeof(self->tree));
	if (!self->tree[0])
		SKIP(return, "no shamu tree: set POWERPIN_LINUX_3_10_SHAMU=DIR or put one at /var/cache/powerpin/linux-3.10-shamu-src");
	if (system("command -v arm-linux-gnueabihf-gcc >/dev/null"))
		SKIP(return, "no arm-linux-gnueabihf-gcc (scripts/deps)");
	ASSERT_NE(NULL, getcwd(top, sizeof(top)));
	strcpy(self->home, "/tmp/pp-recipe-XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->home));
	/* a clean copy of the source, and this checkout as ~/powerpin */
	ASSERT_EQ(0, sh("tar -C %s --exclude=.git -cf - . | (mkdir %s/shamu-kernel && tar -C %s/shamu-kernel -xf -)",
			self->tree, self->home, self->home));
	ASSERT_EQ(0, sh("ln -s %s %s/powerpin", top, self->home));
}

FIXTURE_TEARDOWN(recipe)
{
	if (self->home[0])
		sh("rm -rf %s; rm -rf build/phone build/kmod-phone", self->home);
}

TEST_F_TIMEOUT(recipe, nexus6_recipe_builds_a_matching_module, 900)
{
	char *readme = (char *)file_text("kmod/README.md");
	char script[8192], out[65536];
	size_t i, n;
	int rc;

	ASSERT_NE(NULL, readme);
	for (i = 0; i < sizeof(recipe) / sizeof(recipe[0]); i++) {
		if (strstr(readme, recipe[i]))
			continue;
		TH_LOG("kmod/README.md does not say line %zu of the recipe", i + 1);
		EXPECT_TRUE(false);
	}
	n = snprintf(script, sizeof(script), "set -e; export HOME=%s; %s; ", self->home, ADB);
	for (i = 0; i < sizeof(recipe) / sizeof(recipe[0]); i++)
		n += snprintf(script + n, sizeof(script) - n, "%s >>%s/log 2>&1; ",
			      recipe[i], self->home);
	n += snprintf(script + n, sizeof(script) - n, "cat %s/log | tail -n 4", self->home);
	ASSERT_LT(n, sizeof(script));
	put_file("/tmp/pp-recipe.sh", script);
	rc = run_cmd("bash /tmp/pp-recipe.sh 2>&1", out, sizeof(out));
	unlink("/tmp/pp-recipe.sh");
	if (rc) {
		snprintf(script, sizeof(script), "tail -n 30 %s/log", self->home);
		run_cmd(script, out, sizeof(out));
	}
	ASSERT_EQ(0, rc) TH_LOG("%s", out);
	if (!strstr(out, "module  3.10.40 SMP preempt mod_unload ARMv7") ||
	    !strstr(out, "matches (insmod's vermagic check passes)")) {
		TH_LOG("modcheck did not say the module matches: %s", out);
		EXPECT_TRUE(false);
	}
}

TEST_HARNESS_MAIN
