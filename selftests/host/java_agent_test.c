// SPDX-License-Identifier: GPL-2.0
/*
 * libpowerpin_agent.so in a real JVM (the JDK's java and jcmd), and
 * powerpin flame on what it writes: the log parses and its top stack is
 * the workload's allocation hot spot; the perf map names the JIT-hot
 * method at the address the JVM itself gives for its code; attach with
 * jcmd replays code compiled earlier; the log survives System.exit and
 * kill -9; bad options and unwritable paths fail the agent with one line
 * naming them; powerpin flame agrees with the log and refuses damaged ones.
 */
#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <regex.h>

#include <kselftest_harness.h>

#include "java/java.h"
#include "fuzz_seed.h"
#include "java_helpers.h"

#define HOT_FRAME	"LWorkload;::allocHotSpot(I)V"
#define HOT_FOLDED	"LWorkload:::allocHotSpot(I)V"
#define HOT_TTS		"jthread[main], jclass[LWorkload$Point; file: Workload.java], size["
#define JIT_NAME	"LWorkload;::jitHot(JI)J"

static struct java_env env;

FIXTURE(java) {
	char dir[64];
	char log[128], map[128], out[128];
	char text[65536];
};

FIXTURE_SETUP(java)
{
	const char *why = java_env_find(&env);

	if (why)
		SKIP(return, "%s", why);
	strcpy(self->dir, "/tmp/powerpin-java-XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	snprintf(self->log, sizeof(self->log), "%s/alloc.log", self->dir);
	snprintf(self->map, sizeof(self->map), "%s/perf.map", self->dir);
	snprintf(self->out, sizeof(self->out), "%s/java.out", self->dir);
}

FIXTURE_TEARDOWN(java)
{
	char cmd[128];

	if (self->dir[0]) {
		snprintf(cmd, sizeof(cmd), "rm -rf %s", self->dir);
		system(cmd);
	}
}

static int run_workload(const char *opts, const char *args, char *out, size_t outlen)
{
	char cmd[8192];

	snprintf(cmd, sizeof(cmd), "%s '-agentpath:%s=%s' -cp %s Workload %s 2>&1 </dev/null",
		 env.java, env.agent, opts, env.classes, args);
	return run_cmd(cmd, out, outlen);
}

static int parse_log(const char *path, struct alloc_log *log, char *err, size_t errlen)
{
	char *buf;
	size_t len;
	int ret;

	if (read_all(path, &buf, &len)) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	fuzz_seed("alloc_log", buf, len);
	ret = alloc_log_parse(buf, len, log, err, errlen);
	free(buf);
	return ret;
}

/* The stack with the most samples, or NULL. */
static const struct alloc_def *top_stack(const struct alloc_log *log)
{
	const struct alloc_def *top = NULL;
	uint32_t i;

	for (i = 0; i < log->nr_defs; i++)
		if (log->defs[i].kind == ALLOC_DEF_STACK &&
		    (!top || log->defs[i].samples > top->samples))
			top = &log->defs[i];
	return top;
}

static const char *frame_text(const struct alloc_log *log, const struct alloc_def *d, uint32_t k)
{
	return log->defs[log->pool[d->first + k]].text;
}

/* Lines of @text that start with @prefix. */
static int count_lines(const char *text, const char *prefix)
{
	const char *line;
	int n = 0;

	for (line = text; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL)
		n += !strncmp(line, prefix, strlen(prefix));
	return n;
}

TEST_F_TIMEOUT(java, positional_options_log_top_stack_is_the_hot_spot, 300)
{
	struct alloc_log log;
	const struct alloc_def *top;
	char opts[256], err[256];

	snprintf(opts, sizeof(opts), "100,64,%s", self->log);
	ASSERT_EQ(0, run_workload(opts, "40 20", self->text, sizeof(self->text)))
		TH_LOG("%s", self->text);
	ASSERT_NE(NULL, strstr(self->text, "done"));
	ASSERT_EQ(0, parse_log(self->log, &log, err, sizeof(err))) TH_LOG("%s", err);
	/* VMDeath through System.exit: the last record is whole */
	EXPECT_EQ(0UL, log.cut_line);
	ASSERT_GT(log.samples, 1000ULL);
	top = top_stack(&log);
	ASSERT_NE(NULL, top);
	ASSERT_GE(top->nr, 2U);
	EXPECT_STREQ(HOT_FRAME, frame_text(&log, top, top->nr - 1));
	EXPECT_EQ(0, strncmp(frame_text(&log, top, 0), HOT_TTS, strlen(HOT_TTS)))
		TH_LOG("%s", frame_text(&log, top, 0));
	/* the hot spot has most of the samples (about 95% of the allocations) */
	EXPECT_GT(top->samples * 10, log.samples * 8);
	alloc_log_free(&log);
}

TEST_F_TIMEOUT(java, named_options_depth_map_and_markers_off, 300)
{
	struct alloc_log log;
	struct perf_map map;
	char opts[512], err[256], *buf;
	size_t len, i;
	uint32_t k;
	bool workload = false;

	snprintf(opts, sizeof(opts), "alloc=1000,depth=2,log=%s,perfmap=%s,markers=off", self->log,
		 self->map);
	ASSERT_EQ(0, run_workload(opts, "40 20", self->text, sizeof(self->text)))
		TH_LOG("%s", self->text);
	/* markers=off: not a word about trace_marker */
	EXPECT_EQ(NULL, strstr(self->text, "trace_marker"));
	ASSERT_EQ(0, parse_log(self->log, &log, err, sizeof(err))) TH_LOG("%s", err);
	ASSERT_GT(log.samples, 0ULL);
	for (k = 0; k < log.nr_defs; k++)
		if (log.defs[k].kind == ALLOC_DEF_STACK)
			EXPECT_LE(log.defs[k].nr, 3U);	/* thread/type/size + 2 frames */
	alloc_log_free(&log);

	ASSERT_EQ(0, read_all(self->map, &buf, &len));
	fuzz_seed("perf_map", buf, len);
	ASSERT_EQ(0, perf_map_parse(buf, len, &map));
	free(buf);
	EXPECT_EQ(0UL, map.bad_lines);
	for (i = 0; i < map.nr; i++) {
		workload |= !strncmp(map.syms[i].name, "LWorkload;::", 12);
		/* no two entries overlap */
		if (i)
			EXPECT_LE(map.syms[i - 1].start + map.syms[i - 1].size, map.syms[i].start);
	}
	EXPECT_TRUE(workload);
	perf_map_free(&map);
}

/*
 * "NNN L T Workload.jitHot(JI)J [0xblob, 0xbegin - 0xend]": the code
 * ranges of jitHot the JVM lists, into @begin/@end; returns how many.
 */
static int jit_ranges(const char *codelist, uint64_t *begin, uint64_t *end, int max)
{
	const char *p = codelist;
	int n = 0;

	while (n < max && (p = strstr(p, "Workload.jitHot(JI)J ["))) {
		unsigned long long blob, b, e;

		if (sscanf(p, "Workload.jitHot(JI)J [%llx, %llx - %llx]", &blob, &b, &e) == 3) {
			begin[n] = b;
			end[n] = e;
			n++;
		}
		p++;
	}
	return n;
}

TEST_F_TIMEOUT(java, perf_map_resolves_the_jit_hot_method, 300)
{
	uint64_t begin[16], end[16];
	struct java_bg bg = { .stdin_fd = -1 };
	struct perf_map map;
	char jvm[4096], cmd[4096], *buf;
	size_t len;
	int n, i, resolved = 0;

	snprintf(jvm, sizeof(jvm), "'-agentpath:%s=perfmap=%s,markers=off'", env.agent, self->map);
	ASSERT_EQ(0, java_start(&bg, &env, jvm, "0 0", self->out));
	ASSERT_EQ(0, java_wait_for(&bg, "round 30", 60));
	snprintf(cmd, sizeof(cmd), "%s %d Compiler.codelist", env.jcmd, (int)bg.pid);
	ASSERT_EQ(0, run_cmd(cmd, self->text, sizeof(self->text))) TH_LOG("%s", self->text);
	n = jit_ranges(self->text, begin, end, 16);
	/* the map as it is now, while the code is there */
	ASSERT_EQ(0, read_all(self->map, &buf, &len));
	ASSERT_EQ(0, java_stop(&bg));
	ASSERT_GT(n, 0) TH_LOG("no jitHot in the code list:\n%s", self->text);
	ASSERT_EQ(0, perf_map_parse(buf, len, &map));
	free(buf);
	for (i = 0; i < n; i++) {
		const struct perf_map_sym *a = perf_map_lookup(&map, begin[i]);
		const struct perf_map_sym *b = perf_map_lookup(&map, (begin[i] + end[i]) / 2);

		ASSERT_NE(NULL, a) TH_LOG("0x%" PRIx64 " not in the map", begin[i]);
		EXPECT_STREQ(JIT_NAME, a->name);
		ASSERT_NE(NULL, b);
		EXPECT_STREQ(JIT_NAME, b->name);
		resolved++;
	}
	EXPECT_GT(resolved, 0);
	perf_map_free(&map);
}

TEST_F_TIMEOUT(java, attach_with_jcmd_replays_compiled_code_and_samples, 300)
{
	struct java_bg bg = { .stdin_fd = -1 };
	struct alloc_log log;
	const struct alloc_def *top;
	char cmd[4096], err[256], *buf;
	size_t len;
	int i;

	ASSERT_EQ(0, java_start(&bg, &env, "-XX:+EnableDynamicAgentLoading", "0 0", self->out));
	ASSERT_EQ(0, java_wait_for(&bg, "round 30", 60));
	/* jcmd splits arguments at '=': options with one go inside quotes */
	snprintf(cmd, sizeof(cmd), "%s %d JVMTI.agent_load %s '\"alloc=100,log=%s,perfmap=%s,markers=off\"'",
		 env.jcmd, (int)bg.pid, env.agent, self->log, self->map);
	EXPECT_EQ(0, run_cmd(cmd, self->text, sizeof(self->text)));
	EXPECT_NE(NULL, strstr(self->text, "return code: 0")) TH_LOG("%s", self->text);
	/* samples arrive while it runs */
	for (i = 0; i < 200; i++) {
		struct stat st;

		if (!stat(self->log, &st) && st.st_size > 4096)
			break;
		usleep(50000);
	}
	EXPECT_EQ(0, java_stop(&bg));
	ASSERT_EQ(0, parse_log(self->log, &log, err, sizeof(err))) TH_LOG("%s", err);
	top = top_stack(&log);
	ASSERT_NE(NULL, top);
	EXPECT_STREQ(HOT_FRAME, frame_text(&log, top, top->nr - 1));
	alloc_log_free(&log);
	/* jitHot was compiled before the agent came: GenerateEvents told it */
	ASSERT_EQ(0, read_all(self->map, &buf, &len));
	EXPECT_NE(NULL, memmem(buf, len, JIT_NAME, strlen(JIT_NAME)));
	free(buf);
}

/*
 * Attaching with a bad option: jcmd is told the agent failed, the program
 * says which option in one line and runs on untouched; attaching again
 * with good options then works.
 */
TEST_F_TIMEOUT(java, attach_with_a_bad_option_fails_and_a_good_one_follows, 300)
{
	struct java_bg bg = { .stdin_fd = -1 };
	char cmd[4096];
	int i;

	ASSERT_EQ(0, java_start(&bg, &env, "-XX:+EnableDynamicAgentLoading", "0 0", self->out));
	ASSERT_EQ(0, java_wait_for(&bg, "round 10", 60));
	snprintf(cmd, sizeof(cmd), "%s %d JVMTI.agent_load %s '\"alloc=0,log=%s,perfmap=%s\"'",
		 env.jcmd, (int)bg.pid, env.agent, self->log, self->map);
	run_cmd(cmd, self->text, sizeof(self->text));
	EXPECT_NE(NULL, strstr(self->text, "return code: -1")) TH_LOG("%s", self->text);
	/* nothing was opened for it */
	EXPECT_NE(0, access(self->log, F_OK));
	EXPECT_NE(0, access(self->map, F_OK));
	ASSERT_EQ(0, java_wait_for(&bg, "powerpin agent: bad option 'alloc=0'", 10));
	/* the program goes on */
	snprintf(cmd, sizeof(cmd), "round %d", 10 + 20);
	ASSERT_EQ(0, java_wait_for(&bg, cmd, 60));

	snprintf(cmd, sizeof(cmd), "%s %d JVMTI.agent_load %s '\"alloc=100,log=%s,perfmap=%s,markers=off\"'",
		 env.jcmd, (int)bg.pid, env.agent, self->log, self->map);
	EXPECT_EQ(0, run_cmd(cmd, self->text, sizeof(self->text)));
	EXPECT_NE(NULL, strstr(self->text, "return code: 0")) TH_LOG("%s", self->text);
	for (i = 0; i < 200; i++) {
		struct stat st;

		if (!stat(self->log, &st) && st.st_size > 4096)
			break;
		usleep(50000);
	}
	EXPECT_LT(i, 200) TH_LOG("no samples after the second attach");
	/* a third attach is refused: one agent per VM */
	snprintf(cmd, sizeof(cmd), "%s %d JVMTI.agent_load %s '\"alloc=100\"'", env.jcmd,
		 (int)bg.pid, env.agent);
	run_cmd(cmd, self->text, sizeof(self->text));
	EXPECT_NE(NULL, strstr(self->text, "return code: -1")) TH_LOG("%s", self->text);
	EXPECT_EQ(0, java_stop(&bg));
	ASSERT_EQ(0, read_text(bg.out, self->text, sizeof(self->text)));
	EXPECT_EQ(2, count_lines(self->text, "powerpin agent:")) TH_LOG("%s", self->text);
	EXPECT_NE(NULL, strstr(self->text, "powerpin agent: already running")) TH_LOG("%s", self->text);
}

TEST_F_TIMEOUT(java, log_parses_after_kill_9, 300)
{
	struct java_bg bg = { .stdin_fd = -1 };
	struct alloc_log log;
	char jvm[4096], cmd[4096], err[256];

	/* every allocation: the log is being written when the VM dies */
	snprintf(jvm, sizeof(jvm), "'-agentpath:%s=alloc=1,log=%s,perfmap=off,markers=off'",
		 env.agent, self->log);
	ASSERT_EQ(0, java_start(&bg, &env, jvm, "0 0", self->out));
	ASSERT_EQ(0, java_wait_for(&bg, "round 2", 120));
	ASSERT_EQ(0, kill(bg.pid, SIGKILL));
	EXPECT_EQ(-1, java_stop(&bg));
	ASSERT_EQ(0, parse_log(self->log, &log, err, sizeof(err))) TH_LOG("%s", err);
	EXPECT_GT(log.samples, 1000ULL);
	alloc_log_free(&log);
	snprintf(cmd, sizeof(cmd), "%s flame %s --folded -o %s/folded 2>&1", env.powerpin,
		 self->log, self->dir);
	EXPECT_EQ(0, run_cmd(cmd, self->text, sizeof(self->text))) TH_LOG("%s", self->text);
}

TEST_F_TIMEOUT(java, bad_options_fail_the_agent_with_one_line_each, 300)
{
	static const struct {
		const char *opts, *says, *says2;
	} bad[] = {
		{ "bogus=1", "bad option 'bogus=1'", NULL },
		{ "alloc=0", "bad option 'alloc=0'", NULL },
		{ "alloc=ten", "bad option 'alloc=ten'", NULL },
		{ "depth=0", "bad option 'depth=0'", NULL },
		{ "depth=99999", "bad option 'depth=99999'", NULL },
		{ "markers=maybe", "bad option 'markers=maybe'", NULL },
		{ "log=", "bad option 'log='", NULL },
		{ "perfmap=auto,nonsense", "bad option 'nonsense'", NULL },
		{ "0,10,/tmp/x.log", "bad option 'sample_rate 0'", NULL },
		{ "alloc=5,,depth=3", "an empty option", NULL },
		{ "100", "bad option '100'", NULL },
		/* two bad options: a line for each */
		{ "alloc=0,depth=5000", "bad option 'alloc=0'", "bad option 'depth=5000'" },
		{ "0,0,/tmp/x.log", "bad option 'sample_rate 0'", "bad option 'stack_depth_limit 0'" },
		{ "log=,markers=yes", "bad option 'log='", "bad option 'markers=yes'" },
	};
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char cmd[4096];

		snprintf(cmd, sizeof(cmd), "%s '-agentpath:%s=%s' -version 2>&1", env.java,
			 env.agent, bad[i].opts);
		EXPECT_NE(0, run_cmd(cmd, self->text, sizeof(self->text))) TH_LOG("%s", bad[i].opts);
		EXPECT_NE(NULL, strstr(self->text, bad[i].says))
			TH_LOG("%s: %s", bad[i].opts, self->text);
		if (bad[i].says2)
			EXPECT_NE(NULL, strstr(self->text, bad[i].says2))
				TH_LOG("%s: %s", bad[i].opts, self->text);
		EXPECT_EQ(bad[i].says2 ? 2 : 1, count_lines(self->text, "powerpin agent:"))
			TH_LOG("%s: %s", bad[i].opts, self->text);
		/* the VM says the agent failed */
		EXPECT_NE(NULL, strstr(self->text, "agent library failed")) TH_LOG("%s", self->text);
	}
}

