// SPDX-License-Identifier: GPL-2.0
/*
 * powerpin flame without a JVM: allocation logs in every shape
 * tiallocsample writes them (a stack with no frames, a thread or class it
 * could not name), stacks that are prefixes of one another, the bytes of
 * a thread/type/size line whose thread name holds "size[", and where the
 * output goes (-o FILE, "-", a FIFO, a symlink, a directory).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <kselftest_harness.h>

#include "java/java.h"
#include "cmd_helpers.h"
#include "fuzz_seed.h"

#define POWERPIN	"build/bin/powerpin"

FIXTURE(flame) {
	char dir[64];
	char log[128], out[128];
	char text[65536];
};

FIXTURE_SETUP(flame)
{
	strcpy(self->dir, "/tmp/powerpin-flame-XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	snprintf(self->log, sizeof(self->log), "%s/alloc.log", self->dir);
	snprintf(self->out, sizeof(self->out), "%s/out", self->dir);
}

FIXTURE_TEARDOWN(flame)
{
	if (sh("rm -rf %s", self->dir))
		TH_LOG("could not remove %s", self->dir);
}

static int write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	fputs(text, f);
	fuzz_seed("alloc_log", text, strlen(text));
	return fclose(f);
}


/*
 * A log as tiallocsample itself writes one: its thread/type/size lines
 * for a thread and class it could not name, for no class at all, a stack
 * whose trace failed (the thread/type/size index alone), definitions
 * interleaved with samples, a stack defined and then sampled again.
 */
static const char tiallocsample_log[] =
	"+0,jthread[main], jclass[[I file: <UNKNOWN_FILE>], size[24, hex: 0x18]\n"
	"+1,LMain;::main([Ljava/lang/String;)V\n"
	"+2,LMain;::run()V\n"
	"=3,0;1;2\n"
	"3\n"
	"+4,jthread[<UNKNOWN THREAD>], jclass[TYPE UNKNOWN], size[16, hex: 0x10]\n"
	"=5,4\n"
	"5\n"
	"3\n"
	"+6,jthread[<NULLPTR>], jclass[<NONE><<NONE>> file: <UNKNOWN_FILE>], size[1024, hex: 0x400]\n"
	"+7,ERROR\n"
	"=8,6;1;7\n"
	"8\n"
	"3\n";

TEST_F(flame, reads_tiallocsample_logs)
{
	char cmd[512];

	ASSERT_EQ(0, write_file(self->log, tiallocsample_log));
	snprintf(cmd, sizeof(cmd), POWERPIN " flame %s --folded 2>&1", self->log);
	ASSERT_EQ(0, run_cmd(cmd, self->text, sizeof(self->text))) TH_LOG("%s", self->text);
	/* frame order, ';' in a signature as ':' (mkflame.py --ignore_type's lines) */
	EXPECT_STREQ("LMain:::main([Ljava/lang/String:)V;ERROR 1\n"
		     "LMain:::main([Ljava/lang/String:)V;LMain:::run()V 3\n"
		     "[no Java frames] 1\n", self->text);
	snprintf(cmd, sizeof(cmd), POWERPIN " flame %s --folded --weight bytes 2>&1", self->log);
	ASSERT_EQ(0, run_cmd(cmd, self->text, sizeof(self->text))) TH_LOG("%s", self->text);
	EXPECT_STREQ("LMain:::main([Ljava/lang/String:)V;ERROR 1024\n"
		     "LMain:::main([Ljava/lang/String:)V;LMain:::run()V 72\n"
		     "[no Java frames] 16\n", self->text);
}

/*
 * Stacks that are prefixes of one another ("a;b" and "a;b;c") sort
 * before what extends them, so each frame is one node of the graph.  The
 * stacks are defined here in an order that a sort which takes a frame's
 * end for a ';' leaves with "a;b;c" split in two places.
 */
