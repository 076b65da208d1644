// SPDX-License-Identifier: GPL-2.0
/*
 * scripts/install (make install / make uninstall) into a scratch DESTDIR:
 * what lands where, the unit's paths, that the unit's ExecStart would start
 * on a fresh install, and that uninstall takes back exactly what install put
 * there and leaves the administrator's config alone.  make install itself:
 * the running kernel by default, nothing the tests need, and a unit whose
 * sandbox systemd-analyze rates at exposure 5 or less.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <kselftest_harness.h>

#include "cmd_helpers.h"

static bool has(const char *path, const char *needle)
{
	char buf[4096];
	size_t n;
	FILE *fp = fopen(path, "r");

	if (!fp)
		return false;
	n = fread(buf, 1, sizeof(buf) - 1, fp);
	fclose(fp);
	buf[n] = '\0';
	return strstr(buf, needle) != NULL;
}

static mode_t mode_of(const char *path)
{
	struct stat st;

	return stat(path, &st) ? 0 : st.st_mode & 07777;
}

/*
 * Run the unit's ExecStart as systemd would on the installed tree, with
 * every absolute path moved under @dest and --check-config added, so the
 * daemon reads its configuration as it would at start and exits.  Returns
 * its exit status (0: it would start), -1 if the unit has no ExecStart.
 */
static int run_exec_start(const char *unit, const char *dest)
{
	char line[1024], cmd[4096], *tok, *save;
	bool found = false;
	size_t len = 0;
	FILE *fp = fopen(unit, "r");

	if (!fp)
		return -1;
	while (fgets(line, sizeof(line), fp)) {
		if (!strncmp(line, "ExecStart=", 10)) {
			found = true;
			break;
		}
	}
	fclose(fp);
	if (!found)
		return -1;
	line[strcspn(line, "\n")] = '\0';
	cmd[0] = '\0';
	for (tok = strtok_r(line + 10, " \t", &save); tok;
	     tok = strtok_r(NULL, " \t", &save))
		len += snprintf(cmd + len, sizeof(cmd) - len, "'%s%s' ",
				tok[0] == '/' ? dest : "", tok);
	snprintf(cmd + len, sizeof(cmd) - len, "--check-config >/dev/null");
	return sh("%s", cmd);
}

FIXTURE(inst) {
	char dest[64];
	char kver[128];
};