TEST_F_TIMEOUT(java, unwritable_paths_fail_the_agent, 300)
{
	static const struct {
		const char *opts, *says;
	} bad[] = {
		{ "log=/etc/passwd/alloc.log", "cannot write log '/etc/passwd/alloc.log'" },
		{ "10,10,/nonexistent-dir/alloc.log", "cannot write log '/nonexistent-dir/alloc.log'" },
		{ "perfmap=/nonexistent-dir/perf.map", "cannot write perf map '/nonexistent-dir/perf.map'" },
	};
	char cmd[4096], *buf;
	size_t i, len;
	FILE *f;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(cmd, sizeof(cmd), "%s '-agentpath:%s=%s' -version 2>&1", env.java,
			 env.agent, bad[i].opts);
		EXPECT_NE(0, run_cmd(cmd, self->text, sizeof(self->text)));
		EXPECT_NE(NULL, strstr(self->text, bad[i].says)) TH_LOG("%s", self->text);
		EXPECT_EQ(1, count_lines(self->text, "powerpin agent:")) TH_LOG("%s", self->text);
		EXPECT_NE(NULL, strstr(self->text, "agent library failed")) TH_LOG("%s", self->text);
	}

	/* a start that fails leaves an earlier log as it was ... */
	f = fopen(self->log, "w");
	ASSERT_NE(NULL, f);
	fputs("an earlier log\n", f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "%s '-agentpath:%s=log=%s,perfmap=/nonexistent-dir/perf.map' -version 2>&1",
		 env.java, env.agent, self->log);
	EXPECT_NE(0, run_cmd(cmd, self->text, sizeof(self->text)));
	ASSERT_EQ(0, read_all(self->log, &buf, &len));
	EXPECT_EQ(15UL, len);
	EXPECT_EQ(0, memcmp(buf, "an earlier log\n", 15));
	free(buf);
	/* ... and no new file behind: the directory holds that log alone */
	unlink(self->log);
	snprintf(cmd, sizeof(cmd), "%s '-agentpath:%s=log=%s/new.log,perfmap=/nonexistent-dir/perf.map' -version >/dev/null 2>&1 && exit 9; ls -A %s",
		 env.java, env.agent, self->dir, self->dir);
	EXPECT_EQ(0, run_cmd(cmd, self->text, sizeof(self->text)));
	EXPECT_STREQ("", self->text);
	snprintf(cmd, sizeof(cmd), "%s '-agentpath:%s=log=/nonexistent-dir/a.log,perfmap=%s' -version >/dev/null 2>&1; ls -A %s",
		 env.java, env.agent, self->map, self->dir);
	EXPECT_EQ(0, run_cmd(cmd, self->text, sizeof(self->text)));
	EXPECT_EQ(NULL, strstr(self->text, "perf.map")) TH_LOG("%s", self->text);
}