TEST_F(flame, prefixes_sort_before_their_extensions)
{
	static const char log[] =
		"+0,jthread[main], jclass[LX; file: X.java], size[16, hex: 0x10]\n"
		"+1,a\n+2,b\n+3,c\n+4,e\n+5,d\n"
		"=6,0;1;2;3;4\n6\n"
		"=7,0;1;2;5\n7\n"
		"=8,0;1;2\n8\n"
		"=9,0;1;2;3\n9\n";
	char cmd[512], *p;
	int nodes = 0;

	ASSERT_EQ(0, write_file(self->log, log));
	snprintf(cmd, sizeof(cmd), POWERPIN " flame %s --folded 2>&1", self->log);
	ASSERT_EQ(0, run_cmd(cmd, self->text, sizeof(self->text))) TH_LOG("%s", self->text);
	EXPECT_STREQ("a;b 1\na;b;c 1\na;b;c;e 1\na;b;d 1\n", self->text);

	/* the page: a, b, c, e, d: five nodes, not six */
	snprintf(cmd, sizeof(cmd), POWERPIN " flame %s -o %s 2>&1", self->log, self->out);
	ASSERT_EQ(0, run_cmd(cmd, self->text, sizeof(self->text))) TH_LOG("%s", self->text);
	ASSERT_EQ(0, read_text(self->out, self->text, sizeof(self->text)));
	p = strstr(self->text, "\"nodes\":[");
	ASSERT_NE(NULL, p);
	for (p += 9; *p && *p != ']'; p++)
		nodes += *p == '\n';
	EXPECT_EQ(5, nodes + 1);
}

/* A thread may be called anything: the size is the line's last field. */
TEST_F(flame, bytes_from_the_last_size_field)
{
	static const char log[] =
		"+0,jthread[size[99999, hex: 0x1869f]], jclass[LX; file: size[7.java], size[48, hex: 0x30]\n"
		"+1,LX;::f()V\n"
		"=2,0;1\n2\n2\n";
	char cmd[512];

	EXPECT_EQ(48ULL, alloc_log_tts_size(log + 3));
	ASSERT_EQ(0, write_file(self->log, log));
	snprintf(cmd, sizeof(cmd), POWERPIN " flame %s --folded --weight bytes 2>&1", self->log);
	ASSERT_EQ(0, run_cmd(cmd, self->text, sizeof(self->text))) TH_LOG("%s", self->text);
	EXPECT_STREQ("LX:::f()V 96\n", self->text);
}

static const char small_log[] =
	"+0,jthread[main], jclass[LX; file: X.java], size[16, hex: 0x10]\n"
	"+1,LX;::f()V\n=2,0;1\n2\n";

