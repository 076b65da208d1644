// SPDX-License-Identifier: GPL-2.0
/*
 * Bounded inputs for `powerpin report`: a line longer than the cap, a run
 * of NUL bytes, a timestamp past 2^64 ns are refused with their line; a
 * failed allocation fails the report instead of shortening it; a pipe is
 * copied only up to --spool-max and /dev/zero is refused at its first
 * block; a trace.dat whose format libtraceevent would crash on is refused;
 * only open slices count against the open-slice limit; an event on CPU
 * 65535 is attributed like any other.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <kselftest_harness.h>

#include "cmd_helpers.h"
#include "report/report.h"
#include "report_gen.h"
#include "report_tracedat.h"

#define T0	100000000000ULL
#define MS	1000000ULL

/*
 * Allocation failures on demand: glibc lets a program replace malloc and
 * friends, and calls them from inside too (strdup, stdio).  From the
 * alloc_fail_at-th allocation on (0: never), every one fails.
 */
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);
extern void *__libc_memalign(size_t, size_t);

static unsigned long alloc_count, alloc_fail_at;
static bool alloc_failed;

static bool alloc_fails(void)
{
	if (!alloc_fail_at || ++alloc_count < alloc_fail_at)
		return false;
	alloc_failed = true;
	errno = ENOMEM;
	return true;
}

void *malloc(size_t n)
{
	return alloc_fails() ? NULL : __libc_malloc(n);
}

void *calloc(size_t n, size_t size)
{
	return alloc_fails() ? NULL : __libc_calloc(n, size);
}

void *realloc(void *p, size_t n)
{
	return alloc_fails() ? NULL : __libc_realloc(p, n);
}

void free(void *p)
{
	__libc_free(p);
}

void *memalign(size_t align, size_t n)
{
	return alloc_fails() ? NULL : __libc_memalign(align, n);
}

int posix_memalign(void **p, size_t align, size_t n)
{
	*p = alloc_fails() ? NULL : __libc_memalign(align, n);
	return *p ? 0 : ENOMEM;
}

void *aligned_alloc(size_t align, size_t n)
{
	return alloc_fails() ? NULL : __libc_memalign(align, n);
}

FIXTURE(bounds) {
	char dir[64];
	char path[128];
	char err[512];
	struct gen g;
};

