// SPDX-License-Identifier: GPL-2.0
/*
 * powerpin report on trace.dat files generated on the host (the layout
 * trace-cmd record writes, built by selftests/report_tracedat.h): the known
 * answers through libtracecmd, lost events, truncation at any point,
 * agreement with trace-cmd's own text of the same file, and its version 7
 * conversion with an idle last CPU.
 */
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <kselftest_harness.h>
#include <trace-cmd/trace-cmd.h>

#include "cmd_helpers.h"
#include "report/report.h"
#include "report_gen.h"
#include "report_tracedat.h"

#define MS	1000000ULL
#define SEC	1000000000ULL
#define T0	(500 * SEC + 250 * MS)

FIXTURE(dat) {
	char dir[64];
	char path[128];
	struct tdat w;
	struct report r;
	char err[512];
};

FIXTURE_SETUP(dat)
{
	strcpy(self->dir, "/tmp/powerpin-report-XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	snprintf(self->path, sizeof(self->path), "%s/trace.dat", self->dir);
	ASSERT_EQ(0, tdat_open(&self->w, 2));
	tdat_comm(&self->w, 77, "powerpin-sample");
	memset(&self->r, 0, sizeof(self->r));
}

FIXTURE_TEARDOWN(dat)
{
	report_free(&self->r);
	if (sh("rm -rf %s", self->dir))
		TH_LOG("could not remove %s", self->dir);
}

static int run(struct __test_metadata *_metadata, FIXTURE_DATA(dat) *self, const char *path)
{
	int ret;

	if (report_init(&self->r, NULL))
		return -1;
	ret = report_run(&self->r, path, self->err, sizeof(self->err));
	if (ret)
		TH_LOG("report: %s", self->err);
	return ret;
}

/* 3.8 V, 500 mA discharge, 10 s at 100 Hz */
static void constant_capture(struct tdat *w)
{
	int k;

	for (k = 0; k <= 1000; k++)
		tdat_battery(w, k % 2, T0 + k * 10 * MS, 77, k, 3800000, -500000,
			     llround(2500000 - 500000 * (k * 0.01) / 3600), 0);
}

TEST_F(dat, constant_19_joules)
{
	constant_capture(&self->w);
	ASSERT_EQ(0, tdat_close(&self->w, self->path));
	ASSERT_EQ((int)TRACE_FORMAT_TRACEDAT, (int)trace_input_detect(self->path, self->err,
								     sizeof(self->err)));
	ASSERT_EQ(0, run(_metadata, self, self->path));
	EXPECT_EQ(1001U, self->r.samples);
	EXPECT_NEAR(10.0, self->r.duration_s, 1e-9);
	EXPECT_NEAR(19.0, self->r.energy_j, 1e-9);
	EXPECT_NEAR(19.0, self->r.energy_from_charge_j, 19.0 * 0.005);
	EXPECT_STREQ("discharge-negative", self->r.sign_name);
	EXPECT_EQ(0U, self->r.seq_gaps);
	EXPECT_EQ(0U, self->r.lost_events);
	EXPECT_EQ(2, self->r.nr_cpus_hint);
}

/* Two CPUs: process 100 busy on CPU 0, process 200 a third of CPU 1 */
TEST_F(dat, attribution_75_25)
{
	double a, b, idle, other;
	uint64_t t;
	int k;

	tdat_comm(&self->w, 100, "worker");
	tdat_comm(&self->w, 200, "spin");
	tdat_switch(&self->w, 0, T0 - 5 * MS, "swapper/0", 0, "worker", 100);
	tdat_switch(&self->w, 1, T0 - 5 * MS, "swapper/1", 0, "spin", 200);
	/* per CPU in time order: CPU 1's switches, CPU 0 carries the samples */
	for (t = T0; t < T0 + 10 * SEC; t += 30 * MS) {
		tdat_switch(&self->w, 1, t + 5 * MS, "spin", 200, "swapper/1", 0);
		tdat_switch(&self->w, 1, t + 25 * MS, "swapper/1", 0, "spin", 200);
	}
	for (k = 0; k <= 1000; k++)
		tdat_battery(&self->w, 0, T0 + k * 10 * MS, 77, k, 4000000, -500000, 0, 0);
	ASSERT_EQ(0, tdat_close(&self->w, self->path));
	ASSERT_EQ(0, run(_metadata, self, self->path));

	EXPECT_NEAR(20.0, self->r.energy_j, 1e-9);
	ASSERT_EQ(2U, self->r.nr_processes);
	EXPECT_EQ(100, self->r.processes[0].tgid);
	EXPECT_STREQ("worker", self->r.processes[0].comm);
	EXPECT_EQ(200, self->r.processes[1].tgid);
	EXPECT_STREQ("spin", self->r.processes[1].comm);
	a = self->r.processes[0].energy_j;
	b = self->r.processes[1].energy_j;
	idle = self->r.sign * self->r.idle_energy;
	other = self->r.sign * self->r.other_energy;
	EXPECT_NEAR(0.75, a / (a + b), 0.005);
	EXPECT_NEAR(10.0, a, 1e-6);
	EXPECT_NEAR(0.0, other, 1e-9);
	EXPECT_NEAR(20.0, a + b + idle + other, 1e-9);
}

/* Slices, counters and markers from ftrace:print records */
TEST_F(dat, slices_from_print_events)
{
	const struct report_slice_stat *s;
	int k, found = 0;
	uint32_t i;

	tdat_print(&self->w, 1, T0 + 1 * SEC, 600, "powerpin:warmup");
	tdat_print(&self->w, 1, T0 + 2 * SEC, 501, "B|500|load");
	tdat_print(&self->w, 1, T0 + 4 * SEC, 501, "E|500");
	tdat_print(&self->w, 1, T0 + 5 * SEC, 501, "C|500|queue|9");
	tdat_print(&self->w, 1, T0 + 6 * SEC, 600, "powerpin:measure");
	for (k = 0; k <= 1000; k++)
		tdat_battery(&self->w, 0, T0 + k * 10 * MS, 77, k, 4000000, -500000, 0, 0);
	ASSERT_EQ(0, tdat_close(&self->w, self->path));
	ASSERT_EQ(0, run(_metadata, self, self->path));

	for (i = 0; i < self->r.nr_slice_stats; i++) {
		s = &self->r.slice_stats[i];
		if (!strcmp(s->name, "load")) {
			EXPECT_NEAR(4.0, self->r.sign * s->energy, 1e-9);
			found++;
		} else if (!strcmp(s->name, "warmup")) {
			EXPECT_NEAR(10.0, self->r.sign * s->energy, 1e-9);
			found++;
		} else if (!strcmp(s->name, "measure")) {
			EXPECT_NEAR(8.0, self->r.sign * s->energy, 1e-9);
			found++;
		}
	}
	EXPECT_EQ(3, found);
	ASSERT_EQ(1U, self->r.nr_counters);
	EXPECT_STREQ("queue", self->r.counters[0].name);
	EXPECT_EQ(9, self->r.counters[0].last);
}

/* Pages flagged with missed events are counted, not hidden */
TEST_F(dat, lost_events)
{
	int k;

	for (k = 0; k < 100; k++) {
		if (k == 40)
			tdat_lost(&self->w, 0, 17);
		if (k == 70)
			tdat_lost(&self->w, 0, 5);
		tdat_battery(&self->w, 0, T0 + k * 10 * MS, 77, k < 40 ? k : k + 2, 4000000,
			     -100000, 0, 0);
	}
	ASSERT_EQ(0, tdat_close(&self->w, self->path));
	ASSERT_EQ(0, run(_metadata, self, self->path));
	EXPECT_EQ(22U, self->r.lost_events);
	EXPECT_EQ(2U, self->r.seq_gaps);
	EXPECT_EQ(100U, self->r.samples);
}

/* The kernel's counters stored in the file: per CPU, or powerpin's total */
TEST_F(dat, lost_events_kernel_counters)
{
	int k;

	tdat_cpustat(&self->w, "CPU: 0\nentries: 10\noverrun: 5\ncommit overrun: 3\nbytes: 0\n"
			       "dropped events: 2\nread events: 0\n");
	tdat_cpustat(&self->w, "CPU: 1\nentries: 10\noverrun: 1\ncommit overrun: 0\nbytes: 0\n"
			       "dropped events: 0\nread events: 0\n");
	for (k = 0; k < 10; k++)
		tdat_battery(&self->w, 0, T0 + k * 10 * MS, 77, k, 4000000, -100000, 0, 0);
	ASSERT_EQ(0, tdat_close(&self->w, self->path));
	ASSERT_EQ(0, run(_metadata, self, self->path));
	EXPECT_TRUE(self->r.have_lost_kernel);
	/* overruns and drops; "commit overrun" is not a loss of its own */
	EXPECT_EQ(8U, self->r.lost_kernel);
	EXPECT_EQ(8U, self->r.lost_events);
	EXPECT_EQ(0U, self->r.lost_in_stream);
	report_free(&self->r);

	/* powerpin record's line is the capture's own delta and wins */
	ASSERT_EQ(0, tdat_open(&self->w, 2));
	tdat_cpustat(&self->w, "CPU: 0\nentries: 10\noverrun: 500\ndropped events: 0\n");
	tdat_cpustat(&self->w, "powerpin: lost_events=3 pages=1 bytes=4096 duration_ns=100 samples=10\n");
	tdat_lost(&self->w, 0, 2);
	for (k = 0; k < 10; k++)
		tdat_battery(&self->w, 0, T0 + k * 10 * MS, 77, k, 4000000, -100000, 0, 0);
	ASSERT_EQ(0, tdat_close(&self->w, self->path));
	ASSERT_EQ(0, run(_metadata, self, self->path));
	EXPECT_EQ(3U, self->r.lost_kernel);
	EXPECT_EQ(2U, self->r.lost_in_stream);
	EXPECT_EQ(3U, self->r.lost_events);
}

/* Cut anywhere, a trace.dat is refused with a message naming it */
TEST_F(dat, truncated_anywhere)
{
	static const double cuts[] = { 0.001, 0.01, 0.1, 0.5, 0.9, 0.999 };
	char cut[160], cmd[400];
	struct stat st;
	size_t i;

	constant_capture(&self->w);
	ASSERT_EQ(0, tdat_close(&self->w, self->path));
	ASSERT_EQ(0, stat(self->path, &st));
	snprintf(cut, sizeof(cut), "%s/cut.dat", self->dir);
	for (i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
		struct report r;
		char err[512];

		snprintf(cmd, sizeof(cmd), "head -c %lld %s > %s",
			 (long long)(st.st_size * cuts[i]), self->path, cut);
		ASSERT_EQ(0, system(cmd));
		ASSERT_EQ(0, report_init(&r, NULL));
		EXPECT_EQ(-1, report_run(&r, cut, err, sizeof(err))) TH_LOG("cut at %g", cuts[i]);
		EXPECT_NE(NULL, strstr(err, "cut.dat: ")) TH_LOG("cut at %g: %s", cuts[i], err);
		report_free(&r);
	}
}

/* @len bytes of @buf as the file @path; aborts when it cannot. */
static void put_bytes(const char *path, const char *buf, size_t len)
{
	FILE *f = fopen(path, "wb");

	if (!f || fwrite(buf, 1, len, f) != len || fclose(f))
		abort();
}

/*
 * report_run() on @path in a child: its wait status.  The child exits 0
 * when the report is made, 1 when it is refused with a message naming
 * the file, 2 when it is refused without one.
 */
static int report_in_child(const char *path)
{
	int status;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		struct report r;
		char err[512] = "";
		int ret;

		alarm(60);
		if (report_init(&r, NULL))
			_exit(3);
		ret = report_run(&r, path, err, sizeof(err));
		_exit(!ret ? 0 : strstr(err, path) ? 1 : 2);
	}
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return status;
}