/*
 * On Android (ANDROID_ROOT set, as in every Android process) the map of
 * a program that is not an app goes to /data/local/tmp, where simpleperf
 * looks; this machine has no such directory, so the agent says where it
 * wanted to write.
 */
TEST_F_TIMEOUT(java, perf_map_goes_where_simpleperf_looks_on_android, 300)
{
	char cmd[4096];

	if (!access("/data/local/tmp", F_OK))
		SKIP(return, "this machine has a /data/local/tmp");
	snprintf(cmd, sizeof(cmd), "ANDROID_ROOT=/system %s '-agentpath:%s=markers=off' -version 2>&1",
		 env.java, env.agent);
	EXPECT_NE(0, run_cmd(cmd, self->text, sizeof(self->text)));
	EXPECT_NE(NULL, strstr(self->text, "cannot write perf map '/data/local/tmp/perf-"))
		TH_LOG("%s", self->text);
	EXPECT_EQ(1, count_lines(self->text, "powerpin agent:")) TH_LOG("%s", self->text);
}

/*
 * Without tracefs: said once, however many collections there are.  Where
 * tracefs is mounted and the test runs as root, the JVM runs in a mount
 * namespace of its own with empty directories over both places.
 */
TEST_F_TIMEOUT(java, no_tracefs_is_said_once, 300)
{
	char cmd[8192], hide[256] = "";
	const char *p;
	int n = 0;

	if (!access("/sys/kernel/tracing/trace_marker", W_OK) ||
	    !access("/sys/kernel/debug/tracing/trace_marker", W_OK)) {
		if (geteuid() || system("unshare -m true 2>/dev/null"))
			SKIP(return, "tracefs is here and cannot be hidden (not root, or no unshare)");
		snprintf(hide, sizeof(hide), "unshare -m sh -c 'mount -t tmpfs none /sys/kernel/tracing 2>/dev/null; mount -t tmpfs none /sys/kernel/debug 2>/dev/null; exec \"$0\" \"$@\"' ");
	}
	snprintf(cmd, sizeof(cmd), "%s%s '-agentpath:%s=perfmap=off,log=%s' -cp %s Workload 20 2 2>&1 </dev/null",
		 hide, env.java, env.agent, self->log, env.classes);
	ASSERT_EQ(0, run_cmd(cmd, self->text, sizeof(self->text))) TH_LOG("%s", self->text);
	ASSERT_NE(NULL, strstr(self->text, "done")) TH_LOG("%s", self->text);
	for (p = self->text; (p = strstr(p, "no trace_marker")); p++)
		n++;
	EXPECT_EQ(1, n) TH_LOG("%s", self->text);
	EXPECT_EQ(1, count_lines(self->text, "powerpin agent:")) TH_LOG("%s", self->text);
}