FIXTURE_SETUP(bounds)
{
	strcpy(self->dir, "/tmp/powerpin-bounds-XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	snprintf(self->path, sizeof(self->path), "%s/trace", self->dir);
	memset(&self->g, 0, sizeof(self->g));
	self->g.nr_cpus = 1;
}

FIXTURE_TEARDOWN(bounds)
{
	if (sh("rm -rf %s", self->dir))
		TH_LOG("could not remove %s", self->dir);
}

/* Run the report over self->path; 0, or -1 with self->err. */
static int report_path(FIXTURE_DATA(bounds) *self, struct report *r)
{
	int ret;

	if (report_init(r, NULL))
		return -2;
	ret = report_run(r, self->path, self->err, sizeof(self->err));
	return ret;
}

static void samples(struct gen *g, uint64_t from, int n)
{
	int k;

	for (k = 0; k < n; k++)
		gen_battery(g, from + k * 10 * MS, k + 1, 4000000, -500000, 1000000 - k, 0);
}

/* ---- line length, NUL bytes, timestamps ------------------------------------ */

TEST_F(bounds, long_line_refused_with_its_number)
{
	char *line = malloc(TRACE_TEXT_LINE_MAX + 200);
	struct report r;
	FILE *f;

	ASSERT_NE(NULL, line);
	samples(&self->g, T0, 3);
	ASSERT_EQ(0, gen_write(&self->g, self->path));
	/* a line of exactly the cap is read */
	memset(line, 'x', TRACE_TEXT_LINE_MAX);
	memcpy(line, "# ", 2);
	line[TRACE_TEXT_LINE_MAX] = '\0';
	f = fopen(self->path, "a");
	ASSERT_NE(NULL, f);
	fprintf(f, "%s\n", line);
	fclose(f);
	ASSERT_EQ(0, report_path(self, &r)) TH_LOG("%s", self->err);
	EXPECT_EQ(3U, r.samples);
	report_free(&r);
	/* one byte more is not */
	f = fopen(self->path, "a");
	ASSERT_NE(NULL, f);
	fprintf(f, "%sx\n", line);
	fclose(f);
	free(line);
	EXPECT_EQ(-1, report_path(self, &r));
	EXPECT_NE(NULL, strstr(self->err, "trace:9: line longer than 65536 bytes: not ftrace text"))
		TH_LOG("%s", self->err);
	report_free(&r);
}

/* 8 MiB of NUL bytes after a good start: refused at once, in bounded memory */
TEST_F(bounds, nul_run_refused)
{
	static char zeros[1 << 20];
	struct report r;
	FILE *f;
	int k;

	samples(&self->g, T0, 300);
	ASSERT_EQ(0, gen_write(&self->g, self->path));
	f = fopen(self->path, "a");
	ASSERT_NE(NULL, f);
	for (k = 0; k < 8; k++)
		ASSERT_EQ(sizeof(zeros), fwrite(zeros, 1, sizeof(zeros), f));
	fclose(f);
	EXPECT_EQ(-1, report_path(self, &r));
	EXPECT_NE(NULL, strstr(self->err, "trace:305: line longer than 65536 bytes"))
		TH_LOG("%s", self->err);
	report_free(&r);

	/* and a NUL inside an ordinary line, past the part format sniffing reads */
	memset(&self->g, 0, sizeof(self->g));
	samples(&self->g, T0, 300);
	ASSERT_EQ(0, gen_write(&self->g, self->path));
	f = fopen(self->path, "a");
	ASSERT_NE(NULL, f);
	fwrite("# a\0b\n", 1, 6, f);
	fclose(f);
	EXPECT_EQ(-1, report_path(self, &r));
	EXPECT_NE(NULL, strstr(self->err, "trace:305: NUL byte: not ftrace text")) TH_LOG("%s", self->err);
	report_free(&r);
}

TEST_F(bounds, timestamp_past_2_64_ns)
{
	static const char *const line =
		"        powerpin-77      (     77) [000] ..... %s: battery: seq=9 voltage_uv=4000000 current_ua=-500000 charge_uah=1 flags=0x0\n";
	struct report r;

	/* 2^64 - 1 ns is the last time there is */
	samples(&self->g, T0, 3);
	gen_add(&self->g, UINT64_MAX, line, "18446744073.709551615");
	ASSERT_EQ(0, gen_write(&self->g, self->path));
	ASSERT_EQ(0, report_path(self, &r)) TH_LOG("%s", self->err);
	EXPECT_EQ(UINT64_MAX, r.last_ns);
	report_free(&r);

	/* one past it, and 18446744074 s (which wrapped round to 0.29 s) */
	memset(&self->g, 0, sizeof(self->g));
	samples(&self->g, T0, 3);
	gen_add(&self->g, UINT64_MAX, line, "18446744073.709551616");
	ASSERT_EQ(0, gen_write(&self->g, self->path));
	EXPECT_EQ(-1, report_path(self, &r));
	EXPECT_NE(NULL, strstr(self->err, "trace:8: timestamp past 2^64 ns")) TH_LOG("%s", self->err);
	report_free(&r);
	memset(&self->g, 0, sizeof(self->g));
	gen_add(&self->g, 0, line, "18446744074.000000");
	ASSERT_EQ(0, gen_write(&self->g, self->path));
	EXPECT_EQ(-1, report_path(self, &r));
	EXPECT_NE(NULL, strstr(self->err, "trace:5: timestamp past 2^64 ns")) TH_LOG("%s", self->err);
	report_free(&r);
}

/* ---- allocation failures ------------------------------------------------------ */

/*
 * Fail every allocation from the n-th on, for each n: the report either
 * fails, saying it ran out of memory, or (when only an allocation that has
 * a fallback failed, such as qsort's) is the whole report.  Never a short
 * one.
 */
TEST_F(bounds, allocation_failure_is_an_error)
{
	struct report base, r;
	char name[32];
	unsigned long n;
	int k, failed = 0;

	for (k = 0; k < 300; k++) {
		gen_battery(&self->g, T0 + k * 10 * MS, k + 1, 4000000, -500000, 1000000 - k, 0);
		snprintf(name, sizeof(name), "C|500|counter_%d|%d", k, k);
		gen_mark(&self->g, T0 + k * 10 * MS + 1, 0, "app", 500, 500, name);
		snprintf(name, sizeof(name), "B|500|slice_%d", k % 40);
		gen_mark(&self->g, T0 + k * 10 * MS + 2, 0, "app", 500, 500, name);
		gen_mark(&self->g, T0 + k * 10 * MS + 3, 0, "app", 500, 500, "E|500");
		gen_switch(&self->g, T0 + k * 10 * MS + 4, k % 2, "a", 600 + k % 50, 600 + k % 50,
			   "b", 700 + k % 70);
	}
	self->g.nr_cpus = 2;
	ASSERT_EQ(0, gen_write(&self->g, self->path));
	ASSERT_EQ(0, report_path(self, &base)) TH_LOG("%s", self->err);

	for (n = 1;; n++) {
		ASSERT_EQ(0, report_init(&r, NULL));
		alloc_count = 0;
		alloc_failed = false;
		alloc_fail_at = n;
		k = report_run(&r, self->path, self->err, sizeof(self->err));
		alloc_fail_at = 0;
		if (!alloc_failed) {
			/* past the last allocation: the whole report */
			ASSERT_EQ(0, k);
			report_free(&r);
			break;
		}
		if (k) {
			EXPECT_NE(NULL, strstr(self->err, "out of memory")) TH_LOG("n=%lu: %s", n, self->err);
			failed++;
		} else {
			EXPECT_EQ(base.samples, r.samples) TH_LOG("n=%lu", n);
			EXPECT_EQ(base.nr_counters, r.nr_counters) TH_LOG("n=%lu", n);
			EXPECT_EQ(base.nr_slice_stats, r.nr_slice_stats) TH_LOG("n=%lu", n);
			EXPECT_EQ(base.slices_total, r.slices_total) TH_LOG("n=%lu", n);
			EXPECT_EQ(base.nr_tasks, r.nr_tasks) TH_LOG("n=%lu", n);
			EXPECT_EQ(base.nr_processes, r.nr_processes) TH_LOG("n=%lu", n);
			EXPECT_EQ(base.energy_j, r.energy_j) TH_LOG("n=%lu", n);
			EXPECT_EQ(base.other_energy, r.other_energy) TH_LOG("n=%lu", n);
		}
		report_free(&r);
	}
	report_free(&base);
	/* the loop did reach the report's own allocations */
	EXPECT_LT(10, failed);
}

/* ---- slices and CPUs ------------------------------------------------------------ */

/* 4097 slices that open and close between two samples: none dropped */
TEST_F(bounds, only_open_slices_count_against_the_limit)
{
	struct report r;
	int k;

	gen_battery(&self->g, T0, 1, 4000000, -500000, 1000000, 0);
	for (k = 0; k < REPORT_MAX_OPEN_SLICES + 1; k++) {
		gen_mark(&self->g, T0 + 1000 + k * 100, 0, "app", 500, 500, "B|500|s");
		gen_mark(&self->g, T0 + 1050 + k * 100, 0, "app", 500, 500, "E|500");
	}
	gen_battery(&self->g, T0 + 1000 * MS, 2, 4000000, -500000, 1000000, 0);
	ASSERT_EQ(0, gen_write(&self->g, self->path));
	ASSERT_EQ(0, report_path(self, &r)) TH_LOG("%s", self->err);
	EXPECT_EQ(0U, r.slices_dropped);
	ASSERT_EQ(1U, r.nr_slice_stats);
	EXPECT_EQ((uint64_t)REPORT_MAX_OPEN_SLICES + 1, r.slice_stats[0].count);
	EXPECT_EQ(0U, r.slice_stats[0].unterminated);
	/* 50 ns each at 2 W */
	EXPECT_NEAR((REPORT_MAX_OPEN_SLICES + 1) * 50e-9 * 2, r.sign * r.slice_stats[0].energy, 1e-12);
	report_free(&r);

	/* 4097 slices open at once: the last one is dropped */
	memset(&self->g, 0, sizeof(self->g));
	gen_battery(&self->g, T0, 1, 4000000, -500000, 1000000, 0);
	for (k = 0; k < REPORT_MAX_OPEN_SLICES + 1; k++)
		gen_mark(&self->g, T0 + 1000 + k * 100, 0, "app", 500, 500, "B|500|s");
	gen_battery(&self->g, T0 + 1000 * MS, 2, 4000000, -500000, 1000000, 0);
	ASSERT_EQ(0, gen_write(&self->g, self->path));
	ASSERT_EQ(0, report_path(self, &r)) TH_LOG("%s", self->err);
	EXPECT_EQ(1U, r.slices_dropped);
	EXPECT_EQ((uint64_t)REPORT_MAX_OPEN_SLICES, r.slice_stats[0].unterminated);
	report_free(&r);
}

/*
 * A thread on CPU 0 and one on CPU 65535 through a 1 J second: 65536 CPUs
 * count, each thread gets 1/65536 of it, the rest is other.
 */
TEST_F(bounds, cpu_65535_is_a_cpu_like_any_other)
{
	struct report r;
	const struct report_task *a, *b;

	gen_switch(&self->g, T0 - MS, 0, "swapper/0", 0, 0, "a", 100);
	gen_switch(&self->g, T0 - MS, 65535, "swapper/65535", 0, 0, "b", 200);
	gen_battery(&self->g, T0, 1, 4000000, -250000, 1000000, 0);
	gen_battery(&self->g, T0 + 1000 * MS, 2, 4000000, -250000, 1000000, 0);
	ASSERT_EQ(0, gen_write(&self->g, self->path));
	ASSERT_EQ(0, report_path(self, &r)) TH_LOG("%s", self->err);
	EXPECT_EQ(65536, r.nr_cpus);
	a = report_find_task(&r, 100);
	b = report_find_task(&r, 200);
	ASSERT_NE(NULL, a);
	ASSERT_NE(NULL, b);
	EXPECT_NEAR(1.0 / 65536, r.sign * a->energy, 1e-15);
	EXPECT_NEAR(1.0 / 65536, r.sign * b->energy, 1e-15);
	EXPECT_EQ(1000000000ULL, a->cpu_ns);
	EXPECT_EQ(1000000000ULL, b->cpu_ns);
	EXPECT_NEAR(1.0 - 2.0 / 65536, r.sign * r.other_energy, 1e-12);
	EXPECT_NEAR(0.0, r.idle_energy, 0);
	report_free(&r);
}

/* ---- pipes and devices through the CLI ------------------------------------------ */

static bool file_has(const char *path, const char *needle)
{
	char buf[4096];
	ssize_t n;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return strstr(buf, needle);
}

TEST_F(bounds, spool_is_capped_and_dev_zero_refused_at_once)
{
	const char *bin = getenv("POWERPIN_BIN") ? getenv("POWERPIN_BIN") : "build/bin/powerpin";
	char err[160], tmp[160];

	if (access(bin, X_OK))
		SKIP(return, "powerpin not built");
	snprintf(err, sizeof(err), "%s/err", self->dir);
	snprintf(tmp, sizeof(tmp), "%s/tmp", self->dir);
	ASSERT_EQ(0, mkdir(tmp, 0700));
	/* /dev/zero: refused at its first block, nothing spooled */
	EXPECT_EQ(1, sh("TMPDIR=%s timeout 20 %s report /dev/zero 2>%s", tmp, bin, err));
	EXPECT_TRUE(file_has(err, "powerpin report: /dev/zero: binary data that is not a trace.dat"));
	/* 3 MB of text through a pipe, 1 MiB allowed */
	samples(&self->g, T0, 100);
	ASSERT_EQ(0, gen_write(&self->g, self->path));
	EXPECT_EQ(1, sh("(cat %s; yes '# padding, not ftrace' | head -c 3000000) | TMPDIR=%s timeout 20 %s report - --spool-max 1M >/dev/null 2>%s",
			self->path, tmp, bin, err));
	EXPECT_TRUE(file_has(err, "powerpin report: <stdin>: more than 1048576 bytes to copy to"));
	EXPECT_TRUE(file_has(err, "(--spool-max)"));
	/* the same with room enough */
	EXPECT_EQ(0, sh("(cat %s; yes '# padding, not ftrace' | head -c 3000000) | TMPDIR=%s timeout 20 %s report - --spool-max 4M >/dev/null 2>%s",
			self->path, tmp, bin, err));
	EXPECT_EQ(2, sh("%s report - --spool-max lots </dev/null 2>%s", bin, err));
	/* the spool was unlinked from the start: nothing left */
	EXPECT_EQ(0, sh("test -z \"$(ls -A %s)\"", tmp));
}

/* ---- trace.dat formats libtraceevent cannot read ---------------------------------- */

TEST(unsafe_formats)
{
	static const struct {
		const char *text;
		size_t len;
		bool unsafe;
	} f[] = {
		{ "\tfield:char x[", 0, true },
		{ "\tfield:char x[ \t", 0, true },
		{ "\tfield:char x[\x01]", 0, true },
		{ "\tfield:char x[\xc3\xa9]", 0, true },
		{ "\tfield:char x[\0]", 16, true },
		{ "\tfield:char x[\n", 0, false },
		{ "\tfield:char x[16];\toffset:8;\tsize:16;\tsigned:1;\n", 0, false },
		{ "print fmt: \"[%d]\", REC->x", 0, false },
		{ "", 0, false },
	};
	size_t i;

	for (i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		EXPECT_EQ(f[i].unsafe, trace_format_unsafe(f[i].text, f[i].len ? f[i].len :
							   strlen(f[i].text))) TH_LOG("case %zu", i);
}

/* A trace.dat with such a format: refused with a message, not a crash */
TEST_F(bounds, tracedat_with_cut_array_field_refused)
{
	static const char bad[] = "name: crash\nID: 999\nformat:\n\tfield:char x[";
	const char *bin = getenv("POWERPIN_BIN") ? getenv("POWERPIN_BIN") : "build/bin/powerpin";
	struct report r;
	struct tdat w;
	char err[160];
	int k;

	ASSERT_EQ(0, tdat_open(&w, 1));
	w.extra_format = bad;
	w.extra_format_len = strlen(bad);
	for (k = 0; k < 10; k++)
		tdat_battery(&w, 0, 5000000000ULL + k * 10000000ULL, 77, k + 1, 3800000, -500000, 0, 0);
	ASSERT_EQ(0, tdat_close(&w, self->path));
	EXPECT_EQ(-1, report_path(self, &r));
	EXPECT_NE(NULL, strstr(self->err,
			       "trace: event format extra:crash has an array field cut off after its '[': libtraceevent (1.7.1 to 1.8.4) crashes reading it, so the file is refused"))
		TH_LOG("%s", self->err);
	report_free(&r);
	if (access(bin, X_OK))
		SKIP(return, "powerpin not built");
	snprintf(err, sizeof(err), "%s/err", self->dir);
	EXPECT_EQ(1, sh("%s report %s 2>%s", bin, self->path, err));
	EXPECT_TRUE(file_has(err, "event format extra:crash has an array field cut off"));
}

/*
 * A trace.dat (found by the fuzzer) whose pages chain round in a loop:
 * libtracecmd would deliver the same records for minutes; the reader sees
 * a record at or before the previous one of its CPU and refuses the file.
 */
TEST_F(bounds, tracedat_pages_in_a_loop_refused)
{
	static const char *const loop = "selftests/fuzz/corpus/tracedat/pages-in-a-loop";
	struct report r;

	if (access(loop, R_OK))
		SKIP(return, "%s missing (run from the tree's top)", loop);
	snprintf(self->path, sizeof(self->path), "%s", loop);
	/* (before, the harness's 30 s timeout ended it first) */
	EXPECT_EQ(-1, report_path(self, &r));
	EXPECT_NE(NULL, strstr(self->err, "corrupt: a CPU's pages go round in a loop"))
		TH_LOG("%s", self->err);
	report_free(&r);
}

TEST(unsafe_printk_formats)
{
	EXPECT_FALSE(trace_printk_formats_unsafe(""));
	EXPECT_FALSE(trace_printk_formats_unsafe("0xffffffff82a1b2c8 : \"rcu_sched\"\n"));
	EXPECT_FALSE(trace_printk_formats_unsafe("ffff : \"\\n\"\n\n:::\n"));
	/* no ':' (the library copies from past the end), or nothing after it */
	EXPECT_TRUE(trace_printk_formats_unsafe("ffffffff81000000\n"));
	EXPECT_TRUE(trace_printk_formats_unsafe("0 : \"ok fmt\"\nffff:"));
	/* a format shorter than 3 bytes: the library reads before it */
	EXPECT_TRUE(trace_printk_formats_unsafe("ffff : \"\"\n"));
	EXPECT_TRUE(trace_printk_formats_unsafe("ffff : ab\n"));
}

/* A trace.dat whose printk formats the library would read past: still read */
TEST_F(bounds, tracedat_with_bad_printk_formats_is_read)
{
	struct report r;
	struct tdat w;
	int k;

	ASSERT_EQ(0, tdat_open(&w, 1));
	w.printk = "ffffffff81000000 : \"a good one\"\nffffffff81000008\nffffffff81000010 : \"\"\n";
	for (k = 0; k < 10; k++)
		tdat_battery(&w, 0, 5000000000ULL + k * 10000000ULL, 77, k + 1, 3800000, -500000, 0, 0);
	ASSERT_EQ(0, tdat_close(&w, self->path));
	ASSERT_EQ(0, report_path(self, &r)) TH_LOG("%s", self->err);
	EXPECT_EQ(10U, r.samples);
	report_free(&r);
}

TEST_HARNESS_MAIN