/*
 * One flipped bit anywhere in the headers and event formats (everything
 * before the CPU data's "flyrecord"), and a page size of 0: a report or one
 * line naming the file, never a crash.  libtraceevent's format parser
 * crashes (SIGSEGV, SIGFPE) on many of these; trace-cmd report too.
 */
TEST_F_TIMEOUT(dat, corrupt_headers_never_crash, 300)
{
	char flip[160], *buf, *fly;
	int crashed = 0, refused = 0, status, k;
	size_t len, i;

	/* a second of samples: the time goes to the headers, not the data */
	for (k = 0; k <= 100; k++)
		tdat_battery(&self->w, k % 2, T0 + k * 10 * MS, 77, k, 3800000, -500000, 2500000, 0);
	ASSERT_EQ(0, tdat_close(&self->w, self->path));
	buf = read_whole(self->path, &len);
	ASSERT_NE(NULL, buf);
	fly = memmem(buf, len, "flyrecord", 9);
	ASSERT_NE(NULL, fly);
	snprintf(flip, sizeof(flip), "%s/flip.dat", self->dir);
	/* every byte, one bit each (bit i % 8); then the page size, 0 */
	for (i = 0; i <= (size_t)(fly - buf); i++) {
		bool page0 = i == (size_t)(fly - buf);
		uint32_t page = 0, old = 0;

		if (page0) {
			/* magic (10), "6\0", endian, long size, then the page size */
			memcpy(&old, buf + 14, 4);
			memcpy(buf + 14, &page, 4);
		} else {
			buf[i] ^= 1 << (i % 8);
		}
		put_bytes(flip, buf, len);
		if (page0)
			memcpy(buf + 14, &old, 4);
		else
			buf[i] ^= 1 << (i % 8);
		status = report_in_child(flip);
		ASSERT_NE(-1, status);
		if (WIFSIGNALED(status)) {
			if (crashed++ < 8)
				TH_LOG("byte %zu bit %zu: %s", i, i % 8, strsignal(WTERMSIG(status)));
			continue;
		}
		EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) <= 1)
			TH_LOG("byte %zu bit %zu: status 0x%x", i, i % 8, status);
		refused += WEXITSTATUS(status) == 1;
	}
	free(buf);
	EXPECT_EQ(0, crashed);
	/* most flips in a format are caught, not read as garbage */
	EXPECT_LT(100, refused);
}