/*
 * tiallocsample's log format read again here, strictly and without the
 * project's parser, as tiallocsample writes it (ti_alloc_sample.cc) and
 * as mkflame.py reads it:
 *
 * - definitions are numbered 0, 1, 2, ... in the order they appear (one
 *   counter for "+" and "=" lines);
 * - "+N,jthread[T], jclass[SIG file: F], size[D, hex: 0xH]" with H the
 *   lower-case hex of D, or "+N,Lpkg/Cls;::name(sig)ret" (or "ERROR");
 * - "=N,t;f;...": t a thread/type/size line, the f frames, outermost
 *   first; the stack is defined at its first sample, so the next line is
 *   "N";
 * - "N" samples a stack; every line ends with a newline.
 *
 * The folded stacks are mkflame.py --ignore_type's: frames joined by
 * ';', a ';' inside a frame written ':', weighed by samples or by bytes.
 */
struct fold {
	char *stack;
	uint64_t count, bytes;
};

struct ti_log {
	char **text;		/* by index: the "+" text, or NULL */
	char **stack;		/* by index: the folded frames of a "=" line, or NULL */
	uint64_t *size;		/* by index: bytes of a "=" line's allocation */
	size_t nr;
	struct fold folds[4096];
	size_t nr_folds;
	uint64_t samples;
};

static void ti_free(struct ti_log *t)
{
	size_t i;

	for (i = 0; i < t->nr; i++) {
		free(t->text[i]);
		free(t->stack[i]);
	}
	for (i = 0; i < t->nr_folds; i++)
		free(t->folds[i].stack);
	free(t->text);
	free(t->stack);
	free(t->size);
	memset(t, 0, sizeof(*t));
}