FIXTURE_SETUP(inst)
{
	char ko[256];
	FILE *p = popen("scripts/kver 6.12", "r");

	ASSERT_NE(NULL, p);
	if (!fgets(self->kver, sizeof(self->kver), p))
		self->kver[0] = '\0';
	pclose(p);
	self->kver[strcspn(self->kver, "\n")] = '\0';
	/* a matrix narrowed to other guests fetches no 6.12 kernel */
	if (!self->kver[0])
		SKIP(return, "no 6.12 guest kernel in the cache (scripts/deps with 6.12 in POWERPIN_KERNELS)");
	snprintf(ko, sizeof(ko), "build/%s/powerpin.ko", self->kver);
	if (access(ko, R_OK) || access("build/bin/powerpind", X_OK) ||
	    access("build/bin/powerpin", X_OK))
		SKIP(return, "module or binaries not built (make all)");
	strcpy(self->dest, "/tmp/ppinstall.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dest));
}

FIXTURE_TEARDOWN(inst)
{
	if (self->dest[0])
		sh("rm -rf %s", self->dest);
}

TEST_F(inst, install_then_uninstall_prefix_usr_local)
{
	char p[512];

	ASSERT_EQ(0, sh("scripts/install install %s /usr/local %s 2>/dev/null",
			 self->dest, self->kver));
	snprintf(p, sizeof(p), "%s/lib/modules/%s/updates/powerpin.ko", self->dest, self->kver);
	EXPECT_EQ((mode_t)0644, mode_of(p));
	snprintf(p, sizeof(p), "%s/usr/local/bin/powerpin", self->dest);
	EXPECT_EQ((mode_t)0755, mode_of(p));
	snprintf(p, sizeof(p), "%s/usr/local/sbin/powerpind", self->dest);
	EXPECT_EQ((mode_t)0755, mode_of(p));
	snprintf(p, sizeof(p), "%s/etc/powerpin/powerpind.conf.example", self->dest);
	EXPECT_EQ((mode_t)0644, mode_of(p));
	/* a local prefix puts the unit where the administrator's units go */
	snprintf(p, sizeof(p), "%s/etc/systemd/system/powerpind.service", self->dest);
	EXPECT_TRUE(has(p, "ExecStart=/usr/local/sbin/powerpind --foreground\n"));
	EXPECT_FALSE(has(p, "@SBINDIR@"));
	EXPECT_FALSE(has(p, "@DOCDIR@"));
	/*
	 * Fresh install, no powerpind.conf: the unit still starts.  Naming the
	 * config in ExecStart made it exit 1 because the file is not there.
	 */
	EXPECT_EQ(0, run_exec_start(p, self->dest));
	/* the example is a valid configuration as it ships */
	EXPECT_EQ(0, sh("%s/usr/local/sbin/powerpind --check-config --config %s/etc/powerpin/powerpind.conf.example >/dev/null",
			 self->dest, self->dest));

	/* the administrator's own config survives uninstall */
	snprintf(p, sizeof(p), "%s/etc/powerpin/powerpind.conf", self->dest);
	ASSERT_EQ(0, sh("echo 'report = no' > %s", p));
	ASSERT_EQ(0, sh("scripts/install uninstall %s /usr/local %s 2>/dev/null",
			 self->dest, self->kver));
	EXPECT_EQ((mode_t)0644, mode_of(p));
	/* and nothing else is left */
	EXPECT_EQ(0, sh("test \"$(find %s -type f | wc -l)\" = 1",
			 self->dest));
	/* uninstalling twice is harmless */
	EXPECT_EQ(0, sh("scripts/install uninstall %s /usr/local %s 2>/dev/null",
			 self->dest, self->kver));
}

TEST_F(inst, prefix_usr_and_bad_arguments)
{
	char p[512];

	ASSERT_EQ(0, sh("scripts/install install %s /usr %s 2>/dev/null",
			 self->dest, self->kver));
	snprintf(p, sizeof(p), "%s/lib/systemd/system/powerpind.service", self->dest);
	EXPECT_TRUE(has(p, "ExecStart=/usr/sbin/powerpind "));
	EXPECT_EQ(0, run_exec_start(p, self->dest));
	ASSERT_EQ(0, sh("scripts/install uninstall %s /usr %s 2>/dev/null",
			 self->dest, self->kver));
	EXPECT_EQ(0, sh("test -z \"$(find %s -type f)\"", self->dest));

	EXPECT_EQ(1, sh("scripts/install install %s usr %s 2>/dev/null",
			 self->dest, self->kver));
	EXPECT_EQ(1, sh("scripts/install reinstall %s /usr %s 2>/dev/null",
			 self->dest, self->kver));
	EXPECT_EQ(1, sh("scripts/install install %s /usr %s 2>/dev/null",
			 self->dest, "0.0-no-such-kernel"));
	EXPECT_EQ(0, sh("test -z \"$(find %s -type f)\"", self->dest));
}

/* Everything but the module, checked for the parts a user reads. */
static void check_userspace_files(struct __test_metadata *_metadata, const char *dest,
				  const char *prefix)
{
	static const char *const files[] = {
		"bin/powerpin", "sbin/powerpind", "include/linux/powerpin.h",
		"share/man/man1/powerpin.1", "share/man/man4/powerpin.4",
		"share/man/man8/powerpind.8",
		"share/bash-completion/completions/powerpin",
		"share/bash-completion/completions/powerpind",
		"share/doc/powerpin/capture-format.md",
		"share/doc/powerpin/kmod/README.md",
		"lib/powerpin/libpowerpin_agent.so",
	};
	char p[512];
	unsigned int i;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(p, sizeof(p), "%s%s/%s", dest, prefix, files[i]);
		if (!mode_of(p))
			TH_LOG("%s not installed", p);
		EXPECT_NE((mode_t)0, mode_of(p));
	}
	EXPECT_EQ(0, sh("LC_ALL=C man --warnings -l %s%s/share/man/man1/powerpin.1 2>&1 >/dev/null | grep -q . && exit 1; exit 0",
			 dest, prefix));
	/* dated and versioned, naming the installed docs, no placeholder left */
	EXPECT_EQ(0, sh("grep -Eq '^\\.TH POWERPIN 1 \"[0-9]{4}-[0-9]{2}-[0-9]{2}\" \"powerpin '\"$(scripts/version)\"'\"' %s%s/share/man/man1/powerpin.1",
			 dest, prefix));
	EXPECT_EQ(0, sh("grep -q ' %s/share/doc/powerpin/output' %s%s/share/man/man1/powerpin.1",
			 prefix, dest, prefix));
	EXPECT_NE(0, sh("grep -q @ %s%s/share/man/man*/*", dest, prefix));
	EXPECT_EQ(0, sh("bash -c '. %s%s/share/bash-completion/completions/powerpin && complete -p powerpin powerpind' >/dev/null",
			 dest, prefix));
	/* the header is usable on its own, as userspace includes it */
	EXPECT_EQ(0, sh("echo '#include <linux/powerpin.h>' | cc -fsyntax-only -I%s%s/include -x c -",
			 dest, prefix));
}

