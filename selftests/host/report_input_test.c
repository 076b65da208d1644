// SPDX-License-Identifier: GPL-2.0
/*
 * powerpin report inputs: every text line shape the readers meet (the
 * kernel's `trace` file, trace-cmd report, the seed's lines), the bad-input
 * table through the CLI (message and exit status), and the output files.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
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

#define POWERPIN	"build/bin/powerpin"

/* ---- line parser, with lines as the tools print them ---------------------- */

TEST(parse_trace_file_battery)
{
	char line[] = " powerpin-sample-168   [000] .....    32.022174: battery: seq=1 voltage_uv=4014375 current_ua=-300000 charge_uah=2399000 power_uw=-1204312 current_avg_ua=-300000 capacity=79 temp_dc=250 read_ns=135799 flags=0x11\n";
	struct trace_event ev;

	ASSERT_EQ(1, trace_text_parse_line(line, &ev));
	EXPECT_EQ((int)TRACE_EV_POWER, (int)ev.kind);
	EXPECT_EQ(32022174000ULL, ev.ts_ns);
	EXPECT_EQ(168, ev.pid);
	EXPECT_EQ(-1, ev.tgid);
	EXPECT_STREQ("powerpin-sample", ev.comm);
	EXPECT_EQ(4014375, ev.power.voltage_uv);
	EXPECT_EQ(-300000, ev.power.current_ua);
	EXPECT_EQ(2399000, ev.power.charge_uah);
	EXPECT_EQ(1U, ev.power.seq);
	EXPECT_EQ(0x11U, ev.power.flags);
	EXPECT_EQ(TRACE_POWER_HAS_CHARGE | TRACE_POWER_HAS_SEQ | TRACE_POWER_HAS_FLAGS |
		  TRACE_POWER_HAS_CAPACITY | TRACE_POWER_HAS_TEMP | TRACE_POWER_HAS_CURRENT_AVG,
		  ev.power.has);
	EXPECT_EQ(79, ev.power.capacity);
	EXPECT_EQ(250, ev.power.temp_dc);
	EXPECT_EQ(-300000, ev.power.current_avg_ua);
}

/* prev_state as sched_switch prints it, whatever the kernel's bits */
TEST(task_state_letters)
{
	EXPECT_EQ(0U, trace_task_state_parse("R", 1));
	EXPECT_EQ(TRACE_TASK_PREEMPTED, trace_task_state_parse("R+", 2));
	EXPECT_EQ(TRACE_TASK_S, trace_task_state_parse("S", 1));
	EXPECT_EQ(TRACE_TASK_D | TRACE_TASK_K, trace_task_state_parse("D|K", 3));
	EXPECT_EQ(TRACE_TASK_I, trace_task_state_parse("I", 1));
	EXPECT_EQ(TRACE_TASK_x | TRACE_TASK_N, trace_task_state_parse("x|N", 3));
	EXPECT_EQ(TRACE_TASK_UNKNOWN, trace_task_state_parse("0", 1));
	EXPECT_EQ(TRACE_TASK_UNKNOWN, trace_task_state_parse("", 0));
}

/* A trace.dat's UNAME option: "SYSNAME NODENAME RELEASE MACHINE" */
TEST(kernel_from_uname_option)
{
	char long_word[80], text[128];
	struct trace_kernel_info k;

	ASSERT_EQ(0, trace_kernel_parse("Linux buildhost 6.12.38+deb13-amd64 x86_64", &k));
	EXPECT_STREQ("Linux", k.sysname);
	EXPECT_STREQ("6.12.38+deb13-amd64", k.release);
	EXPECT_STREQ("x86_64", k.machine);
	/* an empty host name, or one with a space: the last two words still */
	ASSERT_EQ(0, trace_kernel_parse("Linux  4.9.337 armv7l\n", &k));
	EXPECT_STREQ("4.9.337", k.release);
	EXPECT_STREQ("armv7l", k.machine);
	ASSERT_EQ(0, trace_kernel_parse("Linux my host 3.10.105 armv7l", &k));
	EXPECT_STREQ("Linux", k.sysname);
	EXPECT_STREQ("3.10.105", k.release);
	/* too few words, none, or one longer than uname's: not a kernel */
	EXPECT_EQ(-1, trace_kernel_parse("Linux 6.1.0", &k));
	EXPECT_STREQ("", k.release);
	EXPECT_EQ(-1, trace_kernel_parse("", &k));
	EXPECT_EQ(-1, trace_kernel_parse(NULL, &k));
	memset(long_word, '6', sizeof(long_word) - 1);
	long_word[sizeof(long_word) - 1] = '\0';
	EXPECT_EQ(-1, trace_kernel_parse(long_word, &k));
	snprintf(text, sizeof(text), "Linux h %s x86_64", long_word);
	EXPECT_EQ(-1, trace_kernel_parse(text, &k));
	EXPECT_STREQ("", k.sysname);
}

