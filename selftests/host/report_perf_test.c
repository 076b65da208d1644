// SPDX-License-Identifier: GPL-2.0
/*
 * Energy per function without perf or a JVM: the `perf script` text
 * parser and the perf-<pid>.map parser on lines as perf and the agent
 * write them (and on lines that end at the edge of readable memory), and
 * `powerpin report --perf` through a stand-in perf (POWERPIN_PERF) that
 * prints known samples over a known capture: exact joules per function,
 * JIT frames named through --perf-map, the flame graph, and the errors.
 */
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <kselftest_harness.h>

#include "cmd_helpers.h"
#include "fuzz_seed.h"
#include "java/java.h"
#include "trace/trace.h"

#define POWERPIN	"build/bin/powerpin"

/* ---- perf script text ------------------------------------------------------ */

struct got {
	int n;
	struct {
		char comm[64], event[32], sym[4][96], dso[4][96];
		int pid, tid;
		uint64_t ts_ns, period, ip[4];
		uint32_t nr_frames;
	} s[4];
};

static int keep_sample(const struct perf_sample *s, void *arg)
{
	struct got *g = arg;
	uint32_t i;

	if (g->n == 4)
		return 0;
	snprintf(g->s[g->n].comm, sizeof(g->s[0].comm), "%s", s->comm);
	snprintf(g->s[g->n].event, sizeof(g->s[0].event), "%s", s->event);
	g->s[g->n].pid = s->pid;
	g->s[g->n].tid = s->tid;
	g->s[g->n].ts_ns = s->ts_ns;
	g->s[g->n].period = s->period;
	g->s[g->n].nr_frames = s->nr_frames;
	for (i = 0; i < s->nr_frames && i < 4; i++) {
		g->s[g->n].ip[i] = s->frames[i].ip;
		snprintf(g->s[g->n].sym[i], 96, "%s", s->frames[i].sym);
		snprintf(g->s[g->n].dso[i], 96, "%s", s->frames[i].dso);
	}
	g->n++;
	return 0;
}

static int feed(struct perf_script *ps, const char *text, char *err, size_t errlen)
{
	const char *s = text, *nl;
	int ret;

	fuzz_seed("perf_script", text, strlen(text));
	while (*s) {
		nl = strchr(s, '\n');
		if (!nl)
			nl = s + strlen(s);
		ret = perf_script_line(ps, s, (size_t)(nl - s), err, errlen);
		if (ret)
			return ret;
		s = *nl ? nl + 1 : nl;
	}
	return perf_script_finish(ps);
}

TEST(perf_script_lines)
{
	static const char text[] =
		"java 26904/26906  1690.880718963:     250000 cpu-clock:\n"
		"\t    7f7fe941598d LWorkload;::jitHot(JI)J (/tmp/perf-26904.map)\n"
		"\t    7f7ff0938cc9 [unknown] ([unknown])\n"
		"\t    55d0c0de1234 std::vector<int>::push_back(int const&) (/usr/bin/a (deleted))\n"
		"\n"
		"Web Content 3/3  12.5:   1000000 task-clock:\n"
		"\t    ffffffff81000000 native_safe_halt ([kernel.kallsyms])\n"
		"\t    1234\n";
	struct perf_script ps;
	struct got g = { 0 };
	char err[256];

	perf_script_init(&ps, keep_sample, &g);
	ASSERT_EQ(0, feed(&ps, text, err, sizeof(err))) TH_LOG("%s", err);
	perf_script_free(&ps);
	ASSERT_EQ(2, g.n);
	EXPECT_STREQ("java", g.s[0].comm);
	EXPECT_EQ(26904, g.s[0].pid);
	EXPECT_EQ(26906, g.s[0].tid);
	EXPECT_EQ(1690880718963ULL, g.s[0].ts_ns);
	EXPECT_EQ(250000ULL, g.s[0].period);
	EXPECT_STREQ("cpu-clock", g.s[0].event);
	ASSERT_EQ(3U, g.s[0].nr_frames);
	EXPECT_EQ(0x7f7fe941598dULL, g.s[0].ip[0]);
	EXPECT_STREQ("LWorkload;::jitHot(JI)J", g.s[0].sym[0]);
	EXPECT_STREQ("/tmp/perf-26904.map", g.s[0].dso[0]);
	EXPECT_STREQ("[unknown]", g.s[0].sym[1]);
	EXPECT_STREQ("[unknown]", g.s[0].dso[1]);
	EXPECT_STREQ("std::vector<int>::push_back(int const&)", g.s[0].sym[2]);
	EXPECT_STREQ("/usr/bin/a (deleted)", g.s[0].dso[2]);
	/* a task name with a space, a time with fewer digits, a frame with no name */
	EXPECT_STREQ("Web Content", g.s[1].comm);
	EXPECT_EQ(12500000000ULL, g.s[1].ts_ns);
	EXPECT_STREQ("task-clock", g.s[1].event);
	ASSERT_EQ(2U, g.s[1].nr_frames);
	EXPECT_STREQ("[kernel.kallsyms]", g.s[1].dso[0]);
	EXPECT_EQ(0x1234ULL, g.s[1].ip[1]);
	EXPECT_STREQ("[unknown]", g.s[1].sym[1]);
}