static bool ti_match(const char *re, const char *s, regmatch_t *m, size_t nm)
{
	regex_t r;
	bool ok;

	if (regcomp(&r, re, REG_EXTENDED))
		return false;
	ok = !regexec(&r, s, nm, m, 0);
	regfree(&r);
	return ok;
}

static int ti_define(struct ti_log *t, unsigned long n, char *text, char *stack, uint64_t size)
{
	if (n != t->nr)
		return -1;	/* not the next number */
	t->text = realloc(t->text, (t->nr + 1) * sizeof(*t->text));
	t->stack = realloc(t->stack, (t->nr + 1) * sizeof(*t->stack));
	t->size = realloc(t->size, (t->nr + 1) * sizeof(*t->size));
	if (!t->text || !t->stack || !t->size)
		return -1;
	t->text[n] = text;
	t->stack[n] = stack;
	t->size[n] = size;
	t->nr++;
	return 0;
}

/* "=N,t;f;f": the frames folded, the size of t; NULL with @why when wrong. */
static char *ti_stack(struct ti_log *t, const char *list, uint64_t *size, const char **why)
{
	static const char tts_re[] =
		"^jthread\\[.*\\], jclass\\[.+ file: .+\\], size\\[([0-9]+), hex: 0x([0-9a-f]+)\\]$";
	static const char frame_re[] = "^(L[^;]+;::[^(]+\\([^)]*\\)[^ ]+|ERROR)$";
	char *out = calloc(1, 1), *end;
	size_t len = 0, k = 0;
	regmatch_t m[3];
	const char *p = list;

	for (; out; k++) {
		unsigned long e = strtoul(p, &end, 10);
		const char *f;

		if (end == p || e >= t->nr || !t->text[e]) {
			*why = "a stack element that is not a \"+\" line defined before";
			break;
		}
		f = t->text[e];
		if (!k) {
			char dec[32], hex[32];

			if (!ti_match(tts_re, f, m, 3)) {
				*why = "a stack's first element is not a thread/type/size line";
				break;
			}
			snprintf(dec, sizeof(dec), "%.*s", (int)(m[1].rm_eo - m[1].rm_so), f + m[1].rm_so);
			snprintf(hex, sizeof(hex), "%.*s", (int)(m[2].rm_eo - m[2].rm_so), f + m[2].rm_so);
			*size = strtoull(dec, NULL, 10);
			if (strtoull(hex, NULL, 16) != *size) {
				*why = "a size whose hex is not its decimal";
				break;
			}
		} else {
			size_t n = strlen(f), i;

			if (!ti_match(frame_re, f, NULL, 0)) {
				*why = "a frame that is not Lpkg/Cls;::name(sig)ret";
				break;
			}
			out = realloc(out, len + n + 2);
			if (!out)
				break;
			if (len)
				out[len++] = ';';
			for (i = 0; i < n; i++)
				out[len++] = f[i] == ';' ? ':' : f[i];
			out[len] = '\0';
		}
		if (!*end)
			return out;
		if (*end != ';') {
			*why = "stack elements not separated by ';'";
			break;
		}
		p = end + 1;
	}
	free(out);
	return NULL;
}

static int ti_sample(struct ti_log *t, unsigned long n)
{
	size_t j;

	if (n >= t->nr || !t->stack[n])
		return -1;
	for (j = 0; j < t->nr_folds; j++)
		if (!strcmp(t->folds[j].stack, t->stack[n][0] ? t->stack[n] : "[no Java frames]"))
			break;
	if (j == t->nr_folds) {
		if (j == 4096)
			return -1;
		t->folds[j].stack = strdup(t->stack[n][0] ? t->stack[n] : "[no Java frames]");
		t->nr_folds++;
	}
	t->folds[j].count++;
	t->folds[j].bytes += t->size[n];
	t->samples++;
	return 0;
}

/* Read @path as above; 0, or -1 with the line and what is wrong in @why. */
static int ti_read(const char *path, struct ti_log *t, char *why, size_t whylen)
{
	char *buf, *line, *nl;
	const char *what = NULL;
	unsigned long lineno = 0, want_sample = ULONG_MAX;
	size_t len;
	regmatch_t m[3];

	memset(t, 0, sizeof(*t));
	if (read_all(path, &buf, &len) || !len || buf[len - 1] != '\n') {
		snprintf(why, whylen, "%s: unreadable, empty, or its last line is not whole", path);
		return -1;
	}
	buf[len - 1] = '\0';	/* lines end at '\n', the last one here */
	for (line = buf; line && !what; line = nl ? nl + 1 : NULL) {
		nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		lineno++;
		if (want_sample != ULONG_MAX) {
			if (strtoul(line, NULL, 10) != want_sample || !ti_match("^[0-9]+$", line, NULL, 0))
				what = "a stack definition not followed by its sample";
			else if (ti_sample(t, want_sample))
				what = "a sample of something that is not a stack";
			want_sample = ULONG_MAX;
		} else if (ti_match("^\\+([0-9]+),(.+)$", line, m, 3)) {
			if (ti_define(t, strtoul(line + 1, NULL, 10), strdup(line + m[2].rm_so), NULL, 0))
				what = "a definition out of sequence";
		} else if (ti_match("^=([0-9]+),([0-9]+(;[0-9]+)*)$", line, m, 3)) {
			unsigned long n = strtoul(line + 1, NULL, 10);
			uint64_t size = 0;
			char *stack = ti_stack(t, line + m[2].rm_so, &size, &what);

			if (stack && ti_define(t, n, NULL, stack, size))
				what = "a definition out of sequence";
			want_sample = n;
		} else if (ti_match("^[0-9]+$", line, NULL, 0)) {
			if (ti_sample(t, strtoul(line, NULL, 10)))
				what = "a sample of something that is not a stack";
		} else {
			what = "not a tiallocsample line";
		}
	}
	free(buf);
	if (!what && want_sample != ULONG_MAX)
		what = "the last stack definition has no sample";
	if (what) {
		snprintf(why, whylen, "%s line %lu: %s", path, lineno, what);
		ti_free(t);
		return -1;
	}
	return 0;
}