TEST(parse_fork_and_exit)
{
	char fork[] = "            bash-1234    [001] d..2.   50.000100: sched_process_fork: comm=bash pid=1234 child_comm=bash child_pid=1240\n";
	char exit[] = "              ls-1240    [000] d..2.   50.100000: sched_process_exit: comm=ls pid=1240 prio=120\n";
	struct trace_event ev;

	ASSERT_EQ(1, trace_text_parse_line(fork, &ev));
	EXPECT_EQ((int)TRACE_EV_FORK, (int)ev.kind);
	EXPECT_EQ(1234, ev.fork.parent_pid);
	EXPECT_EQ(1240, ev.fork.child_pid);
	EXPECT_STREQ("bash", ev.fork.parent_comm);
	EXPECT_STREQ("bash", ev.fork.child_comm);
	ASSERT_EQ(1, trace_text_parse_line(exit, &ev));
	EXPECT_EQ((int)TRACE_EV_EXIT, (int)ev.kind);
	EXPECT_EQ(1240, ev.exit.pid);
	EXPECT_EQ(120, ev.exit.prio);
	EXPECT_STREQ("ls", ev.exit.comm);
}

TEST(parse_trace_cmd_report_lines)
{
	char sw[] = "     kworker/1:2-65    [001]    32.007308: sched_switch:         kworker/1:2:65 [120] W ==> trace-cmd:174 [120]\n";
	char bat[] = " powerpin-sample-168   [000]    32.039858: battery:              seq=2 voltage_uv=4014375 current_ua=-300000 charge_uah=2399000 power_uw=-1204312 current_avg_ua=-300000 capacity=79 temp_dc=250 read_ns=38614 flags=0x1\n";
	char ctr[] = " powerpin-sample-168   [000]    32.022292: counter:              track_name=voltage_uv counter_value=4014375\n";
	char print[] = "            app-501   [001]    40.000100: print:                tracing_mark_write: B|500|load\n";
	char head[] = "cpus=2\n";
	struct trace_event ev;

	ASSERT_EQ(1, trace_text_parse_line(sw, &ev));
	EXPECT_EQ((int)TRACE_EV_SWITCH, (int)ev.kind);
	EXPECT_EQ(1, ev.cpu);
	EXPECT_EQ(65, ev.sw.prev_pid);
	EXPECT_EQ(174, ev.sw.next_pid);
	EXPECT_STREQ("kworker/1:2", ev.sw.prev_comm);
	EXPECT_STREQ("trace-cmd", ev.sw.next_comm);
	EXPECT_EQ(120, ev.sw.prev_prio);
	EXPECT_EQ(120, ev.sw.next_prio);
	EXPECT_EQ(TRACE_TASK_W, ev.sw.prev_state);

	ASSERT_EQ(1, trace_text_parse_line(bat, &ev));
	EXPECT_EQ(32039858000ULL, ev.ts_ns);
	EXPECT_EQ(1U, ev.power.flags);

	ASSERT_EQ(1, trace_text_parse_line(ctr, &ev));
	EXPECT_EQ((int)TRACE_EV_COUNTER, (int)ev.kind);
	EXPECT_STREQ("voltage_uv", ev.counter.track);
	EXPECT_EQ(4014375, ev.counter.value);

	ASSERT_EQ(1, trace_text_parse_line(print, &ev));
	EXPECT_EQ((int)TRACE_EV_MARK, (int)ev.kind);
	EXPECT_EQ(10U, ev.mark.len);
	EXPECT_EQ(0, strncmp("B|500|load", ev.mark.text, 10));

	EXPECT_EQ(0, trace_text_parse_line(head, &ev));
}

TEST(parse_kernel_trace_switch_and_marker)
{
	char sw[] = "          <idle>-0       [000] d..2.    42.797848: sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=kworker/0:2 next_pid=54 next_prio=120\n";
	char mark[] = "  Binder:303_2-311   (    303) [001] ...1. 457.198279: tracing_mark_write: B|303|hwc set external\n";
	char lost[] = "CPU:1 [LOST 1234 EVENTS]\n";
	struct trace_event ev;

	ASSERT_EQ(1, trace_text_parse_line(sw, &ev));
	EXPECT_EQ(0, ev.sw.prev_pid);
	EXPECT_EQ(54, ev.sw.next_pid);
	EXPECT_STREQ("swapper/0", ev.sw.prev_comm);
	EXPECT_STREQ("kworker/0:2", ev.sw.next_comm);
	EXPECT_EQ(0U, ev.sw.prev_state);
	EXPECT_EQ(120, ev.sw.prev_prio);
	EXPECT_EQ(42797848000ULL, ev.ts_ns);

	ASSERT_EQ(1, trace_text_parse_line(mark, &ev));
	EXPECT_EQ(311, ev.pid);
	EXPECT_EQ(303, ev.tgid);
	EXPECT_STREQ("Binder:303_2", ev.comm);
	EXPECT_EQ(457198279000ULL, ev.ts_ns);
	EXPECT_EQ(strlen("B|303|hwc set external"), ev.mark.len);

	ASSERT_EQ(1, trace_text_parse_line(lost, &ev));
	EXPECT_EQ((int)TRACE_EV_LOST, (int)ev.kind);
	EXPECT_EQ(1234U, ev.lost.count);
}