/*
 * CPU 0's data offset pointing past the file: libtracecmd prints its own
 * "mmap: Invalid argument" and "Can not mmap file" lines whatever its log
 * level; powerpin report's stderr is its one line naming the file.
 */
TEST_F(dat, corrupt_cpu_offset_one_line)
{
	char bad[160], cmd[512], out[2048] = "";
	char *buf, *fly, *nl;
	size_t len;
	FILE *p;
	int k;

	if (access("build/bin/powerpin", X_OK))
		SKIP(return, "build/bin/powerpin not built (make userspace)");
	/* 0.2 s: each CPU's data one page */
	for (k = 0; k <= 20; k++)
		tdat_battery(&self->w, k % 2, T0 + k * 10 * MS, 77, k, 3800000, -500000, 2500000, 0);
	ASSERT_EQ(0, tdat_close(&self->w, self->path));
	buf = read_whole(self->path, &len);
	ASSERT_NE(NULL, buf);
	fly = memmem(buf, len, "flyrecord", 9);
	ASSERT_NE(NULL, fly);
	fly[9 + 2] ^= 0x08;	/* CPU 0's offset (u64 LE after the word) + 512 KiB */
	snprintf(bad, sizeof(bad), "%s/bad.dat", self->dir);
	put_bytes(bad, buf, len);
	free(buf);
	snprintf(cmd, sizeof(cmd), "build/bin/powerpin report %s 2>&1 >/dev/null; echo status $?", bad);
	p = popen(cmd, "r");
	ASSERT_NE(NULL, p);
	len = fread(out, 1, sizeof(out) - 1, p);
	out[len] = '\0';
	pclose(p);
	EXPECT_EQ(0, strncmp(out, "powerpin report: ", 17)) TH_LOG("%s", out);
	nl = strchr(out, '\n');
	ASSERT_NE(NULL, nl);
	EXPECT_STREQ("status 1\n", nl + 1) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "bad.dat: unreadable trace.dat")) TH_LOG("%s", out);
}