TEST_F_TIMEOUT(java, log_has_tiallocsamples_format_and_flame_matches_it, 300)
{
	struct ti_log t;
	char opts[256], cmd[4096], why[512], path[160], *line, *save = NULL, *buf;
	size_t i, len, seen = 0;
	int bytes;

	snprintf(opts, sizeof(opts), "50,16,%s", self->log);
	ASSERT_EQ(0, run_workload(opts, "20 5", self->text, sizeof(self->text)));
	ASSERT_EQ(0, ti_read(self->log, &t, why, sizeof(why))) TH_LOG("%s", why);
	ASSERT_GT(t.nr_folds, 1UL);
	ASSERT_GT(t.samples, 1000ULL);
	for (bytes = 0; bytes < 2; bytes++) {
		snprintf(path, sizeof(path), "%s/folded", self->dir);
		snprintf(cmd, sizeof(cmd), "%s flame %s --folded --weight %s -o %s 2>&1",
			 env.powerpin, self->log, bytes ? "bytes" : "count", path);
		ASSERT_EQ(0, run_cmd(cmd, self->text, sizeof(self->text))) TH_LOG("%s", self->text);
		ASSERT_EQ(0, read_all(path, &buf, &len));
		ASSERT_GT(len, 0UL);
		ASSERT_EQ('\n', buf[len - 1]);
		buf[len - 1] = '\0';
		seen = 0;
		for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			char *sp = strrchr(line, ' ');
			unsigned long long w;

			ASSERT_NE(NULL, sp);
			*sp = '\0';
			w = strtoull(sp + 1, NULL, 10);
			for (i = 0; i < t.nr_folds; i++)
				if (!strcmp(t.folds[i].stack, line))
					break;
			ASSERT_LT(i, t.nr_folds) TH_LOG("not in the log: %s", line);
			EXPECT_EQ(bytes ? t.folds[i].bytes : t.folds[i].count, w) TH_LOG("%s", line);
			seen++;
		}
		free(buf);
		EXPECT_EQ(t.nr_folds, seen);
	}
	ti_free(&t);

	/* the page: data for every frame, the hot spot among them */
	snprintf(path, sizeof(path), "%s/flame.html", self->dir);
	snprintf(cmd, sizeof(cmd), "%s flame %s -o %s 2>&1", env.powerpin, self->log, path);
	ASSERT_EQ(0, run_cmd(cmd, self->text, sizeof(self->text))) TH_LOG("%s", self->text);
	ASSERT_EQ(0, read_all(path, &buf, &len));
	EXPECT_NE(NULL, memmem(buf, len, "flame-data", 10));
	EXPECT_NE(NULL, memmem(buf, len, HOT_FOLDED, strlen(HOT_FOLDED)));
	free(buf);

	/* drawn by a real browser: frames, the hot spot labelled, a search that matches */
	if (system("command -v chromium >/dev/null 2>&1")) {
		TH_LOG("no chromium: the page's script is not run");
		return;
	}
	snprintf(cmd, sizeof(cmd), "timeout 120 chromium --headless --no-sandbox --disable-gpu --window-size=1400,800 --dump-dom 'file://%s#q=allochotspot' 2>/dev/null",
		 path);
	ASSERT_EQ(0, run_cmd(cmd, self->text, sizeof(self->text)));
	EXPECT_NE(NULL, strstr(self->text, "<g data-i=\"")) TH_LOG("%.2000s", self->text);
	EXPECT_NE(NULL, strstr(self->text, "class=\"frame match\""));
	EXPECT_NE(NULL, strstr(self->text, "LWorkload:::allocHotSpot(I)V</text>"));
	EXPECT_NE(NULL, strstr(self->text, "matched ")) TH_LOG("%.2000s", self->text);
}

/*
 * ART's path on OpenJDK: every allocation reaches VMObjectAlloc and every
 * Nth on a thread is recorded, as tiallocsample does.  OpenJDK reports
 * there what the VM allocates itself; with -Xint, each Object.clone() of
 * the workload's cloneHotSpot is one event, so 100,000 clones sampled
 * 1 in 10 are exactly 10,000 samples of that stack (sampling by bytes
 * would give about as many, but hardly ever exactly).
 */
/* main returns (no System.exit): at VMDeath the log is whole, in tiallocsample's format */
TEST_F_TIMEOUT(java, log_whole_when_main_returns, 300)
{
	struct ti_log t;
	char cmd[8192], why[512];

	snprintf(cmd, sizeof(cmd), "%s '-agentpath:%s=10,32,%s' -cp %s Workload unload 2>&1 </dev/null",
		 env.java, env.agent, self->log, env.classes);
	ASSERT_EQ(0, run_cmd(cmd, self->text, sizeof(self->text))) TH_LOG("%s", self->text);
	ASSERT_NE(NULL, strstr(self->text, "loaded")) TH_LOG("%s", self->text);
	ASSERT_EQ(0, ti_read(self->log, &t, why, sizeof(why))) TH_LOG("%s", why);
	EXPECT_GT(t.samples, 100ULL);
	ti_free(&t);
}

TEST_F_TIMEOUT(java, vm_object_alloc_takes_every_nth, 300)
{
	static const char stack[] = "LWorkload:::main([Ljava/lang/String:)V;"
		"LWorkload:::cloneHotSpot(I)V;Ljava/lang/Object:::clone()Ljava/lang/Object:";
	struct ti_log t;
	char cmd[8192], why[512];
	size_t i;

	snprintf(cmd, sizeof(cmd), "POWERPIN_AGENT_ALLOC_EVENTS=vm %s -Xint '-agentpath:%s=10,8,%s' -cp %s Workload clone 100000 2>&1 </dev/null",
		 env.java, env.agent, self->log, env.classes);
	ASSERT_EQ(0, run_cmd(cmd, self->text, sizeof(self->text))) TH_LOG("%s", self->text);
	ASSERT_NE(NULL, strstr(self->text, "done")) TH_LOG("%s", self->text);
	ASSERT_EQ(0, ti_read(self->log, &t, why, sizeof(why))) TH_LOG("%s", why);
	for (i = 0; i < t.nr_folds; i++)
		if (!strcmp(t.folds[i].stack, stack))
			break;
	ASSERT_LT(i, t.nr_folds) TH_LOG("no samples of the clones");
	EXPECT_EQ(10000ULL, t.folds[i].count);
	/* an int[4] is 32 bytes: 16 of header, 16 of ints */
	EXPECT_EQ(320000ULL, t.folds[i].bytes);
	ti_free(&t);
	ASSERT_EQ(0, read_text(self->log, self->text, sizeof(self->text)));
	EXPECT_NE(NULL, strstr(self->text, ",jthread[main], jclass[[I file: <UNKNOWN_FILE>], size[32, hex: 0x20]\n"))
		TH_LOG("%.2000s", self->text);
}