TEST(perf_script_bad_lines)
{
	static const char *const bad[] = {
		"\t    7f7f foo (x)\n",				/* a frame before any sample */
		"java 1/1 1.0: 5 cpu-clock\n",			/* no ':' after the event */
		"java 1/1 1.0: five cpu-clock:\n",		/* no period */
		"java 1/1 x.5: 5 cpu-clock:\n",			/* no time */
		"java 1 1.5: 5 cpu-clock:\n",			/* no pid/tid */
		"java 1/1 1.5: 5 cpu-clock:\n\t    zz foo\n",	/* no address */
	};
	char err[256];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct perf_script ps;
		struct got g = { 0 };

		perf_script_init(&ps, keep_sample, &g);
		EXPECT_EQ(-1, feed(&ps, bad[i], err, sizeof(err))) TH_LOG("case %zu", i);
		EXPECT_EQ(0, strncmp(err, "line ", 5)) TH_LOG("case %zu: %s", i, err);
		perf_script_free(&ps);
	}
}

/* @text placed so that its last byte is the last readable one. */
static char *at_the_edge(const char *text, size_t len, void **map, size_t *maplen)
{
	long page = sysconf(_SC_PAGESIZE);
	char *p;

	*maplen = (size_t)page * 2;
	*map = mmap(NULL, *maplen, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (*map == MAP_FAILED)
		return NULL;
	p = (char *)*map + page;
	if (mprotect(p, (size_t)page, PROT_NONE))
		return NULL;
	memcpy(p - len, text, len);
	return p - len;
}

/* A line is its bytes: nothing after them is read (no NUL is needed). */
TEST(perf_script_reads_only_the_line)
{
	static const char header[] = "java 1/2 1690.880718963:";
	static const char frame[] = "\t    7f7fe941598d";
	struct perf_script ps;
	struct got g = { 0 };
	size_t maplen;
	char err[256];
	void *map;
	char *line;

	perf_script_init(&ps, keep_sample, &g);
	line = at_the_edge("java 1/2 1690.880718963: 1 cpu-clock:", 37, &map, &maplen);
	ASSERT_NE(NULL, line);
	ASSERT_EQ(0, perf_script_line(&ps, line, 37, err, sizeof(err))) TH_LOG("%s", err);
	munmap(map, maplen);
	/* a time that ends the line: refused without reading on */
	line = at_the_edge(header, strlen(header), &map, &maplen);
	ASSERT_NE(NULL, line);
	EXPECT_EQ(-1, perf_script_line(&ps, line, strlen(header), err, sizeof(err)));
	munmap(map, maplen);
	line = at_the_edge("java 1/2 1690.880718963: 1 cpu-clock:", 37, &map, &maplen);
	ASSERT_EQ(0, perf_script_line(&ps, line, 37, err, sizeof(err))) TH_LOG("%s", err);
	munmap(map, maplen);
	/* an address that ends the line */
	line = at_the_edge(frame, strlen(frame), &map, &maplen);
	ASSERT_NE(NULL, line);
	ASSERT_EQ(0, perf_script_line(&ps, line, strlen(frame), err, sizeof(err))) TH_LOG("%s", err);
	munmap(map, maplen);
	ASSERT_EQ(0, perf_script_finish(&ps));
	perf_script_free(&ps);
	ASSERT_EQ(2, g.n);
	EXPECT_EQ(1690880718963ULL, g.s[1].ts_ns);
	ASSERT_EQ(1U, g.s[1].nr_frames);
	EXPECT_EQ(0x7f7fe941598dULL, g.s[1].ip[0]);
}

/*
 * A capture recorded without -g: perf script prints the sampled ip, sym
 * and dso at the end of the header line, and the task name right-aligned,
 * so the line starts with spaces as a frame would.  Each is a sample of
 * that one frame, counted as flat.
 */
TEST(perf_script_without_call_chains)
{
	static const char text[] =
		"              sh 27518/27518  1687.667003629:     250000 cpu-clock:      7fd1c4aad389 update_active.constprop.0 (/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2)\n"
		"              sh 27518/27518  1687.667755745:     250000 cpu-clock:  ffffffff81376bbc do_prlimit ([kernel.kallsyms])\n"
		"     Web Content 3/4  1687.7:     250000 cpu-clock:      1234 [unknown] ([unknown])\n"
		"             1/2 5/6  1687.8:     250000 cpu-clock:      10 f (/x)\n";
	struct perf_script ps;
	struct got g = { 0 };
	char err[256];

	perf_script_init(&ps, keep_sample, &g);
	ASSERT_EQ(0, feed(&ps, text, err, sizeof(err))) TH_LOG("%s", err);
	EXPECT_EQ(4U, ps.samples);
	EXPECT_EQ(4U, ps.flat);
	perf_script_free(&ps);
	ASSERT_EQ(4, g.n);
	EXPECT_STREQ("sh", g.s[0].comm);
	EXPECT_EQ(27518, g.s[0].pid);
	EXPECT_EQ(1687667003629ULL, g.s[0].ts_ns);
	EXPECT_EQ(250000ULL, g.s[0].period);
	EXPECT_STREQ("cpu-clock", g.s[0].event);
	ASSERT_EQ(1U, g.s[0].nr_frames);
	EXPECT_EQ(0x7fd1c4aad389ULL, g.s[0].ip[0]);
	EXPECT_STREQ("update_active.constprop.0", g.s[0].sym[0]);
	EXPECT_STREQ("/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2", g.s[0].dso[0]);
	EXPECT_STREQ("do_prlimit", g.s[1].sym[0]);
	EXPECT_STREQ("[kernel.kallsyms]", g.s[1].dso[0]);
	EXPECT_STREQ("Web Content", g.s[2].comm);
	EXPECT_EQ(4, g.s[2].tid);
	EXPECT_STREQ("1/2", g.s[3].comm);
	EXPECT_EQ(5, g.s[3].pid);
	EXPECT_STREQ("f", g.s[3].sym[0]);
}

/* ---- perf-<pid>.map -------------------------------------------------------- */

TEST(perf_map_lines_and_lookup)
{
	static const char text[] =
		"0x1000 0x100 LApp;::hot()V\n"
		"2000 10   name with  spaces  \t\n"	/* perf's form: hex without 0x */
		"not a line\n"
		"0x3000 0x10\n"				/* no name */
		"0x1000 0x80 LApp;::newer()V\n"		/* the same start later: it wins */
		"0x4000 0x10 a\0b\n"			/* a NUL: not text */
		"\n"
		"0x5000 0x0 empty\n";
	struct perf_map map;
	const struct perf_map_sym *s;

	fuzz_seed("perf_map", text, sizeof(text) - 1);
	ASSERT_EQ(0, perf_map_parse(text, sizeof(text) - 1, &map));
	EXPECT_EQ(3UL, map.bad_lines);
	ASSERT_EQ(3UL, map.nr);
	s = perf_map_lookup(&map, 0x1000);
	ASSERT_NE(NULL, s);
	EXPECT_STREQ("LApp;::newer()V", s->name);
	EXPECT_EQ(NULL, perf_map_lookup(&map, 0x1080));	/* past the newer, shorter one */
	EXPECT_EQ(NULL, perf_map_lookup(&map, 0xfff));
	s = perf_map_lookup(&map, 0x200f);
	ASSERT_NE(NULL, s);
	EXPECT_STREQ("name with  spaces", s->name);
	EXPECT_EQ(NULL, perf_map_lookup(&map, 0x2010));
	EXPECT_EQ(NULL, perf_map_lookup(&map, 0x5000));	/* a size of 0 holds nothing */
	perf_map_free(&map);
}

/* ---- powerpin report --perf through a stand-in perf ------------------------- */

FIXTURE(rp) {
	char dir[64];
	char trace[128], perf[128], script[128], data[128], maps[128], out[128];
	char env[256];
	char text[65536];
};

static int write_file(const char *path, const char *text, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, text, strlen(text));
	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -1;
}