/* -o follows the project's output rules: "-", a FIFO, a symlink, a directory */
TEST_F(flame, output_files)
{
	char cmd[1024], target[160], link[160], fifo[160];
	struct stat st;

	ASSERT_EQ(0, write_file(self->log, small_log));
	/* "-" is standard output */
	snprintf(cmd, sizeof(cmd), POWERPIN " flame %s --folded -o - 2>/dev/null", self->log);
	ASSERT_EQ(0, run_cmd(cmd, self->text, sizeof(self->text)));
	EXPECT_STREQ("LX:::f()V 1\n", self->text);

	/* a symlink: its target replaced, the link kept */
	snprintf(target, sizeof(target), "%s/target", self->dir);
	snprintf(link, sizeof(link), "%s/link", self->dir);
	ASSERT_EQ(0, write_file(target, "old\n"));
	ASSERT_EQ(0, symlink("target", link));
	snprintf(cmd, sizeof(cmd), POWERPIN " flame %s --folded -o %s 2>&1", self->log, link);
	ASSERT_EQ(0, run_cmd(cmd, self->text, sizeof(self->text))) TH_LOG("%s", self->text);
	ASSERT_EQ(0, lstat(link, &st));
	EXPECT_TRUE(S_ISLNK(st.st_mode));
	ASSERT_EQ(0, read_text(target, self->text, sizeof(self->text)));
	EXPECT_STREQ("LX:::f()V 1\n", self->text);

	/* a FIFO is written through, not replaced */
	snprintf(fifo, sizeof(fifo), "%s/fifo", self->dir);
	ASSERT_EQ(0, mkfifo(fifo, 0600));
	snprintf(cmd, sizeof(cmd), "cat %s & " POWERPIN " flame %s --folded -o %s; wait", fifo,
		 self->log, fifo);
	ASSERT_EQ(0, run_cmd(cmd, self->text, sizeof(self->text)));
	EXPECT_STREQ("LX:::f()V 1\n", self->text);
	ASSERT_EQ(0, stat(fifo, &st));
	EXPECT_TRUE(S_ISFIFO(st.st_mode));

	/* a directory: refused, exit 1 */
	snprintf(cmd, sizeof(cmd), POWERPIN " flame %s -o %s 2>&1", self->log, self->dir);
	EXPECT_EQ(1, run_cmd(cmd, self->text, sizeof(self->text)));
	EXPECT_NE(NULL, strstr(self->text, "Is a directory")) TH_LOG("%s", self->text);

	/* a damaged log leaves the old file as it was */
	ASSERT_EQ(0, write_file(self->log, "+0,t\n=1,0\n1\nx\n"));
	snprintf(cmd, sizeof(cmd), POWERPIN " flame %s --folded -o %s 2>&1", self->log, target);
	EXPECT_EQ(1, run_cmd(cmd, self->text, sizeof(self->text)));
	EXPECT_NE(NULL, strstr(self->text, "line 4:")) TH_LOG("%s", self->text);
	ASSERT_EQ(0, read_text(target, self->text, sizeof(self->text)));
	EXPECT_STREQ("LX:::f()V 1\n", self->text);
}

/* Usage errors exit 2, --help 0 on stdout. */
TEST_F(flame, usage)
{
	static const char *const bad[] = { "", "a b", "--weight size x", "--bogus x", "-o" };
	char cmd[512];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(cmd, sizeof(cmd), POWERPIN " flame %s 2>&1", bad[i]);
		EXPECT_EQ(2, run_cmd(cmd, self->text, sizeof(self->text))) TH_LOG("'%s'", bad[i]);
	}
	EXPECT_EQ(0, run_cmd(POWERPIN " flame --help 2>/dev/null", self->text, sizeof(self->text)));
	EXPECT_NE(NULL, strstr(self->text, "--weight count|bytes"));
	snprintf(cmd, sizeof(cmd), POWERPIN " flame %s/none.log 2>&1", self->dir);
	EXPECT_EQ(1, run_cmd(cmd, self->text, sizeof(self->text)));
	EXPECT_NE(NULL, strstr(self->text, "No such file")) TH_LOG("%s", self->text);
	/* a device is named as what it is, not "Invalid argument" */
	EXPECT_EQ(1, run_cmd(POWERPIN " flame /dev/null 2>&1", self->text, sizeof(self->text)));
	EXPECT_NE(NULL, strstr(self->text, "/dev/null: not a regular file")) TH_LOG("%s", self->text);
	EXPECT_EQ(NULL, strstr(self->text, "Invalid argument")) TH_LOG("%s", self->text);
}

/* An empty log, or one without a sample: refused, with a line number, nothing written. */
TEST_F(flame, empty_logs)
{
	static const char *const logs[] = { "", "+0,jthread[main], jclass[LX; file: X.java], size[16, hex: 0x10]\n" };
	static const char *const says[] = { "line 1: empty log", "no samples" };
	char cmd[512];
	size_t i;

	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, write_file(self->log, logs[i]));
		snprintf(cmd, sizeof(cmd), POWERPIN " flame %s -o %s 2>&1", self->log, self->out);
		EXPECT_EQ(1, run_cmd(cmd, self->text, sizeof(self->text)));
		EXPECT_NE(NULL, strstr(self->text, says[i])) TH_LOG("%s", self->text);
		EXPECT_NE(0, access(self->out, F_OK));
	}
}

TEST_HARNESS_MAIN