TEST_F_TIMEOUT(java, flame_refuses_damaged_logs_and_writes_nothing, 300)
{
	static const struct {
		const char *log, *says;
	} bad[] = {
		{ "+0,jthread[a], jclass[X file: Y], size[8, hex: 0x8]\n=1,0;5\n1\n", "line 2:" },
		{ "+0,t\n+1,f\n=2,0;1\n3\n", "line 4:" },
		{ "+0,t\nabc\n", "line 2:" },
		{ "+0,t\n+0,u\n", "line 2:" },
		{ "+0,t\n\n", "line 2:" },
		{ "+7,t\n", "line 1:" },
		{ "+0,t\n=1,0\n0\n", "line 3:" },
		{ "+0,t\n=1,0;x\n", "line 2:" },
		{ "", "empty" },
	};
	char path[128], out[128], cmd[4096];
	size_t i;

	snprintf(path, sizeof(path), "%s/bad.log", self->dir);
	snprintf(out, sizeof(out), "%s/out.html", self->dir);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		FILE *f = fopen(path, "w");

		ASSERT_NE(NULL, f);
		fputs(bad[i].log, f);
		fclose(f);
		snprintf(cmd, sizeof(cmd), "%s flame %s -o %s 2>&1", env.powerpin, path, out);
		EXPECT_EQ(1, run_cmd(cmd, self->text, sizeof(self->text))) TH_LOG("case %zu", i);
		EXPECT_NE(NULL, strstr(self->text, bad[i].says)) TH_LOG("case %zu: %s", i, self->text);
		EXPECT_NE(0, access(out, F_OK)) TH_LOG("case %zu wrote %s", i, out);
	}
	/* a last record cut short is left out, and said */
	{
		FILE *f = fopen(path, "w");

		ASSERT_NE(NULL, f);
		fputs("+0,jthread[a], jclass[X file: Y], size[8, hex: 0x8]\n+1,LA;::f()V\n=2,0;1\n2\n2\n2", f);
		fclose(f);
		snprintf(cmd, sizeof(cmd), "%s flame %s --folded 2>&1", env.powerpin, path);
		EXPECT_EQ(0, run_cmd(cmd, self->text, sizeof(self->text)));
		EXPECT_NE(NULL, strstr(self->text, "line 6 has no newline")) TH_LOG("%s", self->text);
		EXPECT_NE(NULL, strstr(self->text, "LA:::f()V 2\n")) TH_LOG("%s", self->text);
	}
}

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ftrace text: 4 V at -1 A (4 W discharging) every 10 ms over [t0, t1], 2 CPUs */
static int write_constant_power(const char *path, double t0, double t1)
{
	FILE *f = fopen(path, "w");
	double t;
	int seq = 1;

	if (!f)
		return -1;
	fputs("# tracer: nop\n#\n# entries-in-buffer/entries-written: 0/0   #P:2\n", f);
	for (t = t0; t <= t1; t += 0.01)
		fprintf(f, "     powerpin-77    [000] .....  %.6f: battery: seq=%d voltage_uv=4000000 current_ua=-1000000 charge_uah=1000000 flags=0\n",
			t, seq++);
	return fclose(f);
}