/*
 * A page that cannot be read in the middle of a CPU's data: libtracecmd
 * ends that CPU there as if it were the end, so the reader must notice
 * that it did not get to the CPU's last record.
 */
TEST_F(dat, unreadable_page_midway)
{
	uint64_t commit = 0x7fffffff;
	struct report r;
	char err[512];
	FILE *f;

	constant_capture(&self->w);
	ASSERT_EQ(0, tdat_close(&self->w, self->path));
	/* each page holds 50-odd samples: CPU 0 has 10 pages */
	ASSERT_GE(self->w.cpu[0].pages, 5U);
	ASSERT_EQ(0, report_init(&r, NULL));
	ASSERT_EQ(0, report_run(&r, self->path, err, sizeof(err))) TH_LOG("%s", err);
	report_free(&r);

	f = fopen(self->path, "r+");
	ASSERT_NE(NULL, f);
	ASSERT_EQ(0, fseek(f, self->w.cpu[0].file_offset + 3 * TDAT_PAGE + 8, SEEK_SET));
	ASSERT_EQ(1U, fwrite(&commit, 8, 1, f));
	ASSERT_EQ(0, fclose(f));
	ASSERT_EQ(0, report_init(&r, NULL));
	EXPECT_EQ(-1, report_run(&r, self->path, err, sizeof(err)));
	TH_LOG("%s", err);
	EXPECT_NE(NULL, strstr(err, "trace.dat: unreadable trace.dat (corrupt: CPU 0's data stops"));
	report_free(&r);
}

