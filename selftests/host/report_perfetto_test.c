// SPDX-License-Identifier: GPL-2.0
/*
 * `powerpin report --perfetto`: every written trace is decoded with
 * `protoc --decode=perfetto.protos.Trace` against the project's .proto, and
 * the decoded text must hold exactly the counter values, sched events
 * (sched_switch in Perfetto's compact form),
 * slices (with their energy), markers, descriptors and clock snapshot the
 * input implies.  With POWERPIN_PERFETTO_PROTO naming Perfetto's own merged
 * perfetto_trace.proto, each trace must also decode to the same text with
 * it, and scripts/perfetto-proto-check must find no field that differs.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <kselftest_harness.h>

#include "cmd_helpers.h"
#include "report_gen.h"
#include "report_tracedat.h"

#define POWERPIN	"build/bin/powerpin"
#define PROTO_DIR	"daemon/lib/report"
#define MS		1000000ULL
#define SEC		1000000000ULL
#define T0		(100 * SEC)

/* uuids the writer gives (daemon/lib/report/report_perfetto.c) */
#define U_VOLTAGE	2
#define U_CURRENT	3
#define U_POWER		4
#define U_ENERGY	5
#define U_CHARGE	6
#define U_CAPACITY	7
#define U_TEMP		8
#define U_IDLE		9
#define U_OTHER		10
#define U_MARKERS	11
#define U_CURRENT_AVG	12
#define U_PROC_ENERGY(tgid)	((3ULL << 32) | (tgid))

/* The values following each "@prefix" in @text, in order; returns how many. */
static int values_after(const char *text, const char *prefix, double *out, int max)
{
	int n = 0;

	while ((text = strstr(text, prefix)) && n < max) {
		text += strlen(prefix);
		out[n++] = strtod(text, NULL);
	}
	return n;
}

/* Counter values of track @uuid, in order. */
static int track_values(const char *text, unsigned long long uuid, double *out, int max)
{
	char prefix[96];

	snprintf(prefix, sizeof(prefix), "type: TYPE_COUNTER track_uuid: %llu double_counter_value: ",
		 uuid);
	return values_after(text, prefix, out, max);
}

/*
 * Energies (debug.energy_j) of slice ENDs in @text, in file order: those on
 * thread tracks (@ts NULL), or the marker spans' (track 13) ending at "T "
 * for @ts "T ".
 */
static int span_energies(const char *text, const char *ts, double *out, int max)
{
	static const char end[] = "type: TYPE_SLICE_END track_uuid: ";
	const char *p = text, *q, *pkt;
	int n = 0;
	bool marker;

	while ((p = strstr(p, "debug_annotations { double_value: ")) && n < max) {
		q = strstr(p, end);
		if (!q)
			break;
		for (pkt = p; pkt > text && strncmp(pkt, "packet {", 8); pkt--)
			;
		p += 34;
		marker = strtoull(q + strlen(end), NULL, 10) == 13;
		if (!ts && !marker)
			out[n++] = strtod(p, NULL);
		else if (ts && marker && !strncmp(pkt + 20, ts, strlen(ts)))
			out[n++] = strtod(p, NULL);
	}
	return n;
}

/* protoc --decode of @trace with @proto in @dir, squeezed; NULL on failure */
static char *decode(const char *dir, const char *proto, const char *trace, const char *tmp)
{
	char cmd[1024], out[256];
	char *text;

	snprintf(out, sizeof(out), "%s.txt", tmp);
	snprintf(cmd, sizeof(cmd), "protoc --proto_path=%s --decode=perfetto.protos.Trace %s < %s > %s",
		 dir, proto, trace, out);
	if (system(cmd))
		return NULL;
	text = slurp(out);
	return text ? squeeze(text) : NULL;
}

FIXTURE(pf) {
	char dir[64];
	char in[128], trace[128], json[128];
};