TEST(parse_seed_line)
{
	char line[] = "periodic_power-3003    ( 3003)    [000]    .... 574.487676: write_power_ringbuffer: v:4380937 c:530056 e:-203095456\n";
	char bad[] = "periodic_power-3003    ( 3003)    [000]    .... 574.487676: write_power_ringbuffer: v:4380937\n";
	struct trace_event ev;

	ASSERT_EQ(1, trace_text_parse_line(line, &ev));
	EXPECT_EQ((int)TRACE_EV_POWER, (int)ev.kind);
	EXPECT_EQ(574487676000ULL, ev.ts_ns);
	EXPECT_EQ(3003, ev.tgid);
	EXPECT_EQ(4380937, ev.power.voltage_uv);
	EXPECT_EQ(530056, ev.power.current_ua);
	EXPECT_EQ(-203095456, ev.power.charge_uah);
	EXPECT_EQ(TRACE_POWER_HAS_CHARGE, ev.power.has);
	/* a power line without its numbers is malformed, not skipped */
	EXPECT_EQ(-1, trace_text_parse_line(bad, &ev));
}

/* ---- the CLI on bad input ------------------------------------------------ */

FIXTURE(cli) {
	char dir[64];
	char in[128];
	char out[128];
	char err[4096];
	int status;
};