/* trace-cmd's text of the same file gives the same report */
TEST_F(dat, agrees_with_trace_cmd_text)
{
	char txt[160], cmd[400];
	struct report t;
	uint64_t ts;
	int k;

	if (system("command -v trace-cmd >/dev/null"))
		SKIP(return, "trace-cmd not installed");
	tdat_comm(&self->w, 100, "worker");
	for (ts = T0; ts < T0 + 2 * SEC; ts += 7 * MS)
		tdat_switch(&self->w, 1, ts, (ts / MS) % 2 ? "worker" : "swapper/1",
			    (ts / MS) % 2 ? 100 : 0, (ts / MS) % 2 ? "swapper/1" : "worker",
			    (ts / MS) % 2 ? 0 : 100);
	for (k = 0; k <= 200; k++)
		tdat_battery(&self->w, 0, T0 + k * 10 * MS, 77, k, 4000000 - k * 100,
			     -300000 - (k % 9) * 1000, 1000 - k / 50, 0);
	ASSERT_EQ(0, tdat_close(&self->w, self->path));
	snprintf(txt, sizeof(txt), "%s/trace.txt", self->dir);
	snprintf(cmd, sizeof(cmd), "trace-cmd report -i %s > %s 2>/dev/null", self->path, txt);
	ASSERT_EQ(0, system(cmd));

	ASSERT_EQ(0, run(_metadata, self, self->path));
	ASSERT_EQ(0, report_init(&t, NULL));
	ASSERT_EQ(0, report_run(&t, txt, self->err, sizeof(self->err))) TH_LOG("%s", self->err);
	EXPECT_EQ(self->r.samples, t.samples);
	EXPECT_EQ(self->r.switches, t.switches);
	/* timestamps are whole microseconds here, so the text loses nothing */
	EXPECT_NEAR(self->r.energy_j, t.energy_j, 1e-9);
	EXPECT_NEAR(self->r.power_w.p95, t.power_w.p95, 1e-12);
	ASSERT_EQ(self->r.nr_processes, t.nr_processes);
	EXPECT_NEAR(self->r.processes[0].energy_j, t.processes[0].energy_j, 1e-9);
	report_free(&t);
}

