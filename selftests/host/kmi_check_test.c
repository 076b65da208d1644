// SPDX-License-Identifier: GPL-2.0
/*
 * scripts/kmi-check: the undefined symbols of an object that the given KMI
 * lists do not name, a "MODULE: SYMBOL" line each and status 1; status 0
 * when all are named (across several lists, with --allow); the lists'
 * comments and section headers skipped; status 2 and a message for a
 * missing list, a file that is not ELF, and no module.  The objects are
 * compiled here, and the module of an arm64 build is checked the same way
 * when there is one.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <kselftest_harness.h>

#include "cmd_helpers.h"

#define KMI	"scripts/kmi-check"

FIXTURE(kmi) {
	char dir[64];
	char obj[128], list[128], list2[128];
	char out[8192];
};

FIXTURE_SETUP(kmi)
{
	FILE *f;

	if (sh("command -v readelf >/dev/null && command -v cc >/dev/null"))
		SKIP(return, "readelf or cc missing");
	strcpy(self->dir, "/tmp/pp-kmi-XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	snprintf(self->obj, sizeof(self->obj), "%s/mod.o", self->dir);
	snprintf(self->list, sizeof(self->list), "%s/abi_gki_aarch64", self->dir);
	snprintf(self->list2, sizeof(self->list2), "%s/abi_gki_aarch64_vendor", self->dir);
	/* a module using three kernel symbols and defining one of its own */
	ASSERT_EQ(0, sh("printf '%%s\\n' 'extern int in_core(void), in_vendor(void), not_listed(void);' "
			"'int own(void) { return in_core() + in_vendor() + not_listed(); }' "
			"| cc -x c -c -o %s -", self->obj));
	f = fopen(self->list, "w");
	ASSERT_NE(NULL, f);
	fputs("[abi_symbol_list]\n# core\n  in_core\n\n  own_not_needed\n", f);
	fclose(f);
	f = fopen(self->list2, "w");
	ASSERT_NE(NULL, f);
	fputs("[abi_symbol_list]\n  in_vendor  # a vendor's\n", f);
	fclose(f);
}

FIXTURE_TEARDOWN(kmi)
{
	sh("rm -rf %s", self->dir);
}

static int kmi(FIXTURE_DATA(kmi) *self, const char *args)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd), KMI " %s 2>&1", args);
	return run_cmd(cmd, self->out, sizeof(self->out));
}

TEST_F(kmi, missing_symbols_one_line_each)
{
	char args[512], want[512];

	snprintf(args, sizeof(args), "--kmi %s %s", self->list, self->obj);
	EXPECT_EQ(1, kmi(self, args));
	snprintf(want, sizeof(want), "%s: in_vendor\n%s: not_listed\n", self->obj, self->obj);
	EXPECT_EQ(0, strncmp(self->out, want, strlen(want))) TH_LOG("%s", self->out);
	EXPECT_NE(NULL, strstr(self->out, "2 symbol(s) not in the KMI lists"));
	EXPECT_EQ(NULL, strstr(self->out, "in_core"));
	EXPECT_EQ(NULL, strstr(self->out, ": own"));	/* defined, not needed */
}

TEST_F(kmi, lists_add_up_and_allow)
{
	char args[512], want[512];

	snprintf(args, sizeof(args), "--kmi %s --kmi=%s -q %s", self->list, self->list2, self->obj);
	EXPECT_EQ(1, kmi(self, args));
	snprintf(want, sizeof(want), "%s: not_listed\n", self->obj);
	EXPECT_STREQ(want, self->out);
	snprintf(args, sizeof(args), "--kmi %s --kmi %s --allow not_listed %s", self->list,
		 self->list2, self->obj);
	EXPECT_EQ(0, kmi(self, args));
	EXPECT_NE(NULL, strstr(self->out, "every symbol needed is in the KMI lists"));
}

TEST_F(kmi, bad_input_is_status_2)
{
	char args[512];

	snprintf(args, sizeof(args), "--kmi %s/none %s", self->dir, self->obj);
	EXPECT_EQ(2, kmi(self, args));
	EXPECT_NE(NULL, strstr(self->out, "none: not a readable file"));
	snprintf(args, sizeof(args), "--kmi %s %s", self->list, self->list);
	EXPECT_EQ(2, kmi(self, args));
	EXPECT_NE(NULL, strstr(self->out, "not an ELF object"));
	snprintf(args, sizeof(args), "--kmi %s", self->list);
	EXPECT_EQ(2, kmi(self, args));
	EXPECT_NE(NULL, strstr(self->out, "no module given"));
	EXPECT_EQ(2, kmi(self, self->obj));
	EXPECT_NE(NULL, strstr(self->out, "no KMI list given"));
	EXPECT_EQ(2, kmi(self, "--frob x.ko"));
	EXPECT_NE(NULL, strstr(self->out, "unknown option '--frob'"));
}

/*
 * The arm64 module, where one was built, against android14-6.1's union:
 * every symbol reported is one the union really lacks, and none of the
 * module's needs that the union has is.
 */
TEST_F(kmi, built_arm64_module_against_a_branch)
{
	const char *list = "../shared/kmi/android14-6.1.txt";
	char ko[256], args[512], cmd[768], *line;
	FILE *f;
	int n = 0;

	f = popen("ls build/6.1*-arm64/powerpin.ko 2>/dev/null | head -n 1", "r");
	ASSERT_NE(NULL, f);
	if (!fgets(ko, sizeof(ko), f))
		ko[0] = '\0';
	pclose(f);
	ko[strcspn(ko, "\n")] = '\0';
	if (!ko[0] || access(list, R_OK))
		SKIP(return, "no arm64 6.1 module built, or no %s", list);
	snprintf(args, sizeof(args), "-q --kmi %s %s", list, ko);
	kmi(self, args);
	for (line = strtok(self->out, "\n"); line; line = strtok(NULL, "\n")) {
		const char *sym = strrchr(line, ' ');

		ASSERT_NE(NULL, sym);
		snprintf(cmd, sizeof(cmd), "grep -qx '%s' %s", sym + 1, list);
		EXPECT_NE(0, sh("%s", cmd)) TH_LOG("%s is in the list", sym + 1);
		snprintf(cmd, sizeof(cmd), "readelf -sW %s | grep -q ' UND %s$'", ko, sym + 1);
		EXPECT_EQ(0, sh("%s", cmd)) TH_LOG("%s is not needed", sym + 1);
		n++;
	}
	TH_LOG("%d symbols of %s not in %s", n, ko, list);
}

TEST_HARNESS_MAIN