/* ftrace text: 4 V at -1 A (4 W discharging) every 10 ms over [1 s, 2 s], 2 CPUs */
static int write_capture(const char *path)
{
	FILE *f = fopen(path, "w");
	int i;

	if (!f)
		return -1;
	fputs("# tracer: nop\n#\n# entries-in-buffer/entries-written: 101/101   #P:2\n", f);
	for (i = 0; i <= 100; i++)
		fprintf(f, "     powerpin-77    [000] .....  %d.%06d: battery: seq=%d voltage_uv=4000000 current_ua=-1000000 charge_uah=1000000 flags=0\n",
			1 + i / 100, (i % 100) * 10000, i + 1);
	return fclose(f);
}

/*
 * Four 1 ms cpu-clock samples: three inside the capture (each 4 W x 1 ms
 * over 2 CPUs = 2 mJ), one after it.  Two end in JIT code perf could not
 * name, one was named by perf from a map itself.
 */
static const char samples[] =
	"my app 100/101  1.200000000:    1000000 cpu-clock:\n"
	"\t    1010 [unknown] ([unknown])\n"
	"\t    400500 main (/usr/bin/app)\n"
	"\n"
	"my app 100/101  1.500000000:    1000000 cpu-clock:\n"
	"\t    10ff [unknown] ([unknown])\n"
	"\t    400500 main (/usr/bin/app)\n"
	"\n"
	"my app 100/102  1.700000000:    1000000 cpu-clock:\n"
	"\t    2010 LApp;::cold()V (/tmp/perf-100.map)\n"
	"\t    7f0010 work (/usr/lib/libw.so)\n"
	"\t    400500 main (/usr/bin/app)\n"
	"\n"
	"my app 100/101  3.000000000:    1000000 cpu-clock:\n"
	"\t    400500 main (/usr/bin/app)\n";