FIXTURE_SETUP(cli)
{
	if (access(POWERPIN, X_OK))
		SKIP(return, "%s not built (make userspace)", POWERPIN);
	strcpy(self->dir, "/tmp/powerpin-report-XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	snprintf(self->in, sizeof(self->in), "%s/input", self->dir);
	snprintf(self->out, sizeof(self->out), "%s/out.json", self->dir);
}

FIXTURE_TEARDOWN(cli)
{
	if (self->dir[0] && sh("rm -rf %s", self->dir))
		TH_LOG("could not remove %s", self->dir);
}

/* Run `powerpin report ARGS`; stderr lands in self->err; returns exit status. */
static int report_cli(FIXTURE_DATA(cli) *self, const char *args)
{
	char cmd[1024], path[160];
	FILE *f;
	size_t n;
	int st;

	snprintf(path, sizeof(path), "%s/stderr", self->dir);
	snprintf(cmd, sizeof(cmd), "%s report %s >/dev/null 2>%s", POWERPIN, args, path);
	st = system(cmd);
	self->err[0] = '\0';
	f = fopen(path, "r");
	if (f) {
		n = fread(self->err, 1, sizeof(self->err) - 1, f);
		self->err[n] = '\0';
		fclose(f);
	}
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void write_file(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "w");

	if (!f)
		abort();
	if (len && fwrite(data, 1, len, f) != len)
		abort();
	fclose(f);
	fuzz_seed("report", data, len);
}

static int dir_entries(const char *dir)
{
	char cmd[200];
	FILE *p;
	int n = -1;

	snprintf(cmd, sizeof(cmd), "ls -A %s | grep -v -e '^input$' -e '^stderr$' | wc -l", dir);
	p = popen(cmd, "r");
	if (p) {
		if (fscanf(p, "%d", &n) != 1)
			n = -1;
		pclose(p);
	}
	return n;
}

struct bad_input {
	const char *what;
	const char *data;
	size_t len;
	const char *message;
};

static const char garbage[] = "\x7f\x45\x4c\x46\x02\x01\x01\0\0\0\0\0\x03\0\x3e\0\x01\0\0\0\xff\xfe";
/* trace-cmd's magic and version, then the file ends */
static const char tracedat_cut[] = "\027\010\104tracing6\0\0\x08\0\x10\0\0header_page\0";

static const struct bad_input bad_inputs[] = {
	{ "empty file", "", 0, "empty file" },
	{ "binary garbage", garbage, sizeof(garbage), "binary data that is not a trace.dat" },
	{ "truncated trace.dat", tracedat_cut, sizeof(tracedat_cut),
	  "unreadable trace.dat (truncated or corrupt headers)" },
	{ "text with no power events",
	  "# tracer: nop\n          <idle>-0       [000] d..2.    42.797848: sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=sh next_pid=54 next_prio=120\n",
	  0, "no power samples" },
	{ "timestamps going backwards",
	  " powerpin-77 [000] ..... 10.000000: battery: seq=1 voltage_uv=4000000 current_ua=-1 charge_uah=0 flags=0x0\n"
	  " powerpin-77 [000] ..... 10.010000: battery: seq=2 voltage_uv=4000000 current_ua=-1 charge_uah=0 flags=0x0\n"
	  " powerpin-77 [000] ..... 9.990000: battery: seq=3 voltage_uv=4000000 current_ua=-1 charge_uah=0 flags=0x0\n",
	  0, "input:3: timestamp goes backwards (9.990000000 after 10.010000000)" },
	{ "prose, not a trace",
	  "Dear reader,\nthis file is a letter.\n", 0, "no power samples" },
};

TEST_F(cli, bad_input_table)
{
	char args[800];
	size_t i;

	for (i = 0; i < sizeof(bad_inputs) / sizeof(bad_inputs[0]); i++) {
		const struct bad_input *b = &bad_inputs[i];

		write_file(self->in, b->data, b->len ? b->len : strlen(b->data));
		snprintf(args, sizeof(args), "%s --json %s --html %s.html", self->in, self->out,
			 self->out);
		EXPECT_EQ(1, report_cli(self, args)) TH_LOG("%s", b->what);
		EXPECT_NE(NULL, strstr(self->err, b->message))
			TH_LOG("%s: got \"%s\"", b->what, self->err);
		/* one line, naming the input */
		EXPECT_NE(NULL, strstr(self->err, "powerpin report: "));
		EXPECT_EQ(0, dir_entries(self->dir)) TH_LOG("%s: output left behind", b->what);
	}
}

/* A long text that never looks like ftrace is called foreign early */
TEST_F(cli, foreign_text)
{
	char *buf = malloc(100 * 40), *p = buf;
	int i;

	ASSERT_NE(NULL, buf);
	for (i = 0; i < 100; i++)
		p += sprintf(p, "line %d of a README [1] with: colons\n", i);
	write_file(self->in, buf, p - buf);
	free(buf);
	EXPECT_EQ(1, report_cli(self, self->in));
	EXPECT_NE(NULL, strstr(self->err, "not ftrace text (line 65"))
		TH_LOG("got \"%s\"", self->err);
}

TEST_F(cli, missing_input_file)
{
	char args[200];

	snprintf(args, sizeof(args), "%s/nonexistent", self->dir);
	EXPECT_EQ(1, report_cli(self, args));
	EXPECT_NE(NULL, strstr(self->err, "nonexistent: No such file or directory"));
}

/* A powerpind capture directory stands for its trace.dat */
TEST_F(cli, capture_directory)
{
	struct gen g = { .nr_cpus = 1 };
	char path[200];
	int k;

	EXPECT_EQ(1, report_cli(self, self->dir));
	EXPECT_NE(NULL, strstr(self->err, "/trace.dat: No such file or directory"));
	for (k = 0; k <= 10; k++)
		gen_battery(&g, 5000000000ULL + k * 100000000ULL, k, 4000000, -250000, 0, 0);
	snprintf(path, sizeof(path), "%s/trace.dat", self->dir);
	ASSERT_EQ(0, gen_write(&g, path));
	EXPECT_EQ(0, report_cli(self, self->dir)) TH_LOG("%s", self->err);
}

TEST_F(cli, usage_errors)
{
	char args[300];

	/* no input: ./trace.dat, which the repository does not hold */
	EXPECT_EQ(1, report_cli(self, ""));
	EXPECT_STREQ("powerpin report: no <input> given and no trace.dat here: No such file or directory\n",
		     self->err);
	snprintf(args, sizeof(args), "%s --sign sideways", self->in);
	EXPECT_EQ(2, report_cli(self, args));
	EXPECT_NE(NULL, strstr(self->err, "--sign wants auto, discharge-negative or discharge-positive, not 'sideways'"));
	snprintf(args, sizeof(args), "%s --baseline -3", self->in);
	EXPECT_EQ(2, report_cli(self, args));
	EXPECT_NE(NULL, strstr(self->err, "--baseline wants a positive number of seconds, not '-3'"));
	snprintf(args, sizeof(args), "%s %s", self->in, self->in);
	EXPECT_EQ(2, report_cli(self, args));
	EXPECT_EQ(0, report_cli(self, "--help"));
}

/*
 * Two outputs naming one file would leave only the last: refused before
 * anything is read, whether the names are the same, one is a symlink to
 * the other, or one is the process table beside a CSV.  Devices may take
 * several.
 */
TEST_F(cli, outputs_naming_one_file)
{
	char args[600], a[160], link[160];
	struct gen g = { .nr_cpus = 1 };
	int k;

	for (k = 0; k <= 20; k++)
		gen_battery(&g, 100000000000ULL + k * 10000000ULL, k, 4000000, -500000, 5000, 0);
	ASSERT_EQ(0, gen_write(&g, self->in));
	snprintf(a, sizeof(a), "%s/a.out", self->dir);
	snprintf(link, sizeof(link), "%s/link.out", self->dir);
	snprintf(args, sizeof(args), "%s --html %s --perfetto %s", self->in, a, a);
	EXPECT_EQ(2, report_cli(self, args));
	EXPECT_NE(NULL, strstr(self->err, "two outputs name the same file"));
	EXPECT_EQ(-1, access(a, F_OK));
	ASSERT_EQ(0, close(open(a, O_WRONLY | O_CREAT, 0644)));
	ASSERT_EQ(0, symlink("a.out", link));
	snprintf(args, sizeof(args), "%s --json %s --chrome-json %s", self->in, link, a);
	EXPECT_EQ(2, report_cli(self, args));
	EXPECT_NE(NULL, strstr(self->err, "two outputs name the same file"));
	snprintf(args, sizeof(args), "%s --csv %s/s.csv --json %s/s-processes.csv", self->in,
		 self->dir, self->dir);
	EXPECT_EQ(2, report_cli(self, args));
	EXPECT_NE(NULL, strstr(self->err, "s-processes.csv"));
	snprintf(args, sizeof(args), "%s --html /dev/null --perfetto /dev/null", self->in);
	EXPECT_EQ(0, report_cli(self, args)) TH_LOG("%s", self->err);
}

static long count_lines(const char *path, const char *needle)
{
	char line[4096];
	long n = 0;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		n += !needle || strstr(line, needle);
	fclose(f);
	return n;
}

/* Every output, from one generated capture */
TEST_F(cli, outputs)
{
	static const char * const keys[] = {
		"\"duration_s\": 2.000000000", "\"samples\": 201,", "\"energy_j\": 4,",
		"\"energy_from_charge_j\": null,", "\"charge_counter_jumps\": 0,", "\"voltage_v\": {\"min\": 4, \"mean\": 4, \"p50\": 4, \"p95\": 4, \"max\": 4}",
		"\"current_a\": {\"min\": 0.5, \"mean\": 0.5, \"p50\": 0.5, \"p95\": 0.5, \"max\": 0.5}",
		"\"power_w\": {\"min\": 2, ", "\"processes\": [", "\"threads\": [",
		"\"slices\": [", "\"lost_events\": 0,", "\"comm\": \"spin\"",
		"{\"kind\": \"slice\", \"name\": \"work\", \"count\": 1, \"duration_s\": 0.500000000, \"energy_j\": 1,",
	};
	char args[1024], csv[160], procs[160], html[160], pf[160], cj[160];
	struct gen g = { .nr_cpus = 1 };
	char *json, *page, *trace;
	size_t i;
	int k;

	for (k = 0; k <= 200; k++)
		gen_battery(&g, 100000000000ULL + k * 10000000ULL, k, 4000000, -500000, 5000, 0);
	gen_switch(&g, 99000000000ULL, 0, "swapper/0", 0, 0, "spin", 42);
	gen_mark(&g, 100500000000ULL, 0, "spin", 42, 42, "B|42|work");
	gen_mark(&g, 101000000000ULL, 0, "spin", 42, 42, "E|42");
	gen_mark(&g, 101000000000ULL, 0, "spin", 42, 42, "C|42|depth|3");
	ASSERT_EQ(0, gen_write(&g, self->in));

	snprintf(csv, sizeof(csv), "%s/samples.csv", self->dir);
	snprintf(procs, sizeof(procs), "%s/samples-processes.csv", self->dir);
	snprintf(html, sizeof(html), "%s/report.html", self->dir);
	snprintf(cj, sizeof(cj), "%s/trace.json", self->dir);
	snprintf(pf, sizeof(pf), "%s/trace.pftrace", self->dir);
	snprintf(args, sizeof(args), "%s --json %s --csv %s --html %s --chrome-json %s --perfetto %s",
		 self->in, self->out, csv, html, cj, pf);
	ASSERT_EQ(0, report_cli(self, args)) TH_LOG("%s", self->err);

	json = slurp(self->out);
	ASSERT_NE(NULL, json);
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		EXPECT_NE(NULL, strstr(json, keys[i])) TH_LOG("JSON lacks key %zu", i);
	free(json);

	/* time from the capture's start; its trace time in the last column */
	EXPECT_EQ(202, count_lines(csv, NULL));
	EXPECT_EQ(1, count_lines(csv, "time_s,voltage_v,current_a,power_w,charge_uah,seq,flags,capture_start_s"));
	EXPECT_EQ(1, count_lines(csv, "0.000000000,4.000000,0.500000,2.000000,5000,0,0,100.000000000"));
	EXPECT_EQ(1, count_lines(csv, "2.000000000,4.000000,0.500000,2.000000,5000,200,0,100.000000000"));
	EXPECT_EQ(1, count_lines(procs, "process,42,,\"spin\",1,2.000000000,4"));
	EXPECT_EQ(1, count_lines(procs, "idle,,,<idle>,,,0"));

	page = slurp(html);
	ASSERT_NE(NULL, page);
	/* the samples, the slice and the script in the page; nothing fetched */
	EXPECT_NE(NULL, strstr(page, "<div id=\"pp-plots\"></div>"));
	EXPECT_NE(NULL, strstr(page, "<script type=\"application/octet-stream\" id=\"pp-samples\">"));
	EXPECT_NE(NULL, strstr(page, "\"slice_names\": [\"work\"]"));
	EXPECT_NE(NULL, strstr(page, "script-src 'sha256-"));
	EXPECT_EQ(NULL, strstr(page, "https:"));
	EXPECT_EQ(NULL, strstr(page, "src=\"http"));
	/* no idle time in the input: its energy is 0, not a negated 0 */
	EXPECT_NE(NULL, strstr(page, "<tr><td>&lt;idle&gt;</td><td></td><td></td><td></td><td>0.0000</td></tr>"));
	EXPECT_EQ(NULL, strstr(page, "-0.0000"));
	free(page);

	trace = slurp(cj);
	ASSERT_NE(NULL, trace);
	EXPECT_EQ(0, strncmp(trace, "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[", 39));
	/* one counter event per sample, discharge positive, no raw-sign twin */
	EXPECT_NE(NULL, strstr(trace, "{\"name\":\"battery\",\"ph\":\"C\",\"ts\":100000000.000,\"pid\":2147483646,\"args\":{\"voltage V\":4,\"current A (discharge +)\":0.5,\"power W (discharge +)\":2}}"));
	EXPECT_NE(NULL, strstr(trace, "{\"name\":\"work\",\"ph\":\"B\",\"ts\":100500000.000,\"pid\":42,\"tid\":42}"));
	EXPECT_NE(NULL, strstr(trace, "{\"ph\":\"E\",\"ts\":101000000.000,\"pid\":42,\"tid\":42}"));
	EXPECT_NE(NULL, strstr(trace, "{\"name\":\"depth\",\"ph\":\"C\",\"ts\":101000000.000,\"pid\":42,\"args\":{\"value\":3}}"));
	EXPECT_EQ(0, strcmp(trace + strlen(trace) - 4, "\n]}\n"));
	free(trace);
	/* both parse as JSON (python3's parser, when present) */
	if (!system("command -v python3 >/dev/null")) {
		char cmd[600];

		snprintf(cmd, sizeof(cmd),
			 "python3 -c 'import json, sys; [json.load(open(f)) for f in sys.argv[1:]]' %s %s",
			 self->out, cj);
		EXPECT_EQ(0, system(cmd));
	}
	/* the Perfetto trace starts with a Trace.packet field (tag 0x0a) */
	trace = slurp(pf);
	ASSERT_NE(NULL, trace);
	EXPECT_EQ(0x0a, trace[0]);
	free(trace);
	/* written through temporary files: none left */
	EXPECT_EQ(8, dir_entries(self->dir));
}

/*
 * An output on a device that fills up (/dev/full, written through): exit
 * status 1 and one message naming the output and the reason, whichever
 * output it is.
 */
TEST_F(cli, output_on_a_full_device)
{
	static const char * const opts[] = {
		"--json", "--csv", "--html", "--chrome-json", "--perfetto",
	};
	struct gen g = { .nr_cpus = 1 };
	char args[512];
	size_t i;
	int k;

	if (access("/dev/full", W_OK))
		SKIP(return, "no writable /dev/full");
	for (k = 0; k <= 2000; k++)
		gen_battery(&g, 100000000000ULL + k * 10000000ULL, k, 4000000, -500000, 5000, 0);
	ASSERT_EQ(0, gen_write(&g, self->in));
	for (i = 0; i < sizeof(opts) / sizeof(opts[0]); i++) {
		snprintf(args, sizeof(args), "%s %s /dev/full", self->in, opts[i]);
		EXPECT_EQ(1, report_cli(self, args)) TH_LOG("%s", opts[i]);
		EXPECT_NE(NULL, strstr(self->err, "/dev/full")) TH_LOG("%s: %s", opts[i], self->err);
		EXPECT_NE(NULL, strstr(self->err, strerror(ENOSPC))) TH_LOG("%s: %s", opts[i], self->err);
		EXPECT_EQ(NULL, strchr(strchr(self->err, '\n') ? strchr(self->err, '\n') + 1 : "", '\n'))
			TH_LOG("%s: more than one line: %s", opts[i], self->err);
	}
}

/*
 * The Counters table in the page's sign convention: the powerpin:counter
 * repeat of the raw (discharge-negative) current is shown discharge +.
 */
TEST_F(cli, counters_in_sign_convention)
{
	struct gen g = { .nr_cpus = 1 };
	char args[600], html[160];
	char *page;
	int k;

	for (k = 0; k <= 20; k++) {
		gen_battery(&g, 100000000000ULL + k * 10000000ULL, k, 4000000, -500000 - k, 5000, 0);
		gen_add(&g, 100000000000ULL + k * 10000000ULL + 1000,
			"        powerpin-77      (     77) [000] ..... %llu.%09llu: counter: track_name=current_ua counter_value=%d\n",
			GEN_TS(100000000000ULL + k * 10000000ULL + 1000), -500000 - k);
	}
	ASSERT_EQ(0, gen_write(&g, self->in));
	snprintf(html, sizeof(html), "%s/report.html", self->dir);
	snprintf(args, sizeof(args), "%s --html %s", self->in, html);
	ASSERT_EQ(0, report_cli(self, args)) TH_LOG("%s", self->err);
	page = slurp(html);
	ASSERT_NE(NULL, page);
	EXPECT_NE(NULL, strstr(page, "<td>current_ua (discharge +)</td><td>powerpin</td><td>21</td>"
				     "<td>500000</td><td>500020</td><td>500020</td>"));
	free(page);
}

/*
 * The events are powerpin:powerpin_battery and powerpin:powerpin_counter
 * (unique tracepoint names); captures of older modules name them
 * powerpin:battery and powerpin:counter.  Both read the same, as text and
 * as trace.dat.
 */
static void gen_named(struct gen *g, const char *prefix)
{
	for (int k = 0; k <= 100; k++) {
		uint64_t ts = 100000000000ULL + k * 10000000ULL;

		gen_add(g, ts, "        powerpin-77      (     77) [000] ..... %llu.%09llu: %sbattery: seq=%u voltage_uv=4000000 current_ua=-500000 charge_uah=5000 power_uw=-2000000 current_avg_ua=-500000 capacity=80 temp_dc=250 read_ns=21000 flags=0x0\n",
			GEN_TS(ts), prefix, k);
		gen_add(g, ts + 1000, "        powerpin-77      (     77) [000] ..... %llu.%09llu: %scounter: track_name=temp_dc counter_value=%d\n",
			GEN_TS(ts + 1000), prefix, 250 + k);
	}
}

static int dat_named(const char *path, const char *prefix)
{
	struct tdat w;

	if (tdat_open(&w, 1))
		return -1;
	w.event_prefix = prefix;
	for (int k = 0; k <= 100; k++)
		tdat_battery(&w, 0, 5000000000ULL + k * 10000000ULL, 77, k + 1, 3800000,
			     -500000, 0, 0);
	return tdat_close(&w, path);
}

TEST_F(cli, event_names_old_and_new)
{
	static const char * const prefixes[] = { "powerpin_", "" };
	char args[600], dat[160];
	char *json;

	snprintf(dat, sizeof(dat), "%s/capture.dat", self->dir);
	for (size_t i = 0; i < 2; i++) {
		struct gen g = { .nr_cpus = 1 };

		gen_named(&g, prefixes[i]);
		ASSERT_EQ(0, gen_write(&g, self->in));
		snprintf(args, sizeof(args), "%s --json %s", self->in, self->out);
		ASSERT_EQ(0, report_cli(self, args)) TH_LOG("%s", self->err);
		json = slurp(self->out);
		ASSERT_NE(NULL, json);
		EXPECT_NE(NULL, strstr(json, "\"samples\": 101,")) TH_LOG("'%s'", prefixes[i]);
		EXPECT_NE(NULL, strstr(json, "{\"name\": \"temp_dc\", \"source\": \"powerpin\", \"count\": 101, \"min\": 250, \"max\": 350, \"last\": 350}"))
			TH_LOG("'%s': %s", prefixes[i], json);
		free(json);

		ASSERT_EQ(0, dat_named(dat, prefixes[i]));
		snprintf(args, sizeof(args), "%s --json %s", dat, self->out);
		ASSERT_EQ(0, report_cli(self, args)) TH_LOG("%s", self->err);
		json = slurp(self->out);
		ASSERT_NE(NULL, json);
		EXPECT_NE(NULL, strstr(json, "\"samples\": 101,")) TH_LOG("'%s' trace.dat", prefixes[i]);
		free(json);
	}
}

/*
 * Input that can be read only once (standard input, a FIFO) is copied to a
 * temporary file, so the second pass (CSV, Perfetto) sees all of it too,
 * and messages name the input as the user gave it.
 */
TEST_F(cli, stdin_and_fifo)
{
	char args[800], csv[160], fifo[160], dat[160], pf[160];
	struct gen g = { .nr_cpus = 1 };
	struct tdat w;
	char *json;
	int k;

	/* over 4 KiB, the part format sniffing reads */
	for (k = 0; k <= 200; k++)
		gen_battery(&g, 100000000000ULL + k * 10000000ULL, k, 4000000, -500000, 5000, 0);
	ASSERT_EQ(0, gen_write(&g, self->in));
	snprintf(csv, sizeof(csv), "%s/samples.csv", self->dir);
	snprintf(pf, sizeof(pf), "%s/trace.json", self->dir);

	snprintf(args, sizeof(args), "- --json %s --csv %s --chrome-json %s < %s", self->out, csv,
		 pf, self->in);
	ASSERT_EQ(0, report_cli(self, args)) TH_LOG("%s", self->err);
	json = slurp(self->out);
	ASSERT_NE(NULL, json);
	EXPECT_NE(NULL, strstr(json, "\"samples\": 201,"));
	free(json);
	EXPECT_EQ(202, count_lines(csv, NULL));
	EXPECT_EQ(201, count_lines(pf, "\"name\":\"battery\""));

	snprintf(fifo, sizeof(fifo), "%s/fifo", self->dir);
	ASSERT_EQ(0, mkfifo(fifo, 0600));
	unlink(csv);
	/* the writer in the background, blocked until the report opens the FIFO */
	snprintf(args, sizeof(args), "(cat %s > %s) &", self->in, fifo);
	ASSERT_EQ(0, system(args));
	snprintf(args, sizeof(args), "%s --csv %s", fifo, csv);
	ASSERT_EQ(0, report_cli(self, args)) TH_LOG("%s", self->err);
	EXPECT_EQ(202, count_lines(csv, NULL));

	/* a trace.dat through a pipe: libtracecmd maps the copy */
	snprintf(dat, sizeof(dat), "%s/capture.dat", self->dir);
	ASSERT_EQ(0, tdat_open(&w, 2));
	for (k = 0; k <= 100; k++)
		tdat_battery(&w, k % 2, 5000000000ULL + k * 10000000ULL, 77, k + 1, 3800000,
			     -500000, 0, 0);
	ASSERT_EQ(0, tdat_close(&w, dat));
	snprintf(args, sizeof(args), "- --json %s < %s", self->out, dat);
	ASSERT_EQ(0, report_cli(self, args)) TH_LOG("%s", self->err);
	json = slurp(self->out);
	ASSERT_NE(NULL, json);
	EXPECT_NE(NULL, strstr(json, "\"samples\": 101,"));
	EXPECT_NE(NULL, strstr(json, "\"energy_j\": 1.9,"));
	free(json);

	/* messages name what the user gave */
	EXPECT_EQ(1, report_cli(self, "- < /dev/null"));
	EXPECT_NE(NULL, strstr(self->err, "powerpin report: <stdin>: empty file"))
		TH_LOG("got \"%s\"", self->err);
	snprintf(args, sizeof(args), "(printf 'Dear reader,\\n' > %s) &", fifo);
	ASSERT_EQ(0, system(args));
	EXPECT_EQ(1, report_cli(self, fifo));
	snprintf(args, sizeof(args), "powerpin report: %s: no power samples", fifo);
	EXPECT_NE(NULL, strstr(self->err, args)) TH_LOG("got \"%s\"", self->err);
}

/*
 * A capture whose writer was stopped inside its last line: that line,
 * with no newline and cut inside a number that still parses, is left out
 * with a warning naming it, not taken as a sample of -6 uA.  A last line
 * that reaches its last field is whole, newline or not.
 */
TEST_F(cli, cut_last_line)
{
	struct gen g = { .nr_cpus = 1 };
	char args[600], *json, *text;
	FILE *f;
	int k;

	for (k = 0; k <= 100; k++)
		gen_battery(&g, 100000000000ULL + k * 10000000ULL, k, 4000000, -500000, 5000, 0);
	ASSERT_EQ(0, gen_write(&g, self->in));
	text = slurp(self->in);
	ASSERT_NE(NULL, text);
	f = fopen(self->in, "a");
	ASSERT_NE(NULL, f);
	fputs("        powerpin-77      (     77) [000] ..... 101.010000000: battery: seq=101 voltage_uv=4000000 current_ua=-6",
	      f);
	ASSERT_EQ(0, fclose(f));
	snprintf(args, sizeof(args), "%s --json %s", self->in, self->out);
	ASSERT_EQ(0, report_cli(self, args)) TH_LOG("%s", self->err);
	EXPECT_NE(NULL, strstr(self->err, "powerpin report: "));
	EXPECT_NE(NULL, strstr(self->err, "input: line 106 has no newline and is not a whole event (its writer was stopped inside it); left out\n"))
		TH_LOG("got \"%s\"", self->err);
	json = slurp(self->out);
	ASSERT_NE(NULL, json);
	EXPECT_NE(NULL, strstr(json, "\"samples\": 101,"));
	EXPECT_NE(NULL, strstr(json, "\"current_a\": {\"min\": 0.5, \"mean\": 0.5, \"p50\": 0.5, \"p95\": 0.5, \"max\": 0.5}"));
	free(json);

	/* the same capture whole but for its last newline: every sample, no warning */
	text[strlen(text) - 1] = '\0';
	write_file(self->in, text, strlen(text));
	free(text);
	ASSERT_EQ(0, report_cli(self, args)) TH_LOG("%s", self->err);
	EXPECT_STREQ("", self->err);
	json = slurp(self->out);
	ASSERT_NE(NULL, json);
	EXPECT_NE(NULL, strstr(json, "\"samples\": 101,"));
	free(json);
}

/* The library itself refuses what it could read only once */
TEST_F(cli, library_refuses_fifo)
{
	char fifo[160], err[512];

	snprintf(fifo, sizeof(fifo), "%s/fifo", self->dir);
	ASSERT_EQ(0, mkfifo(fifo, 0600));
	EXPECT_EQ((int)TRACE_FORMAT_UNKNOWN, (int)trace_input_detect(fifo, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "fifo: not a regular file")) TH_LOG("got \"%s\"", err);
}

TEST_HARNESS_MAIN