TEST_F_TIMEOUT(inst, make_install_userspace_only, 600)
{
	char p[512];

	/* its own build tree: what make install builds, and nothing else */
	ASSERT_EQ(0, sh("make -s install DESTDIR=%s PREFIX=/usr MODULE=no B=$PWD/build/install-test >/dev/null 2>&1",
			 self->dest));
	EXPECT_NE(0, sh("test -e build/install-test/tests"));
	check_userspace_files(_metadata, self->dest, "/usr");
	EXPECT_EQ(0, sh("test -z \"$(find %s/lib/modules -name '*.ko' 2>/dev/null)\"", self->dest));
	snprintf(p, sizeof(p), "%s/lib/systemd/system/powerpind.service", self->dest);
	EXPECT_EQ(0, run_exec_start(p, self->dest));
	ASSERT_EQ(0, sh("make -s uninstall DESTDIR=%s PREFIX=/usr MODULE=no B=$PWD/build/install-test >/dev/null 2>&1",
			 self->dest));
	EXPECT_EQ(0, sh("test -z \"$(find %s -type f)\"", self->dest));
}

/*
 * Its own build directories: make check runs this beside guests that load
 * build/KVER/'s modules, and the running kernel may be one of theirs.
 */
#define INSTALL_BUILD	"B=$PWD/build/install-test KBUILD_DIR=$PWD/build/install-test/kmod " \
			"KO_DIR=$PWD/build/install-test/ko"

TEST_F_TIMEOUT(inst, make_install_builds_for_the_running_kernel, 600)
{
	char kver[128], p[512];
	FILE *u = popen("uname -r", "r");

	ASSERT_NE(NULL, u);
	ASSERT_NE(NULL, fgets(kver, sizeof(kver), u));
	pclose(u);
	kver[strcspn(kver, "\n")] = '\0';
	snprintf(p, sizeof(p), "/lib/modules/%s/build/Makefile", kver);
	if (!access(p, R_OK)) {
		ASSERT_EQ(0, sh("make -s install DESTDIR=%s " INSTALL_BUILD " >/dev/null 2>&1",
				 self->dest));
		snprintf(p, sizeof(p), "%s/lib/modules/%s/updates/powerpin.ko", self->dest, kver);
		EXPECT_EQ((mode_t)0644, mode_of(p));
	} else {
		/* no headers for it here: a clear refusal that says what to do */
		EXPECT_NE(0, sh("make -s install DESTDIR=%s " INSTALL_BUILD " >%s/log 2>&1",
				 self->dest, self->dest));
		EXPECT_EQ(0, sh("grep -q 'no kernel headers for %s' %s/log", kver, self->dest));
		EXPECT_EQ(0, sh("grep -q 'MODULE=no' %s/log", self->dest));
		EXPECT_EQ(0, sh("test -z \"$(find %s -type f ! -name log)\"", self->dest));
	}
}

TEST_F(inst, unit_exposure_at_most_5)
{
	char p[512], cmd[1024], line[512];
	double exposure = 99;
	FILE *fp;

	if (sh("command -v systemd-analyze >/dev/null"))
		SKIP(return, "no systemd-analyze");
	ASSERT_EQ(0, sh("scripts/install install %s /usr none 2>/dev/null", self->dest));
	snprintf(p, sizeof(p), "%s/lib/systemd/system/powerpind.service", self->dest);
	/* --threshold counts in tenths of the exposure it prints */
	snprintf(cmd, sizeof(cmd), "systemd-analyze security --offline=true --threshold=50 %s 2>&1", p);
	fp = popen(cmd, "r");
	ASSERT_NE(NULL, fp);
	while (fgets(line, sizeof(line), fp))
		sscanf(line, "\u2192 Overall exposure level for powerpind.service: %lf", &exposure);
	EXPECT_EQ(0, WEXITSTATUS(pclose(fp)));
	TH_LOG("exposure %.1f", exposure);
	EXPECT_LE(exposure, 5.0);
}

TEST_HARNESS_MAIN