FIXTURE_SETUP(pf)
{
	if (system("command -v protoc >/dev/null"))
		SKIP(return, "protoc not installed (protobuf-compiler)");
	if (access(POWERPIN, X_OK))
		SKIP(return, "%s not built (make userspace)", POWERPIN);
	strcpy(self->dir, "/tmp/powerpin-pf-XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	snprintf(self->in, sizeof(self->in), "%s/in", self->dir);
	snprintf(self->trace, sizeof(self->trace), "%s/trace.pftrace", self->dir);
	snprintf(self->json, sizeof(self->json), "%s/report.json", self->dir);
}

FIXTURE_TEARDOWN(pf)
{
	if (self->dir[0] && sh("rm -rf %s", self->dir))
		TH_LOG("could not remove %s", self->dir);
}

static int run_report(FIXTURE_DATA(pf) *self, const char *extra)
{
	char cmd[1024];
	int st;

	snprintf(cmd, sizeof(cmd), "%s report %s --json %s --perfetto %s %s >/dev/null", POWERPIN,
		 self->in, self->json, self->trace, extra);
	st = system(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/*
 * With Perfetto's own schema at hand: the same trace decodes to the same
 * text (no field read as another, no unknown field), and the subset
 * matches it field by field.
 */
static void check_upstream(struct __test_metadata *_metadata, const char *trace,
			   const char *ours, const char *tmp)
{
	const char *up = getenv("POWERPIN_PERFETTO_PROTO");
	char dir[512], cmd[1024], *slash, *theirs;

	if (!up || !*up) {
		TH_LOG("POWERPIN_PERFETTO_PROTO unset: not compared with Perfetto's schema");
		return;
	}
	snprintf(dir, sizeof(dir), "%s", up);
	slash = strrchr(dir, '/');
	ASSERT_NE(NULL, slash);
	*slash = '\0';
	theirs = decode(dir, slash + 1, trace, tmp);
	ASSERT_NE(NULL, theirs);
	EXPECT_STREQ(ours, theirs);
	free(theirs);
	snprintf(cmd, sizeof(cmd), "scripts/perfetto-proto-check %s >/dev/null", up);
	EXPECT_EQ(0, system(cmd));
}

/*
 * Text input: 101 samples at 100 Hz, a thread that forks and switches on
 * two CPUs, nested atrace slices and one left open, an atrace counter,
 * powerpin markers, and powerpin:counter tracks (one repeating a battery
 * field, one of its own).
 */
TEST_F_TIMEOUT(pf, text_capture, 120)
{
	struct gen g = { .nr_cpus = 2 };
	double v[256], e;
	char *text, *json, *p, tmp[128];
	int k, n;

	gen_switch(&g, T0 - SEC, 0, "swapper/0", 0, 0, "spin", 42);
	gen_switch(&g, T0 - SEC, 1, "swapper/1", 0, 0, "idle", 0);
	for (k = 0; k <= 100; k++) {
		gen_battery(&g, T0 + k * 10 * MS, k, 4000000, -500000, 5000, 0);
		gen_add(&g, T0 + k * 10 * MS + 1000,
			"        powerpin-77      (     77) [000] ..... %llu.%09llu: counter: track_name=voltage_uv counter_value=4000000\n",
			GEN_TS(T0 + k * 10 * MS + 1000));
	}
	for (k = 0; k < 5; k++)
		gen_add(&g, T0 + k * 200 * MS + 5000,
			"        powerpin-77      (     77) [000] ..... %llu.%09llu: counter: track_name=gpu_load counter_value=%d\n",
			GEN_TS(T0 + k * 200 * MS + 5000), 10 * k);
	/* spin forks a helper that runs on CPU 1 and exits */
	gen_add(&g, T0 + 100 * MS, "            spin-42      (     42) [000] d..2. %llu.%09llu: sched_process_fork: comm=spin pid=42 child_comm=spin child_pid=43\n",
		GEN_TS(T0 + 100 * MS));
	gen_switch(&g, T0 + 150 * MS, 1, "swapper/1", 0, 0, "spin", 43);
	gen_add(&g, T0 + 250 * MS, "            spin-43      (     42) [001] d..2. %llu.%09llu: sched_process_exit: comm=spin pid=43 prio=120\n",
		GEN_TS(T0 + 250 * MS));
	gen_switch(&g, T0 + 250 * MS, 1, "spin", 43, 42, "swapper/1", 0);
	gen_mark(&g, T0 + 200 * MS, 0, "spin", 42, 42, "B|42|work");
	gen_mark(&g, T0 + 300 * MS, 0, "spin", 42, 42, "B|42|inner");
	gen_mark(&g, T0 + 400 * MS, 0, "spin", 42, 42, "E|42");
	gen_mark(&g, T0 + 600 * MS, 0, "spin", 42, 42, "E|42");
	gen_mark(&g, T0 + 900 * MS, 0, "spin", 42, 42, "B|42|tail");
	gen_mark(&g, T0 + 500 * MS, 0, "spin", 42, 42, "C|42|depth|3");
	gen_mark(&g, T0 + 700 * MS, 0, "spin", 42, 42, "C|42|depth|5");
	gen_mark(&g, T0 + 100 * MS, 0, "spin", 42, 42, "powerpin:warm");
	gen_mark(&g, T0 + 800 * MS, 0, "spin", 42, 42, "powerpin:hot");
	gen_switch(&g, T0 + 950 * MS, 0, "spin", 42, 42, "swapper/0", 0);
	ASSERT_EQ(0, gen_write(&g, self->in));
	ASSERT_EQ(0, run_report(self, ""));

	snprintf(tmp, sizeof(tmp), "%s/decoded", self->dir);
	text = decode(PROTO_DIR, "perfetto_trace.proto", self->trace, tmp);
	ASSERT_NE(NULL, text);

	/* battery tracks: a value per sample, the slow ones when they change */
	EXPECT_EQ(101, track_values(text, U_VOLTAGE, v, 256));
	EXPECT_EQ(4.0, v[0]);
	EXPECT_EQ(101, track_values(text, U_CURRENT, v, 256));
	EXPECT_EQ(0.5, v[100]);		/* discharge positive */
	EXPECT_EQ(101, track_values(text, U_POWER, v, 256));
	EXPECT_EQ(2.0, v[50]);
	EXPECT_EQ(101, track_values(text, U_ENERGY, v, 256));
	EXPECT_EQ(0.0, v[0]);
	EXPECT_NEAR(2.0, v[100], 1e-9);	/* 2 W for 1 s */
	EXPECT_EQ(1, track_values(text, U_CHARGE, v, 256));
	EXPECT_EQ(5.0, v[0]);		/* mAh */
	EXPECT_EQ(1, track_values(text, U_CAPACITY, v, 256));
	EXPECT_EQ(80.0, v[0]);
	EXPECT_EQ(1, track_values(text, U_TEMP, v, 256));
	EXPECT_EQ(25.0, v[0]);
	/* the gauge's average current, discharge positive like the current */
	EXPECT_EQ(1, track_values(text, U_CURRENT_AVG, v, 256));
	EXPECT_EQ(0.5, v[0]);
	EXPECT_EQ(1, count_of(text, "name: \"Average current (discharge +)\" parent_uuid: 1 counter { unit_name: \"A\" }"));
	EXPECT_EQ(1, count_of(text, "name: \"Current (discharge +)\" parent_uuid: 1 counter { unit_name: \"A\" }"));
	EXPECT_EQ(1, count_of(text, "name: \"Voltage\" parent_uuid: 1 counter { unit_name: \"V\" }"));

	/* the per-process energy ends at the report's figure; all parts add up */
	n = track_values(text, U_PROC_ENERGY(42), v, 256);
	ASSERT_GT(n, 1);
	json = slurp(self->json);
	ASSERT_NE(NULL, json);
	p = strstr(json, "\"tgid\": 42,");
	ASSERT_NE(NULL, p);
	p = strstr(p, "\"energy_j\": ");
	ASSERT_NE(NULL, p);
	e = strtod(p + strlen("\"energy_j\": "), NULL);
	EXPECT_NEAR(e, v[n - 1], 1e-9);
	e = v[n - 1];
	n = track_values(text, U_IDLE, v, 256);
	ASSERT_GT(n, 0);
	e += v[n - 1];
	n = track_values(text, U_OTHER, v, 256);
	ASSERT_GT(n, 0);
	e += v[n - 1];
	EXPECT_NEAR(2.0, e, 1e-9);
	free(json);

	/*
	 * scheduling as ftrace bundles: each CPU's first switch whole (Perfetto
	 * skips a CPU's first compact switch), the other 3 compact; the fork, the exit
	 */
	EXPECT_EQ(2, count_of(text, "sched_switch {"));
	EXPECT_EQ(1, count_of(text, "event { timestamp: 99000000000 pid: 0 sched_switch { prev_comm: \"swapper/0\" "
				 "prev_pid: 0 prev_prio: 120 prev_state: 0 next_comm: \"spin\" next_pid: 42 next_prio: 120 } }"));
	EXPECT_EQ(1, count_of(text, "event { timestamp: 99000000000 pid: 0 sched_switch { prev_comm: \"swapper/1\" "
				 "prev_pid: 0 prev_prio: 120 prev_state: 0 next_comm: \"idle\" next_pid: 0 next_prio: 120 } }"));
	EXPECT_EQ(3, count_of(text, "switch_next_pid: "));
	EXPECT_EQ(3, count_of(text, "switch_timestamp: "));
	EXPECT_EQ(3, count_of(text, "switch_next_prio: 120 "));
	EXPECT_EQ(2, count_of(text, "compact_sched {"));
	/* per CPU: the first timestamp absolute, then deltas; the previous task implied */
	EXPECT_EQ(1, count_of(text, "compact_sched { switch_timestamp: 100950000000 switch_prev_state: 0 "));
	EXPECT_EQ(1, count_of(text, "compact_sched { switch_timestamp: 100150000000 switch_timestamp: 100000000 "));
	EXPECT_EQ(1, count_of(text, "sched_process_fork { parent_comm: \"spin\" parent_pid: 42 child_comm: \"spin\" child_pid: 43 }"));
	EXPECT_EQ(1, count_of(text, "sched_process_exit { comm: \"spin\" pid: 43 prio: 120 }"));
	/* prev_state=R, as the text said */
	EXPECT_EQ(3, count_of(text, "switch_prev_state: 0 "));
	EXPECT_EQ(1, count_of(text, "intern_table: \"spin\" intern_table: \"swapper/1\" "
				 "switch_next_comm_index: 0 switch_next_comm_index: 1 }"));
	EXPECT_EQ(0, count_of(text, "clock_snapshot"));
	EXPECT_EQ(0, count_of(text, "ftrace_clock"));
	/*
	 * the first packet of each sequence starts its state; no packet needs
	 * any.  Global tracks (battery, markers, powerpin counters) are on a
	 * sequence of their own, with no thread descriptor to become its
	 * events' default thread; threads and processes on the other.
	 */
	EXPECT_EQ(2, count_of(text, "sequence_flags: 1 "));
	p = strstr(text, "sequence_flags: 1 ");
	ASSERT_NE(NULL, p);
	EXPECT_EQ(NULL, memmem(text + 1, p - text - 1, "packet {", 8));
	EXPECT_EQ(0, count_of(text, "sequence_flags: 2"));
	EXPECT_EQ(0, count_of(text, "trusted_packet_sequence_id: 2 track_descriptor { uuid: 8589934634"));
	EXPECT_EQ(1, count_of(text, "trusted_packet_sequence_id: 1 track_descriptor { uuid: 8589934634 thread {"));
	EXPECT_EQ(1, count_of(text, "trusted_packet_sequence_id: 2 sequence_flags: 1 track_descriptor { uuid: 1 name: \"Battery (powerpin)\""));
	EXPECT_EQ(101, count_of(text, "trusted_packet_sequence_id: 2 track_event { type: TYPE_COUNTER track_uuid: 2 double_counter_value: 4 }"));
	EXPECT_EQ(0, count_of(text, "thread { pid: 42 tid: 42 thread_name: \"spin\" } } trusted_packet_sequence_id: 2"));
	EXPECT_EQ(1, count_of(text, "trusted_packet_sequence_id: 2 track_event { type: TYPE_INSTANT track_uuid: 11 name: \"warm\" }"));

	/* thread and process descriptors: 43 belongs to 42 */
	EXPECT_EQ(1, count_of(text, "process { pid: 42 process_name: \"spin\" }"));
	EXPECT_EQ(1, count_of(text, "thread { pid: 42 tid: 43 thread_name: \"spin\" }"));

	/*
	 * three slices, each END with its energy, the open one ended with the
	 * capture; and the two marker spans, priced as the text report prices them
	 */
	EXPECT_EQ(5, count_of(text, "type: TYPE_SLICE_BEGIN"));
	EXPECT_EQ(5, count_of(text, "type: TYPE_SLICE_END"));
	EXPECT_EQ(1, count_of(text, "name: \"unterminated\" } type: TYPE_SLICE_END"));
	EXPECT_EQ(1, count_of(text, "timestamp: 100100000000 trusted_packet_sequence_id: 2 track_event { "
				 "type: TYPE_SLICE_BEGIN track_uuid: 13 name: \"warm\" }"));
	EXPECT_EQ(1, count_of(text, "timestamp: 100800000000 trusted_packet_sequence_id: 2 track_event { "
				 "type: TYPE_SLICE_BEGIN track_uuid: 13 name: \"hot\" }"));
	/* warm: 2 W from 0.1 s to 0.8 s; hot: to the last sample at 1.0 s */
	EXPECT_EQ(1, span_energies(text, "100800000000 ", v, 256));
	EXPECT_NEAR(1.4, v[0], 1e-9);
	EXPECT_EQ(1, span_energies(text, "101000000000 ", v, 256));
	EXPECT_NEAR(0.4, v[0], 1e-9);
	n = span_energies(text, NULL, v, 256);
	ASSERT_EQ(3, n);
	/* inner ends first, then work, then tail at the end of the capture */
	EXPECT_NEAR(0.2, v[0], 1e-9);
	EXPECT_NEAR(0.8, v[1], 1e-9);
	EXPECT_NEAR(0.2, v[2], 1e-9);
	EXPECT_EQ(1, count_of(text, "type: TYPE_SLICE_BEGIN track_uuid: 8589934634 name: \"work\""));

	/* markers, atrace and powerpin counters; no raw-sign battery twin */
	EXPECT_EQ(1, count_of(text, "type: TYPE_INSTANT track_uuid: 11 name: \"warm\""));
	EXPECT_EQ(1, count_of(text, "type: TYPE_INSTANT track_uuid: 11 name: \"hot\""));
	/* counter tracks in the order they first appear: gpu_load, then depth */
	EXPECT_EQ(1, count_of(text, "uuid: 17179869184 name: \"gpu_load\" parent_uuid: 1"));
	EXPECT_EQ(5, count_of(text, "type: TYPE_COUNTER track_uuid: 17179869184 counter_value:"));
	EXPECT_EQ(1, count_of(text, "type: TYPE_COUNTER track_uuid: 17179869184 counter_value: 40 }"));
	EXPECT_EQ(1, count_of(text, "uuid: 17179869185 name: \"depth\" parent_uuid: 4294967338"));
	EXPECT_EQ(1, count_of(text, "type: TYPE_COUNTER track_uuid: 17179869185 counter_value: 3 }"));
	EXPECT_EQ(1, count_of(text, "type: TYPE_COUNTER track_uuid: 17179869185 counter_value: 5 }"));
	EXPECT_EQ(0, count_of(text, "voltage_uv"));

	check_upstream(_metadata, self->trace, text, tmp);
	free(text);
}

/*
 * A trace.dat in the local clock with powerpin record's clock pair: a
 * clock snapshot maps the trace clock to boottime, every packet and
 * bundle says which clock it is in, and prev_state keeps its letters.
 */
/*
 * Clock pairs taken during the capture (the device slept 10 s between the
 * first two): each is a clock snapshot on both sequences, in order, the
 * first with the defaults; a pair out of order or of another clock is left
 * out; each ftrace bundle carries the pair in force at its first event.
 */
TEST_F_TIMEOUT(pf, tracedat_clock_pairs_during_the_capture, 120)
{
	static const char pairs[] =
		"powerpin: clock=local trace_ns=99900000000 boottime_ns=150000000000 realtime_ns=1700000000000000000\n"
		"powerpin: clock=local trace_ns=100050000000 boottime_ns=160150000000 realtime_ns=1700000010150000000\n"
		"powerpin: clock=local trace_ns=100012345678 boottime_ns=160200000000 realtime_ns=1700000010200000000\n"
		"powerpin: clock=global trace_ns=100067891234 boottime_ns=160300000000 realtime_ns=1700000010300000000\n";
	struct tdat w;
	char *text, tmp[128];
	int k;

	ASSERT_EQ(0, tdat_open(&w, 2));
	tdat_clock(&w, "local");
	tdat_cpustat(&w, pairs);
	tdat_comm(&w, 42, "spin");
	/* CPU 1 switches before the second pair, CPU 0 only after it */
	tdat_switch_state(&w, 1, T0 + 1 * MS, "swapper/1", 0, 0, "spin", 42);
	tdat_switch_state(&w, 1, T0 + 2 * MS, "spin", 42, 0x1, "swapper/1", 0);
	for (k = 0; k <= 20; k++) {
		tdat_battery(&w, 0, T0 + k * 10 * MS, 77, k + 1, 3800000, -500000, 4000, 0);
		if (k == 6)
			tdat_switch_state(&w, 0, T0 + 65 * MS, "swapper/0", 0, 0, "spin", 42);
		if (k == 7)
			tdat_switch_state(&w, 0, T0 + 75 * MS, "spin", 42, 0x1, "swapper/0", 0);
	}
	ASSERT_EQ(0, tdat_close(&w, self->in));
	ASSERT_EQ(0, run_report(self, ""));

	snprintf(tmp, sizeof(tmp), "%s/decoded", self->dir);
	text = decode(PROTO_DIR, "perfetto_trace.proto", self->trace, tmp);
	ASSERT_NE(NULL, text);
	EXPECT_EQ(4, count_of(text, "clock_snapshot {"));
	EXPECT_EQ(2, count_of(text, "clock_snapshot { clocks { clock_id: 6 timestamp: 150000000000 } "
				 "clocks { clock_id: 64 timestamp: 99900000000 } "
				 "clocks { clock_id: 1 timestamp: 1700000000000000000 } "
				 "primary_trace_clock: BUILTIN_CLOCK_BOOTTIME }"));
	EXPECT_EQ(2, count_of(text, "clock_snapshot { clocks { clock_id: 6 timestamp: 160150000000 } "
				 "clocks { clock_id: 64 timestamp: 100050000000 } "
				 "clocks { clock_id: 1 timestamp: 1700000010150000000 } "
				 "primary_trace_clock: BUILTIN_CLOCK_BOOTTIME }"));
	EXPECT_EQ(2, count_of(text, "trace_packet_defaults { timestamp_clock_id: 64 }"));
	/* the first pair's snapshot comes before the second's, on each sequence */
	EXPECT_LT(strstr(text, "timestamp: 150000000000"), strstr(text, "timestamp: 160150000000"));
	EXPECT_EQ(0, strncmp(text, "packet { clock_snapshot {", 25));
	/* a bundle a CPU: CPU 1's by the first pair, CPU 0's by the second */
	EXPECT_EQ(2, count_of(text, "ftrace_events { cpu: "));
	EXPECT_EQ(1, count_of(text, "ftrace_clock: FTRACE_CLOCK_LOCAL "
				 "ftrace_timestamp: 99900000000 boot_timestamp: 150000000000"));
	EXPECT_EQ(1, count_of(text, "ftrace_clock: FTRACE_CLOCK_LOCAL "
				 "ftrace_timestamp: 100050000000 boot_timestamp: 160150000000"));
	EXPECT_LT(strstr(text, "ftrace_events { cpu: 1 "),
		  strstr(text, "ftrace_timestamp: 99900000000 "));
	EXPECT_GT(strstr(text, "ftrace_events { cpu: 1 "),
		  strstr(text, "ftrace_timestamp: 100050000000 "));
	EXPECT_EQ(0, count_of(text, "100012345678"));
	EXPECT_EQ(0, count_of(text, "100067891234"));
	check_upstream(_metadata, self->trace, text, tmp);
	free(text);
}

TEST_F_TIMEOUT(pf, tracedat_clock_and_states, 120)
{
	static const char pair[] =
		"powerpin: clock=local trace_ns=200000000000 boottime_ns=250000000000 realtime_ns=1700000000000000000\n";
	struct tdat w;
	char *text, tmp[128];
	double v[64];
	int k;

	ASSERT_EQ(0, tdat_open(&w, 2));
	tdat_clock(&w, "local");
	tdat_cpustat(&w, pair);
	tdat_comm(&w, 42, "spin");
	for (k = 0; k <= 20; k++)
		tdat_battery(&w, 0, T0 + k * 10 * MS, 77, k + 1, 3800000, -500000, 4000, 0);
	tdat_switch_state(&w, 1, T0 + 1 * MS, "swapper/1", 0, 0, "spin", 42);
	tdat_switch_state(&w, 1, T0 + 2 * MS, "spin", 42, 0x1, "swapper/1", 0);	/* S */
	tdat_switch_state(&w, 1, T0 + 3 * MS, "swapper/1", 0, 0, "spin", 42);
	tdat_switch_state(&w, 1, T0 + 4 * MS, "spin", 42, 0x100, "swapper/1", 0);	/* R+ */
	tdat_switch_state(&w, 1, T0 + 5 * MS, "swapper/1", 0, 0, "spin", 42);
	tdat_switch_state(&w, 1, T0 + 6 * MS, "spin", 42, 0x80, "swapper/1", 0);	/* I */
	tdat_switch_state(&w, 1, T0 + 7 * MS, "swapper/1", 0, 0, "spin", 42);
	tdat_switch_state(&w, 1, T0 + 8 * MS, "spin", 42, 0x2, "swapper/1", 0);	/* D */
	tdat_fork(&w, 1, T0 + 9 * MS, "spin", 42, 44);
	tdat_lost(&w, 1, 3);
	tdat_exit(&w, 1, T0 + 20 * MS, "spin", 44);
	tdat_print(&w, 1, T0 + 30 * MS, 42, "B|42|frame");
	tdat_print(&w, 1, T0 + 80 * MS, 42, "E|42");
	ASSERT_EQ(0, tdat_close(&w, self->in));
	ASSERT_EQ(0, run_report(self, ""));

	snprintf(tmp, sizeof(tmp), "%s/decoded", self->dir);
	text = decode(PROTO_DIR, "perfetto_trace.proto", self->trace, tmp);
	ASSERT_NE(NULL, text);
	/* on each sequence: its clock 64 and its defaults are its own */
	EXPECT_EQ(2, count_of(text, "clock_snapshot { clocks { clock_id: 6 timestamp: 250000000000 } "
				 "clocks { clock_id: 64 timestamp: 200000000000 } "
				 "clocks { clock_id: 1 timestamp: 1700000000000000000 } "
				 "primary_trace_clock: BUILTIN_CLOCK_BOOTTIME }"));
	EXPECT_EQ(2, count_of(text, "trace_packet_defaults { timestamp_clock_id: 64 }"));
	/* the snapshot's packet starts the sequence's state, defaults included */
	EXPECT_EQ(2, count_of(text, "sequence_flags: 1"));
	EXPECT_EQ(1, count_of(text, "primary_trace_clock: BUILTIN_CLOCK_BOOTTIME } "
				 "trusted_packet_sequence_id: 1 sequence_flags: 1 trace_packet_defaults"));
	EXPECT_EQ(1, count_of(text, "primary_trace_clock: BUILTIN_CLOCK_BOOTTIME } "
				 "trusted_packet_sequence_id: 2 sequence_flags: 1 trace_packet_defaults"));
	EXPECT_EQ(0, strncmp(text, "packet { clock_snapshot {", 25));
	/* and every packet whose timestamp is in the defaults' clock says it needs them */
	EXPECT_LT(21, count_of(text, "packet { timestamp: "));
	EXPECT_EQ(count_of(text, "packet { timestamp: "), count_of(text, "sequence_flags: 2 "));
	/* every bundle carries its clock and the pair */
	EXPECT_EQ(count_of(text, "ftrace_events {"),
		  count_of(text, "ftrace_clock: FTRACE_CLOCK_LOCAL ftrace_timestamp: 200000000000 boot_timestamp: 250000000000"));
	/* the CPU's first switch whole, the other 7 compact */
	EXPECT_EQ(1, count_of(text, "sched_switch { prev_comm: \"swapper/1\" prev_pid: 0 prev_prio: 120 "
				 "prev_state: 0 next_comm: \"spin\" next_pid: 42 next_prio: 120 }"));
	EXPECT_EQ(7, count_of(text, "switch_next_pid: "));
	EXPECT_EQ(3, count_of(text, "switch_prev_state: 0 "));
	EXPECT_EQ(1, count_of(text, "switch_prev_state: 1 "));
	EXPECT_EQ(1, count_of(text, "switch_prev_state: 2048 "));	/* R+ */
	EXPECT_EQ(1, count_of(text, "switch_prev_state: 1026 "));	/* I: D without load */
	EXPECT_EQ(1, count_of(text, "switch_prev_state: 2 "));
	EXPECT_EQ(1, count_of(text, "child_pid: 44"));
	EXPECT_EQ(1, count_of(text, "sched_process_exit { comm: \"spin\" pid: 44 prio: 120 }"));
	EXPECT_EQ(1, count_of(text, "lost_events: true"));
	EXPECT_EQ(21, track_values(text, U_VOLTAGE, v, 64));
	EXPECT_EQ(1, count_of(text, "type: TYPE_SLICE_BEGIN"));
	EXPECT_EQ(1, count_of(text, "name: \"energy_j\" } type: TYPE_SLICE_END"));
	check_upstream(_metadata, self->trace, text, tmp);
	free(text);

	/* a capture in the boot clock is already boottime: no clock of its own */
	ASSERT_EQ(0, tdat_open(&w, 1));
	tdat_clock(&w, "boot");
	tdat_cpustat(&w, "powerpin: clock=boot trace_ns=200000000000 boottime_ns=200000000100 realtime_ns=1700000000000000000\n");
	for (k = 0; k <= 20; k++)
		tdat_battery(&w, 0, T0 + k * 10 * MS, 77, k + 1, 3800000, -500000, 4000, 0);
	ASSERT_EQ(0, tdat_close(&w, self->in));
	ASSERT_EQ(0, run_report(self, ""));
	text = decode(PROTO_DIR, "perfetto_trace.proto", self->trace, tmp);
	ASSERT_NE(NULL, text);
	EXPECT_EQ(2, count_of(text, "clock_snapshot { clocks { clock_id: 6 timestamp: 200000000100 } "
				 "clocks { clock_id: 1 timestamp: 1700000000000000000 } "));
	EXPECT_EQ(0, count_of(text, "clock_id: 64"));
	EXPECT_EQ(0, count_of(text, "trace_packet_defaults"));
	free(text);
}

/*
 * sched_switch's format with two states powerpin cannot write in 4.14's
 * layout: 0x40 printed as a letter no kernel prints ("Q", an unparsed
 * state) and 0x80 as "N" (no-load, which kernels before 4.14 print and
 * 4.14's layout has no bit for).
 */
static char *odd_switch_format(void)
{
	char *f = strdup(tdat_fmt_switch), *p;

	if (!f)
		return NULL;
	p = strstr(f, "{ 0x00000040, \"P\" }");
	if (p)
		p[15] = 'Q';
	p = strstr(f, "{ 0x00000080, \"I\" }");
	if (p)
		p[15] = 'N';
	return f;
}

/*
 * CPU 1 switching "spin" out in the states @raw (the kernel's bits, in
 * the 4.14 format the file describes) under @uname (NULL: no UNAME option)
 * and @format (NULL: the usual one), reported with @extra options; the
 * decoded trace, NULL on failure.
 */
static char *states_trace(FIXTURE_DATA(pf) *self, const char *uname, const char *format,
			  const int64_t *raw, int n, const char *extra)
{
	char tmp[160];
	struct tdat w;
	int k;

	if (tdat_open(&w, 2))
		return NULL;
	tdat_uname(&w, uname);
	w.switch_format = format;
	tdat_comm(&w, 42, "spin");
	for (k = 0; k <= 20; k++)
		tdat_battery(&w, 0, T0 + k * 10 * MS, 77, k + 1, 3800000, -500000, 4000, 0);
	tdat_switch_state(&w, 1, T0 + 1 * MS, "swapper/1", 0, 0, "spin", 42);
	for (k = 0; k < n; k++) {
		tdat_switch_state(&w, 1, T0 + (2 + 2 * k) * MS, "spin", 42, raw[k], "swapper/1", 0);
		tdat_switch_state(&w, 1, T0 + (3 + 2 * k) * MS, "swapper/1", 0, 0, "spin", 42);
	}
	if (tdat_close(&w, self->in) || run_report(self, extra))
		return NULL;
	snprintf(tmp, sizeof(tmp), "%s/decoded", self->dir);
	return decode(PROTO_DIR, "perfetto_trace.proto", self->trace, tmp);
}

/* The compact switches' prev_state of @text, "spin"'s only (every other one). */
static void expect_states(struct __test_metadata *_metadata, const char *text,
			  const double *want, int n)
{
	double v[64];
	int k;

	ASSERT_EQ(2 * n, values_after(text, "switch_prev_state: ", v, 64));
	for (k = 0; k < n; k++) {
		EXPECT_EQ(want[k], v[2 * k]);
		EXPECT_EQ(0, v[2 * k + 1]);	/* swapper, running: R */
	}
}

/*
 * prev_state in the layout trace_processor reads for the capture's
 * kernel, named by a SystemInfo packet when the trace.dat's UNAME option
 * names it: S D T P I R+ on 6.12 (4.14's layout), 4.9 (4.8's) and with no
 * kernel named (4.4's); an unparsed state written unknown (0x200) in 4.14's
 * layout, as before (its known letters, R) in the others; a release
 * trace_processor would not read names no kernel.
 */
TEST_F_TIMEOUT(pf, tracedat_kernel_layouts, 180)
{
	static const int64_t raw[] = { 0x1, 0x2, 0x4, 0x40, 0x80, 0x100, 0 };
	static const double l414[] = { 1, 2, 4, 0x40, 0x80, 0x100, 0 };
	static const double l48[] = { 1, 2, 4, 0x200, 0x402, 0x1000, 0 };
	static const double l44[] = { 1, 2, 4, 0x200, 0x402, 0x800, 0 };
	static const int64_t odd[] = { 0x40, 0x80, 0x41, 0x1 };
	static const double odd414[] = { 0x200, 0x200, 0x200, 1 };
	static const double odd48[] = { 0, 0x400, 0, 1 };
	char *text, *fmt = odd_switch_format(), tmp[160];

	ASSERT_NE(NULL, fmt);
	text = states_trace(self, "Linux buildhost 6.12.38+deb13-amd64 x86_64", NULL, raw, 7, "");
	ASSERT_NE(NULL, text);
	EXPECT_EQ(1, count_of(text, "system_info { utsname { sysname: \"Linux\" "
				 "release: \"6.12.38+deb13-amd64\" machine: \"x86_64\" } }"));
	EXPECT_EQ(0, count_of(text, "buildhost"));
	/* before the first bundle: trace_processor reads it as it meets it */
	EXPECT_GT(strstr(text, "ftrace_events {"), strstr(text, "system_info {"));
	/* the CPU's first switch, whole: R in every layout */
	EXPECT_EQ(1, count_of(text, "prev_state: 0 next_comm: \"spin\""));
	expect_states(_metadata, text, l414, 7);
	snprintf(tmp, sizeof(tmp), "%s/upstream", self->dir);
	check_upstream(_metadata, self->trace, text, tmp);
	free(text);

	/* through the report's filters too */
	text = states_trace(self, "Linux h 4.9.337 armv7l", NULL, raw, 7, "--cpu 0-1");
	ASSERT_NE(NULL, text);
	EXPECT_EQ(1, count_of(text, "release: \"4.9.337\" machine: \"armv7l\""));
	expect_states(_metadata, text, l48, 7);
	free(text);

	text = states_trace(self, NULL, NULL, raw, 7, "");
	ASSERT_NE(NULL, text);
	EXPECT_EQ(0, count_of(text, "system_info"));
	expect_states(_metadata, text, l44, 7);
	free(text);

	/* "6" or "6.1-rc1": trace_processor reads no version (or another) from it */
	text = states_trace(self, "Linux h 6.1-rc1 x86_64", NULL, raw, 7, "");
	ASSERT_NE(NULL, text);
	EXPECT_EQ(0, count_of(text, "system_info"));
	expect_states(_metadata, text, l44, 7);
	free(text);

	text = states_trace(self, "Linux h 6.1.0-rc1 x86_64", fmt, odd, 4, "");
	ASSERT_NE(NULL, text);
	EXPECT_EQ(1, count_of(text, "release: \"6.1.0-rc1\""));
	expect_states(_metadata, text, odd414, 4);
	free(text);

	text = states_trace(self, "Linux h 4.13.0 x86_64", fmt, odd, 4, "");
	ASSERT_NE(NULL, text);
	expect_states(_metadata, text, odd48, 4);
	free(text);
	free(fmt);
}

struct slice_ev {
	unsigned long long ts;
	int begin;
	char name[32];
	double energy;
	int unterminated;
};

/* The slice events of the decoded @text, in file order; returns how many. */
static int slice_events(const char *text, struct slice_ev *out, int max)
{
	const char *p = text, *next, *q;
	int n = 0;

	while ((p = strstr(p, "packet {")) && n < max) {
		next = strstr(p + 1, "packet {");
		if (!next)
			next = p + strlen(p);
		q = strstr(p, "type: TYPE_SLICE_");
		if (q && q < next) {
			struct slice_ev *e = &out[n++];

			memset(e, 0, sizeof(*e));
			e->ts = strtoull(strstr(p, "timestamp: ") + 11, NULL, 10);
			e->begin = !strncmp(q, "type: TYPE_SLICE_BEGIN", 22);
			q = strstr(p, "name: \"");
			if (e->begin && q && q < next)
				sscanf(q + 7, "%31[^\"]", e->name);
			q = strstr(p, "double_value: ");
			if (q && q < next)
				e->energy = strtod(q + 14, NULL);
			q = strstr(p, "name: \"unterminated\"");
			e->unterminated = q && q < next;
		}
		p = next;
	}
	return n;
}

/* In time order, ties in file order, as Perfetto's sorter keeps them. */
static void sort_by_time(struct slice_ev *ev, int n)
{
	struct slice_ev t;
	int i, j;

	for (i = 1; i < n; i++) {
		t = ev[i];
		for (j = i; j > 0 && ev[j - 1].ts > t.ts; j--)
			ev[j] = ev[j - 1];
		ev[j] = t;
	}
}

/*
 * Write @g, report it to Perfetto and decode the trace: its slice events
 * into @ev (at most @max) in time order, their number into *@n.  Returns
 * the decoded text (the caller frees it).
 */
static char *report_slice_events(struct __test_metadata *_metadata, FIXTURE_DATA(pf) *self,
				 struct gen *g, struct slice_ev *ev, int max, int *n)
{
	char tmp[128], *text;

	*n = 0;
	ASSERT_EQ(0, gen_write(g, self->in));
	ASSERT_EQ(0, run_report(self, ""));
	snprintf(tmp, sizeof(tmp), "%s/decoded", self->dir);
	text = decode(PROTO_DIR, "perfetto_trace.proto", self->trace, tmp);
	ASSERT_NE(NULL, text);
	*n = slice_events(text, ev, max);
	sort_by_time(ev, *n);
	return text;
}

/*
 * Slices still open at the last sample, and one inside them that ends
 * after it: read as Perfetto reads them (events in time order, an END
 * closing the innermost open slice of its track), each slice gets its own
 * end and its own energy.
 */
TEST_F_TIMEOUT(pf, slices_ending_after_the_last_sample, 120)
{
	struct gen g = { .nr_cpus = 1 };
	struct slice_ev ev[16], *stack[16];
	char *text;
	int k, n, depth = 0, ended = 0;

	for (k = 0; k <= 10; k++)
		gen_battery(&g, T0 + k * 100 * MS, k, 4000000, -500000, 5000, 0);
	gen_mark(&g, T0 + 200 * MS, 0, "spin", 42, 42, "B|42|outer");
	gen_mark(&g, T0 + 300 * MS, 0, "spin", 42, 42, "B|42|inner");
	gen_mark(&g, T0 + 500 * MS, 0, "spin", 42, 42, "B|42|late");
	gen_mark(&g, T0 + 1500 * MS, 0, "spin", 42, 42, "E|42");
	text = report_slice_events(_metadata, self, &g, ev, 16, &n);
	ASSERT_NE(NULL, text);
	ASSERT_EQ(6, n);
	for (k = 0; k < n; k++) {
		if (ev[k].begin) {
			stack[depth++] = &ev[k];
			continue;
		}
		ASSERT_LT(0, depth);
		depth--;
		ended++;
		/* 2 W from begin to the last sample (1.0 s) */
		if (!strcmp(stack[depth]->name, "late")) {
			EXPECT_EQ(T0 + 1500 * MS, ev[k].ts);
			EXPECT_NEAR(1.0, ev[k].energy, 1e-6);
			/* its E came, after the last sample: it did end */
			EXPECT_FALSE(ev[k].unterminated);
		} else if (!strcmp(stack[depth]->name, "inner")) {
			EXPECT_LE(T0 + 1500 * MS, ev[k].ts);
			EXPECT_NEAR(1.4, ev[k].energy, 1e-6);
			EXPECT_TRUE(ev[k].unterminated);
		} else {
			EXPECT_STREQ("outer", stack[depth]->name);
			EXPECT_LE(T0 + 1500 * MS, ev[k].ts);
			EXPECT_NEAR(1.6, ev[k].energy, 1e-6);
			EXPECT_TRUE(ev[k].unterminated);
		}
	}
	EXPECT_EQ(3, ended);
	EXPECT_EQ(0, depth);
	free(text);
	/* the report counts the two left open, not the one that ended */
	text = slurp(self->json);
	ASSERT_NE(NULL, text);
	EXPECT_NE(NULL, strstr(text, "\"name\": \"late\", \"count\": 1, \"duration_s\": 1.000000000, "
				   "\"energy_j\": 1, \"unterminated\": 0}"));
	EXPECT_NE(NULL, strstr(text, "\"name\": \"inner\", \"count\": 1, \"duration_s\": 0.700000000, "
				   "\"energy_j\": 1.4, \"unterminated\": 1}"));
	free(text);
}

/*
 * A slice that begins and ends before the first sample (a loaded machine
 * whose sampler starts late): one BEGIN and one END, the END with its
 * energy (0: no power known yet) and not flagged unterminated, so that
 * Perfetto's nesting stays right for the slice after it.
 */
TEST_F_TIMEOUT(pf, slice_ended_before_the_first_sample, 120)
{
	struct gen g = { .nr_cpus = 1 };
	struct slice_ev ev[16];
	char *text;
	int k, n;

	gen_mark(&g, T0 - 700 * MS, 0, "sh", 42, 42, "B|42|early");
	gen_mark(&g, T0 - 200 * MS, 0, "sh", 42, 42, "E|42");
	for (k = 0; k <= 10; k++)
		gen_battery(&g, T0 + k * 100 * MS, k, 4000000, -500000, 5000, 0);
	gen_mark(&g, T0 + 200 * MS, 0, "sh", 42, 42, "B|42|later");
	gen_mark(&g, T0 + 700 * MS, 0, "sh", 42, 42, "E|42");
	text = report_slice_events(_metadata, self, &g, ev, 16, &n);
	ASSERT_NE(NULL, text);
	ASSERT_EQ(4, n) TH_LOG("%s", text);
	EXPECT_STREQ("early", ev[0].name);
	EXPECT_FALSE(ev[1].begin);
	EXPECT_EQ(T0 - 200 * MS, ev[1].ts);
	EXPECT_NEAR(0.0, ev[1].energy, 1e-9);
	EXPECT_FALSE(ev[1].unterminated);
	EXPECT_STREQ("later", ev[2].name);
	EXPECT_FALSE(ev[3].begin);
	/* 2 W for 0.5 s */
	EXPECT_NEAR(1.0, ev[3].energy, 1e-6);
	EXPECT_FALSE(ev[3].unterminated);
	EXPECT_EQ(2, count_of(text, "name: \"energy_j\" } type: TYPE_SLICE_END"));
	free(text);
}

/*
 * Switches that share a CPU's first switch's timestamp go out whole too:
 * the importer orders a bundle's compact switches before its whole events
 * at a tie and skips the first one it meets, which would then be the
 * second switch (compact_sched_switch_skipped) instead of the first.
 */
TEST_F_TIMEOUT(pf, ties_with_the_first_switch_are_whole, 120)
{
	struct gen g = { .nr_cpus = 1 };
	char *text, tmp[128], want[256];
	int k;

	for (k = 0; k <= 10; k++)
		gen_battery(&g, T0 + k * 100 * MS, k, 4000000, -500000, 5000, 0);
	gen_switch(&g, T0 + 100 * MS, 0, "swapper/0", 0, 0, "a", 42);
	gen_switch(&g, T0 + 100 * MS, 0, "a", 42, 42, "b", 43);
	gen_switch(&g, T0 + 100 * MS, 0, "b", 43, 43, "c", 44);
	gen_switch(&g, T0 + 300 * MS, 0, "c", 44, 44, "a", 42);
	gen_switch(&g, T0 + 400 * MS, 0, "a", 42, 42, "swapper/0", 0);
	ASSERT_EQ(0, gen_write(&g, self->in));
	ASSERT_EQ(0, run_report(self, ""));
	snprintf(tmp, sizeof(tmp), "%s/decoded", self->dir);
	text = decode(PROTO_DIR, "perfetto_trace.proto", self->trace, tmp);
	ASSERT_NE(NULL, text);
	/* three whole at the first timestamp, in order; two compact after */
	EXPECT_EQ(3, count_of(text, "sched_switch {"));
	snprintf(want, sizeof(want), "event { timestamp: %llu pid: 0 sched_switch { prev_comm: \"swapper/0\"",
		 T0 + 100 * MS);
	EXPECT_EQ(1, count_of(text, want));
	snprintf(want, sizeof(want), "event { timestamp: %llu pid: 42 sched_switch { prev_comm: \"a\"",
		 T0 + 100 * MS);
	EXPECT_EQ(1, count_of(text, want));
	snprintf(want, sizeof(want), "event { timestamp: %llu pid: 43 sched_switch { prev_comm: \"b\"",
		 T0 + 100 * MS);
	EXPECT_EQ(1, count_of(text, want));
	EXPECT_LT(strstr(text, "prev_comm: \"a\""), strstr(text, "prev_comm: \"b\""));
	EXPECT_EQ(2, count_of(text, "switch_next_pid: "));
	snprintf(want, sizeof(want), "compact_sched { switch_timestamp: %llu ", T0 + 300 * MS);
	EXPECT_EQ(1, count_of(text, want));
	check_upstream(_metadata, self->trace, text, tmp);
	free(text);
}

/* A Perfetto file that cannot be written: a message, status 1, nothing left. */
TEST_F(pf, unwritable_output)
{
	struct gen g = { .nr_cpus = 1 };
	char cmd[512];
	int k, st;

	for (k = 0; k <= 10; k++)
		gen_battery(&g, T0 + k * 10 * MS, k, 4000000, -500000, 5000, 0);
	ASSERT_EQ(0, gen_write(&g, self->in));
	snprintf(cmd, sizeof(cmd), "%s report %s --perfetto %s/no/such/dir/t.pftrace >/dev/null 2>%s/err",
		 POWERPIN, self->in, self->dir, self->dir);
	st = system(cmd);
	ASSERT_TRUE(WIFEXITED(st));
	EXPECT_EQ(1, WEXITSTATUS(st));
	snprintf(cmd, sizeof(cmd), "grep -q 'no/such/dir/t.pftrace' %s/err", self->dir);
	EXPECT_EQ(0, system(cmd));
}

TEST_HARNESS_MAIN