TEST_F_TIMEOUT(java, report_perf_gives_each_sample_its_share, 300)
{
	char cmd[4096], trace[160], perf[160], json[160], flame[160], maps[160], *buf, *p;
	unsigned long long samples, used, outside, named;
	double t0, t1, cpu_s, energy;
	int pid = 0;
	size_t len;

	if (system("command -v perf >/dev/null 2>&1"))
		SKIP(return, "perf not installed (linux-perf)");
	snprintf(trace, sizeof(trace), "%s/trace.txt", self->dir);
	snprintf(perf, sizeof(perf), "%s/perf.data", self->dir);
	snprintf(json, sizeof(json), "%s/report.json", self->dir);
	snprintf(flame, sizeof(flame), "%s/flame.html", self->dir);
	snprintf(maps, sizeof(maps), "%s/maps", self->dir);
	t0 = mono_s();
	/* CLOCK_MONOTONIC for perf, as the generated trace uses */
	snprintf(cmd, sizeof(cmd), "perf record -q -k mono -e cpu-clock -g -o %s -- %s '-agentpath:%s=markers=off' -cp %s Workload 60 20 2>&1",
		 perf, env.java, env.agent, env.classes);
	if (run_cmd(cmd, self->text, sizeof(self->text)))
		SKIP(return, "perf record cannot run here: %.200s", self->text);
	t1 = mono_s();
	p = strstr(self->text, "ready ");
	ASSERT_NE(NULL, p);
	pid = atoi(p + 6);
	ASSERT_EQ(0, write_constant_power(trace, t0 - 0.05, t1 + 0.05));
	/* with the map where perf looks, perf itself names the JIT frames from it */
	snprintf(cmd, sizeof(cmd), "perf script -i %s -F ip,sym,dso 2>/dev/null | grep -c ' LWorkload;::jitHot(JI)J (/tmp/perf-%d.map)$'",
		 perf, pid);
	EXPECT_EQ(0, run_cmd(cmd, self->text, sizeof(self->text)));
	EXPECT_GT(atoi(self->text), 0) TH_LOG("perf script named no frame from the agent's map");
	snprintf(cmd, sizeof(cmd), "perf report -i %s --stdio --no-children --sort sym 2>/dev/null | grep -c '\\[\\.\\] LWorkload;::jitHot(JI)J'",
		 perf);
	EXPECT_EQ(0, run_cmd(cmd, self->text, sizeof(self->text)));
	EXPECT_GT(atoi(self->text), 0) TH_LOG("perf report named no frame from the agent's map");
	/* the map away from where perf looks: only --perf-map can name the JIT frames */
	snprintf(cmd, sizeof(cmd), "mkdir -p %s && mv /tmp/perf-%d.map %s/", maps, pid, maps);
	ASSERT_EQ(0, run_cmd(cmd, NULL, 0));

	snprintf(cmd, sizeof(cmd), "%s report %s --perf %s --perf-map %s --json %s --flame %s 2>&1",
		 env.powerpin, trace, perf, maps, json, flame);
	ASSERT_EQ(0, run_cmd(cmd, self->text, sizeof(self->text))) TH_LOG("%s", self->text);
	EXPECT_NE(NULL, strstr(self->text, "energy by function")) TH_LOG("%s", self->text);
	ASSERT_EQ(0, read_all(json, &buf, &len));
	p = strstr(buf, "\"perf\": {");
	ASSERT_NE(NULL, p);
	ASSERT_EQ(6, sscanf(p, "\"perf\": {\"event\": \"cpu-clock\", \"samples\": %llu, \"samples_used\": %llu, \"samples_outside\": %llu, \"cpu_s\": %lf, \"energy_j\": %lf, \"jit_frames_named\": %llu",
			    &samples, &used, &outside, &cpu_s, &energy, &named)) TH_LOG("%.300s", p);
	EXPECT_GT(used, 100ULL);
	EXPECT_EQ(samples, used + outside);
	/* 4 W shared by 2 CPUs: each second of CPU time is 2 J */
	EXPECT_LT(fabs(energy - 2.0 * cpu_s), 1e-6 * energy) TH_LOG("%.6f J for %.6f s", energy, cpu_s);
	/* JIT frames were unnamed to perf and named through the map */
	EXPECT_GT(named, 0ULL);
	p = strstr(buf, "\"functions\": [");
	ASSERT_NE(NULL, p);
	EXPECT_NE(NULL, strstr(p, "{\"name\": \"LWorkload;::allocHotSpot(I)V\", \"dso\": \"JIT\""));
	EXPECT_NE(NULL, strstr(p, "{\"name\": \"LWorkload;::jitHot(JI)J\", \"dso\": \"JIT\""));
	free(buf);
	ASSERT_EQ(0, read_all(flame, &buf, &len));
	EXPECT_NE(NULL, memmem(buf, len, "LWorkload:::jitHot(JI)J", 23));
	free(buf);
	snprintf(cmd, sizeof(cmd), "%s report %s --perf %s --perf-map %s --html %s/report.html >/dev/null 2>&1",
		 env.powerpin, trace, perf, maps, self->dir);
	ASSERT_EQ(0, run_cmd(cmd, NULL, 0));
	snprintf(cmd, sizeof(cmd), "%s/report.html", self->dir);
	ASSERT_EQ(0, read_all(cmd, &buf, &len));
	EXPECT_NE(NULL, memmem(buf, len, "Energy by function", 18));
	EXPECT_NE(NULL, memmem(buf, len, "<td>LWorkload;::jitHot(JI)J</td>", 32));
	free(buf);

	/* usage and input errors */
	snprintf(cmd, sizeof(cmd), "%s report %s --flame %s 2>&1", env.powerpin, trace, flame);
	EXPECT_EQ(2, run_cmd(cmd, self->text, sizeof(self->text)));
	snprintf(cmd, sizeof(cmd), "%s report %s --perf %s/none.data 2>&1", env.powerpin, trace,
		 self->dir);
	EXPECT_EQ(1, run_cmd(cmd, self->text, sizeof(self->text)));
	EXPECT_NE(NULL, strstr(self->text, "none.data")) TH_LOG("%s", self->text);
	/* perf samples outside the capture: said, not a silent zero */
	ASSERT_EQ(0, write_constant_power(trace, t1 + 10, t1 + 11));
	snprintf(cmd, sizeof(cmd), "%s report %s --perf %s 2>&1", env.powerpin, trace, perf);
	EXPECT_EQ(1, run_cmd(cmd, self->text, sizeof(self->text)));
	EXPECT_NE(NULL, strstr(self->text, "falls inside the capture")) TH_LOG("%s", self->text);
}

static bool map_has(const char *path, const char *name)
{
	char *buf;
	size_t len;
	bool has;

	if (read_all(path, &buf, &len))
		return false;
	has = len && memmem(buf, len, name, strlen(name));
	free(buf);
	return has;
}

TEST_F_TIMEOUT(java, perf_map_forgets_unloaded_code, 300)
{
	static const char name[] = "LUnloadable;::spin(JI)J";
	struct java_bg bg = { .stdin_fd = -1 };
	char jvm[4096], *buf;
	struct perf_map map;
	size_t len, i;
	int tries;

	snprintf(jvm, sizeof(jvm), "'-agentpath:%s=perfmap=%s,markers=off'", env.agent, self->map);
	ASSERT_EQ(0, java_start(&bg, &env, jvm, "unload", self->out));
	ASSERT_EQ(0, java_wait_for(&bg, "compiled", 60));
	EXPECT_TRUE(map_has(self->map, name));
	ASSERT_EQ(1, write(bg.stdin_fd, "\n", 1));
	ASSERT_EQ(0, java_wait_for(&bg, "loaded", 60));
	if (java_wait_for(&bg, "unloaded", 1)) {
		java_stop(&bg);
		SKIP(return, "this JVM kept the class loaded");
	}
	/* the keeper rewrites the map 20 ms after the unloads */
	for (tries = 0; tries < 100 && map_has(self->map, name); tries++)
		usleep(20000);
	EXPECT_FALSE(map_has(self->map, name));
	ASSERT_EQ(0, read_all(self->map, &buf, &len));
	ASSERT_EQ(0, java_stop(&bg));
	ASSERT_EQ(0, perf_map_parse(buf, len, &map));
	free(buf);
	EXPECT_GT(map.nr, 10UL);
	for (i = 1; i < map.nr; i++)
		EXPECT_LE(map.syms[i - 1].start + map.syms[i - 1].size, map.syms[i].start);
	perf_map_free(&map);
}

TEST_HARNESS_MAIN