FIXTURE_SETUP(rp)
{
	char map[192], text[512];

	strcpy(self->dir, "/tmp/powerpin-rperf-XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	snprintf(self->trace, sizeof(self->trace), "%s/trace.txt", self->dir);
	snprintf(self->perf, sizeof(self->perf), "%s/perf", self->dir);
	snprintf(self->script, sizeof(self->script), "%s/script.txt", self->dir);
	snprintf(self->data, sizeof(self->data), "%s/perf.data", self->dir);
	snprintf(self->maps, sizeof(self->maps), "%s/maps", self->dir);
	snprintf(self->out, sizeof(self->out), "%s/out", self->dir);
	snprintf(self->env, sizeof(self->env), "POWERPIN_PERF=%s", self->perf);
	ASSERT_EQ(0, write_capture(self->trace));
	ASSERT_EQ(0, write_file(self->script, samples, 0644));
	/* perf.data's magic, then the stand-in's note */
	ASSERT_EQ(0, write_file(self->data, "PERFILE2 stands for a perf.data\n", 0644));
	/* the stand-in: says how it was run, prints the samples */
	snprintf(text, sizeof(text), "#!/bin/sh\necho \"$@\" >%s/args\ncat %s\nexit ${PERF_EXIT:-0}\n",
		 self->dir, self->script);
	ASSERT_EQ(0, write_file(self->perf, text, 0755));
	ASSERT_EQ(0, mkdir(self->maps, 0755));
	snprintf(map, sizeof(map), "%s/perf-100.map", self->maps);
	ASSERT_EQ(0, write_file(map, "0x1000 0x100 LApp;::hot()V\n", 0644));
}

FIXTURE_TEARDOWN(rp)
{
	if (sh("rm -rf %s", self->dir))
		TH_LOG("could not remove %s", self->dir);
}

/* "name": ... "key": number in the function's JSON object */
static double fn_field(const char *json, const char *name, const char *key)
{
	char pat[256];
	const char *p = json;

	snprintf(pat, sizeof(pat), "{\"name\": \"%s\"", name);
	p = strstr(p, pat);
	if (!p)
		return -1;
	snprintf(pat, sizeof(pat), "\"%s\": ", key);
	p = strstr(p, pat);
	return p ? strtod(p + strlen(pat), NULL) : -1;
}

TEST_F(rp, energy_per_function)
{
	char cmd[1024], json[160], flame[160];
	unsigned long long n, used, outside, named;
	double cpu_s, e;
	char *p;

	snprintf(json, sizeof(json), "%s/r.json", self->dir);
	snprintf(flame, sizeof(flame), "%s/flame.html", self->dir);
	snprintf(cmd, sizeof(cmd), "%s " POWERPIN " report %s --perf %s --perf-map %s --json %s --flame %s 2>&1",
		 self->env, self->trace, self->data, self->maps, json, flame);
	ASSERT_EQ(0, run_cmd(cmd, self->text, sizeof(self->text))) TH_LOG("%s", self->text);
	/* perf was asked for what the parser reads */
	snprintf(cmd, sizeof(cmd), "%s/args", self->dir);
	ASSERT_EQ(0, read_text(cmd, self->text, sizeof(self->text)));
	snprintf(cmd, sizeof(cmd), "script -i %s -F comm,pid,tid,time,period,event,ip,sym,dso --ns\n",
		 self->data);
	EXPECT_STREQ(cmd, self->text);

	ASSERT_EQ(0, read_text(json, self->text, sizeof(self->text)));
	p = strstr(self->text, "\"perf\": {");
	ASSERT_NE(NULL, p);
	ASSERT_EQ(6, sscanf(p, "\"perf\": {\"event\": \"cpu-clock\", \"samples\": %llu, \"samples_used\": %llu, \"samples_outside\": %llu, \"cpu_s\": %lf, \"energy_j\": %lf, \"jit_frames_named\": %llu",
			    &n, &used, &outside, &cpu_s, &e, &named)) TH_LOG("%.300s", p);
	EXPECT_EQ(4ULL, n);
	EXPECT_EQ(3ULL, used);
	EXPECT_EQ(1ULL, outside);
	EXPECT_LT(fabs(cpu_s - 0.003), 1e-12);
	EXPECT_LT(fabs(e - 0.006), 1e-12);
	EXPECT_EQ(2ULL, named);
	/* by self energy: hot (2 samples), then cold and work and main */
	p = strstr(self->text, "\"functions\": [");
	ASSERT_NE(NULL, p);
	EXPECT_NE(NULL, strstr(p, "[\n    {\"name\": \"LApp;::hot()V\", \"dso\": \"JIT\", \"self_j\": 0.004, \"total_j\": 0.004, \"self_samples\": 2, \"samples\": 2}"))
		TH_LOG("%s", p);
	EXPECT_NE(NULL, strstr(p, "{\"name\": \"LApp;::cold()V\", \"dso\": \"JIT\", \"self_j\": 0.002"));
	EXPECT_EQ(0.0, fn_field(p, "main", "self_j"));
	EXPECT_LT(fabs(fn_field(p, "main", "total_j") - 0.006), 1e-12);
	EXPECT_EQ(3.0, fn_field(p, "main", "samples"));
	EXPECT_LT(fabs(fn_field(p, "work", "total_j") - 0.002), 1e-12);

	/* the energy flame graph: stacks rooted at the process, in joules */
	ASSERT_EQ(0, read_text(flame, self->text, sizeof(self->text)));
	EXPECT_NE(NULL, strstr(self->text, "\"my app (100)\""));
	EXPECT_NE(NULL, strstr(self->text, "\"LApp:::hot()V\""));
	EXPECT_NE(NULL, strstr(self->text, "\"wname\":\"J\""));
	EXPECT_NE(NULL, strstr(self->text, "\"total\":0.006"));

	/* the text and HTML tables */
	snprintf(cmd, sizeof(cmd), "%s " POWERPIN " report %s --perf %s --perf-map %s/perf-100.map --html %s 2>&1",
		 self->env, self->trace, self->data, self->maps, self->out);
	ASSERT_EQ(0, run_cmd(cmd, self->text, sizeof(self->text))) TH_LOG("%s", self->text);
	EXPECT_NE(NULL, strstr(self->text, "energy by function (3 perf cpu-clock samples"));
	EXPECT_NE(NULL, strstr(self->text, "    0.0040      0.0040   66.7         2  LApp;::hot()V [JIT]"))
		TH_LOG("%s", self->text);
	ASSERT_EQ(0, read_text(self->out, self->text, sizeof(self->text)));
	EXPECT_NE(NULL, strstr(self->text, "<tr><td>LApp;::hot()V</td><td>JIT</td><td>0.0040</td><td>0.0040</td><td>2</td></tr>"));
}

/*
 * report --perf on a perf.data recorded without -g: each sample counts for
 * the function it hit, and a warning says that stacks need -g.
 */
TEST_F(rp, perf_data_without_call_chains)
{
	static const char flat[] =
		"          my app 100/101  1.200000000:    1000000 cpu-clock:      400500 main (/usr/bin/app)\n"
		"          my app 100/101  1.500000000:    1000000 cpu-clock:      7f0010 work (/usr/lib/libw.so)\n"
		"          my app 100/102  1.700000000:    1000000 cpu-clock:      7f0010 work (/usr/lib/libw.so)\n";
	char cmd[1024], json[160], *p;

	ASSERT_EQ(0, write_file(self->script, flat, 0644));
	snprintf(json, sizeof(json), "%s/r.json", self->dir);
	snprintf(cmd, sizeof(cmd), "%s " POWERPIN " report %s --perf %s --json %s 2>&1 >/dev/null",
		 self->env, self->trace, self->data, json);
	ASSERT_EQ(0, run_cmd(cmd, self->text, sizeof(self->text))) TH_LOG("%s", self->text);
	EXPECT_NE(NULL, strstr(self->text, "no call chains (recorded without -g)")) TH_LOG("%s", self->text);
	ASSERT_EQ(0, read_text(json, self->text, sizeof(self->text)));
	p = strstr(self->text, "\"functions\": [");
	ASSERT_NE(NULL, p);
	EXPECT_LT(fabs(fn_field(p, "work", "self_j") - 0.004), 1e-12);
	EXPECT_LT(fabs(fn_field(p, "main", "self_j") - 0.002), 1e-12);
	EXPECT_EQ(2.0, fn_field(p, "work", "samples"));
}

/* --flame is one of the report's outputs: written whole with the rest, or none is */
TEST_F(rp, flame_is_committed_with_the_other_outputs)
{
	char cmd[1024], json[160];
	struct stat st;

	snprintf(json, sizeof(json), "%s/r.json", self->dir);
	snprintf(cmd, sizeof(cmd), "%s " POWERPIN " report %s --perf %s --json %s --flame %s/no/such/dir/f.html 2>&1",
		 self->env, self->trace, self->data, json, self->dir);
	EXPECT_EQ(1, run_cmd(cmd, self->text, sizeof(self->text)));
	EXPECT_NE(NULL, strstr(self->text, "f.html: No such file or directory")) TH_LOG("%s", self->text);
	EXPECT_NE(0, stat(json, &st)) TH_LOG("the JSON was written though the flame graph failed");

	/* "-" is standard output, and then the text summary is not printed */
	snprintf(cmd, sizeof(cmd), "%s " POWERPIN " report %s --perf %s --flame - 2>/dev/null",
		 self->env, self->trace, self->data);
	ASSERT_EQ(0, run_cmd(cmd, self->text, sizeof(self->text)));
	EXPECT_EQ(0, strncmp(self->text, "<!DOCTYPE html>", 15)) TH_LOG("%.200s", self->text);
	EXPECT_EQ(NULL, strstr(self->text, "energy by function"));
	/* and only one output may be */
	snprintf(cmd, sizeof(cmd), "%s " POWERPIN " report %s --perf %s --flame - --json - 2>&1",
		 self->env, self->trace, self->data);
	EXPECT_EQ(2, run_cmd(cmd, self->text, sizeof(self->text)));
}

/* @in with every '@' replaced by @dir */
static void at_is_dir(const char *in, const char *dir, char *out, size_t len)
{
	size_t n = 0, d = strlen(dir);

	for (; *in && n + d + 1 < len; in++) {
		if (*in == '@') {
			memcpy(out + n, dir, d);
			n += d;
		} else {
			out[n++] = *in;
		}
	}
	out[n] = '\0';
}

TEST_F(rp, errors)
{
	static const struct {
		const char *args, *env, *says;
		int status;
	} cases[] = {
		/* usage */
		{ "--flame @/f.html", "", "--flame and --perf-map go with --perf", 2 },
		{ "--perf-map @", "", "--flame and --perf-map go with --perf", 2 },
		/* a map that is not there */
		{ "--perf @/perf.data --perf-map @/nope", "", "--perf-map @/nope: No such file", 1 },
		/* no perf.data */
		{ "--perf @/none.data", "", "none.data: No such file", 1 },
		/* not a perf.data: named before perf script says "incompatible file format" */
		{ "--perf @/trace.txt", "", "--perf @/trace.txt: not a perf.data file", 1 },
		{ "--perf @/perf", "", "--perf @/perf: not a perf.data file", 1 },
		/* perf script fails */
		{ "--perf @/perf.data", "PERF_EXIT=3", "perf script failed (exit 3)", 1 },
	};
	char cmd[1024], args[512], says[512];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		at_is_dir(cases[i].args, self->dir, args, sizeof(args));
		at_is_dir(cases[i].says, self->dir, says, sizeof(says));
		snprintf(cmd, sizeof(cmd), "%s %s " POWERPIN " report %s %s 2>&1", self->env,
			 cases[i].env, self->trace, args);
		EXPECT_EQ(cases[i].status, run_cmd(cmd, self->text, sizeof(self->text))) TH_LOG("%s", args);
		EXPECT_NE(NULL, strstr(self->text, says)) TH_LOG("%s: %s", args, self->text);
	}

	/* an event that does not count time */
	ASSERT_EQ(0, write_file(self->script, "app 1/1 1.5: 1000 cycles:\n\t    10 f (/x)\n", 0644));
	snprintf(cmd, sizeof(cmd), "%s " POWERPIN " report %s --perf %s 2>&1", self->env, self->trace,
		 self->data);
	EXPECT_EQ(1, run_cmd(cmd, self->text, sizeof(self->text)));
	EXPECT_NE(NULL, strstr(self->text, "'cycles' does not count time")) TH_LOG("%s", self->text);
	/* no sample inside the capture */
	ASSERT_EQ(0, write_file(self->script, "app 1/1 9.5: 1000 cpu-clock:\n\t    10 f (/x)\n", 0644));
	EXPECT_EQ(1, run_cmd(cmd, self->text, sizeof(self->text)));
	EXPECT_NE(NULL, strstr(self->text, "falls inside the capture")) TH_LOG("%s", self->text);
	/* text that is not perf script's */
	ASSERT_EQ(0, write_file(self->script, "\t    10 f (/x)\n", 0644));
	EXPECT_EQ(1, run_cmd(cmd, self->text, sizeof(self->text)));
	EXPECT_NE(NULL, strstr(self->text, "line 1: a stack frame outside a sample")) TH_LOG("%s", self->text);
}

TEST_HARNESS_MAIN