static long vm_hwm_kb(void)
{
	char line[128];
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmHWM: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

/*
 * libtracecmd keeps the file mapped; the reader drops the pages it has
 * read, so the peak resident set does not follow the file's size.
 */
TEST_F(dat, memory_flat_on_long_capture)
{
	long before, after;
	struct stat st;
	uint64_t t, sw[2] = { T0, T0 + 777 * 1000 };
	int k = 0, cpu;

	for (t = T0; t < T0 + 1200 * SEC; t += 10 * MS) {
		for (cpu = 0; cpu < 2; cpu++)
			for (; sw[cpu] < t; sw[cpu] += 5 * MS)
				tdat_switch(&self->w, cpu, sw[cpu], "a", 100 + cpu, "b", 200 + cpu);
		tdat_battery(&self->w, 0, t, 77, k++, 4000000, -500000, 0, 0);
	}
	ASSERT_EQ(0, tdat_close(&self->w, self->path));
	ASSERT_EQ(0, stat(self->path, &st));
	ASSERT_GT(st.st_size, 40L << 20);
	before = vm_hwm_kb();
	ASSERT_EQ(0, run(_metadata, self, self->path));
	after = vm_hwm_kb();
	TH_LOG("%lld MiB trace.dat: peak RSS %ld -> %ld KiB", (long long)st.st_size >> 20,
	       before, after);
	EXPECT_EQ(120000U, self->r.samples);
	EXPECT_NEAR(2.0 * 1199.99, self->r.energy_j, 1e-6);
	EXPECT_LT(after - before, 16L << 10);
}

/*
 * libtracecmd's tracecmd_read_cpu_last() takes any @cpu and reads past its
 * array for a CPU the file has no data of.  Exported, declared privately
 * (as in trace_input_dat.c).  This program's definition stands in front of
 * the library's: such a call is counted and not passed on.
 */
off_t tracecmd_get_cpu_file_size(struct tracecmd_input *handle, int cpu);
static int cpu_last_past_data;

struct tep_record *tracecmd_read_cpu_last(struct tracecmd_input *handle, int cpu)
{
	static struct tep_record *(*library)(struct tracecmd_input *, int);

	if (tracecmd_get_cpu_file_size(handle, cpu) < 0) {
		cpu_last_past_data++;
		return NULL;
	}
	if (!library)
		library = (struct tep_record *(*)(struct tracecmd_input *, int))
			  dlsym(RTLD_NEXT, "tracecmd_read_cpu_last");
	return library ? library(handle, cpu) : NULL;
}

/*
 * A version 7 file (what powerpin record writes) whose last CPU recorded
 * nothing: its BUFFER option lists CPU 0 alone, its CPUCOUNT says 2.  The
 * reader reads it whole and asks for the last record of CPU 0 only (the
 * 32-bit static powerpin aborted in realloc() on such a capture).
 */
TEST_F(dat, v7_file_with_an_idle_last_cpu)
{
	char v7[160], cmd[640];
	int k;

	if (system("command -v trace-cmd >/dev/null"))
		SKIP(return, "trace-cmd not installed");
	for (k = 0; k <= 100; k++) {
		tdat_battery(&self->w, 0, T0 + k * 10 * MS, 77, k, 3800000, -500000, 2500000, 0);
		if (!k)
			tdat_switch(&self->w, 0, T0 + 5 * MS, "swapper/0", 0, "app", 500);
	}
	ASSERT_EQ(0, tdat_close(&self->w, self->path));
	snprintf(v7, sizeof(v7), "%s/v7.dat", self->dir);
	snprintf(cmd, sizeof(cmd),
		 "trace-cmd convert --file-version 7 --compression zstd -i %s -o %s >/dev/null 2>&1 &&"
		 " trace-cmd dump --flyrecord %s 2>/dev/null | grep -q '^1 \\[CPUs\\]'",
		 self->path, v7, v7);
	ASSERT_EQ(0, system(cmd)) TH_LOG("trace-cmd convert did not make a v7 file listing one CPU");

	cpu_last_past_data = 0;
	ASSERT_EQ(0, run(_metadata, self, v7));
	EXPECT_EQ(0, cpu_last_past_data);
	EXPECT_EQ(101U, self->r.samples);
	EXPECT_EQ(1U, self->r.switches);
	EXPECT_NEAR(1.9, self->r.energy_j, 1e-6);
}

TEST_HARNESS_MAIN
