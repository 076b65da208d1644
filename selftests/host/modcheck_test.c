// SPDX-License-Identifier: GPL-2.0
/*
 * powerpin modcheck: a module's vermagic against a kernel's release and
 * version, with the exact lines and exit status for a match, each kind of
 * difference, files that are no module, and usage errors.  The modules are
 * made here: bytes around a .modinfo-like run of NUL-separated entries.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <kselftest_harness.h>

#include "cmd_helpers.h"

#define PP	"build/bin/powerpin"

FIXTURE(modcheck) {
	char dir[64];
	char ko[96];
	char out[4096];
};

FIXTURE_SETUP(modcheck)
{
	if (access(PP, X_OK))
		SKIP(return, "build " PP " first (make userspace)");
	strcpy(self->dir, "/tmp/pp-modcheck-XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	snprintf(self->ko, sizeof(self->ko), "%s/powerpin.ko", self->dir);
}

FIXTURE_TEARDOWN(modcheck)
{
	sh("rm -rf %s", self->dir);
}

/* A fake module: ELF-ish junk, then the entries, NUL-separated. */
static void write_module(const char *path, const char *vermagic)
{
	FILE *f = fopen(path, "w");
	static const char junk[] = "\177ELF\1\1\1\0xvermagic=not-this\0";

	fwrite(junk, 1, sizeof(junk), f);
	fprintf(f, "license=GPL%cname=powerpin%cvermagic=%s%cauthor=x%c",
		0, 0, vermagic, 0, 0);
	fclose(f);
}

static int modcheck(struct __test_metadata *_metadata, FIXTURE_DATA(modcheck) *self,
		    const char *args)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), PP " modcheck %s %s 2>&1", self->ko, args);
	return run_cmd(cmd, self->out, sizeof(self->out));
}

TEST_F(modcheck, matching_module_passes)
{
	write_module(self->ko, "3.10.40-g9a6f5e3 SMP preempt mod_unload ARMv7 p2v8 ");
	EXPECT_EQ(0, modcheck(_metadata, self,
			      "--release 3.10.40-g9a6f5e3 --kernel-version '#1 SMP PREEMPT Wed Nov 19 2014'"));
	EXPECT_STREQ("module  3.10.40-g9a6f5e3 SMP preempt mod_unload ARMv7 p2v8\n"
		     "kernel  3.10.40-g9a6f5e3 #1 SMP PREEMPT Wed Nov 19 2014\n"
		     "matches (insmod's vermagic check passes)\n", self->out);
	write_module(self->ko, "6.1.0-56-amd64 SMP preempt mod_unload modversions ");
	EXPECT_EQ(0, modcheck(_metadata, self,
			      "-r 6.1.0-56-amd64 -k '#1 SMP PREEMPT_DYNAMIC Debian 6.1.192-1'"));
	EXPECT_NE(NULL, strstr(self->out, "matches (insmod's vermagic check passes; symbol versions are checked at load)\n"));
}

TEST_F(modcheck, each_difference_is_named)
{
	write_module(self->ko, "3.10.40 SMP mod_unload ARMv7 p2v8 ");
	EXPECT_EQ(1, modcheck(_metadata, self,
			      "--release 3.10.40-g9a6f5e3 --kernel-version '#1 SMP PREEMPT Wed'"));
	EXPECT_NE(NULL, strstr(self->out,
			       "differs release: the module's is 3.10.40, the kernel's 3.10.40-g9a6f5e3\n"
			       "differs preemption: the module's is not preemptible, the kernel's PREEMPT\n"))
		TH_LOG("%s", self->out);
	EXPECT_NE(NULL, strstr(self->out, "powerpin modcheck: " )) TH_LOG("%s", self->out);
	EXPECT_NE(NULL, strstr(self->out, "does not match this kernel")) TH_LOG("%s", self->out);
	write_module(self->ko, "4.4.155 preempt_rt mod_unload aarch64");
	EXPECT_EQ(1, modcheck(_metadata, self, "-r 4.4.155 -k '#2 SMP PREEMPT Mon'"));
	EXPECT_NE(NULL, strstr(self->out, "differs SMP: the module's is not SMP, the kernel's SMP\n"
					  "differs preemption: the module's is PREEMPT_RT, the kernel's PREEMPT\n"))
		TH_LOG("%s", self->out);
}

TEST_F(modcheck, not_a_module)
{
	put_file(self->ko, "just text, vermagic=inside a line\n");
	EXPECT_EQ(1, modcheck(_metadata, self, "-r 1 -k x"));
	EXPECT_NE(NULL, strstr(self->out, "powerpin.ko: not a kernel module (no vermagic in it)\n"));
	unlink(self->ko);
	EXPECT_EQ(1, modcheck(_metadata, self, "-r 1 -k x"));
	EXPECT_NE(NULL, strstr(self->out, "powerpin.ko: No such file or directory\n"));
	snprintf(self->ko, sizeof(self->ko), "%s", self->dir);
	EXPECT_EQ(1, modcheck(_metadata, self, "-r 1 -k x"));
	EXPECT_NE(NULL, strstr(self->out, ": Is a directory\n")) TH_LOG("%s", self->out);
}

TEST_F(modcheck, usage_errors)
{
	EXPECT_EQ(2, run_cmd(PP " modcheck 2>&1", self->out, sizeof(self->out)));
	EXPECT_STREQ("powerpin modcheck: which module?\n"
		     "Try 'powerpin modcheck --help' for more information.\n", self->out);
	write_module(self->ko, "3.10.40 SMP");
	EXPECT_EQ(2, modcheck(_metadata, self, "--release 3.10.40"));
	EXPECT_NE(NULL, strstr(self->out, "--release and --kernel-version go together\n"));
	EXPECT_EQ(2, modcheck(_metadata, self, "--release '' --kernel-version x"));
	EXPECT_NE(NULL, strstr(self->out, "and the release is not empty\n"));
	EXPECT_EQ(2, modcheck(_metadata, self, "other.ko"));
	EXPECT_NE(NULL, strstr(self->out, "one module, please\n"));
}

TEST_HARNESS_MAIN
