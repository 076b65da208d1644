// SPDX-License-Identifier: GPL-2.0
/*
 * Perfetto's native trace format (a Trace of TracePackets, protobuf),
 * written during the report's second pass.  Messages are encoded with
 * protobuf-c from daemon/lib/perfetto_trace.proto, one TracePacket at a
 * time, so the output streams in constant memory.
 *
 * What goes in (docs/report.md says how it looks in the Perfetto UI):
 *   - a clock snapshot pairing the capture's trace clock with boottime;
 *   - the capture's kernel (system info), when the capture names it;
 *   - a "Battery (powerpin)" track group: voltage, current, power,
 *     cumulative energy, charge counter, capacity, temperature, energy of
 *     idle and of unattributed CPU time, and the markers;
 *   - a process track per process with its cumulative energy counter, a
 *     thread track per thread with its atrace slices (each END carries the
 *     slice's energy), atrace counters under their process;
 *   - sched_switch, sched_process_fork and sched_process_exit as ftrace
 *     event bundles, per CPU, as Perfetto's own ftrace data source writes
 *     them, so the UI draws CPU tracks and thread states.
 *
 * A slice's energy is final only at the power sample after its end, so
 * slice events wait in a queue until then and leave it in their order.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <linux/powerpin.h>

#include "perfetto_trace.pb-c.h"
#include "report.h"
#include "base/base.h"

/*
 * trusted_packet_sequence_id: processes, threads and their tracks on one
 * sequence, global tracks (battery, markers, counters of no process) on
 * another.  Perfetto takes the last thread descriptor of a sequence as the
 * default thread of its events (passthrough_utid), so global tracks must
 * not share a sequence with thread descriptors.
 */
#define PF_SEQ			1
#define PF_SEQ_GLOBAL		2
#define PF_NR_SEQ		3
#define PF_SEQ_CLOCK		64	/* a sequence-scoped clock: the trace clock */

/*
 * The bit layouts in which trace_processor reads sched_switch's prev_state
 * (src/trace_processor/types/task_state.cc), by the kernel release the
 * trace names: 4.4's for a trace that names none or a kernel before 4.8,
 * 4.8's (preemption moved to 0x1000) until 4.14, then 4.14's (TASK_REPORT:
 * P, I and preemption renumbered, x K W N gone).
 */
enum pf_state_layout { PF_STATE_4_4, PF_STATE_4_8, PF_STATE_4_14, PF_NR_LAYOUTS };

/*
 * In 4.14's layout, trace_processor reads any bit of 0xfe00 as a state it
 * cannot know (an end state of NULL, "Unknown" in the UI; counted in its
 * task_state_invalid stat): 0x200 since v30, which first read that layout
 * right, the whole mask since v31.  No kernel sets it (its states stop
 * below TASK_REPORT_MAX, 0x100).  The older layouts have no such value:
 * every bit means a state there.
 */
#define PF_STATE_UNKNOWN_4_14	0x200

#define PF_BUNDLE_EVENTS	256	/* fork and exit events per bundle */
#define PF_BUNDLE_SWITCHES	1024	/* sched_switch events per bundle */
#define PF_BUNDLE_COMMS		128	/* distinct task names per bundle */
#define PF_PROCESS_PERIOD_NS	100000000ULL	/* per-process energy every 100 ms */
#define PF_QUEUE_MAX		(1U << 20)	/* slice events waiting for energy */

/* Global track uuids; processes, threads and counters are above 1 << 32. */
enum {
	UUID_BATTERY = 1,
	UUID_VOLTAGE, UUID_CURRENT, UUID_POWER, UUID_ENERGY, UUID_CHARGE,
	UUID_CAPACITY, UUID_TEMP, UUID_IDLE, UUID_OTHER, UUID_MARKERS, UUID_CURRENT_AVG,
	UUID_MARKER_SPANS,
	UUID_MODEL_POWER, UUID_MODEL_ENERGY,
};
/*
 * Perfetto's ftrace tokenizer refuses a whole trace with a bundle for a
 * CPU numbered this or more: such events are left out, with a warning.
 */
#define PF_MAX_CPU		1024
#define UUID_PROCESS(tgid)	((1ULL << 32) | (uint32_t)(tgid))
#define UUID_THREAD(pid)	((2ULL << 32) | (uint32_t)(pid))
#define UUID_PROC_ENERGY(tgid)	((3ULL << 32) | (uint32_t)(tgid))
#define UUID_COUNTER(i)		((4ULL << 32) | (uint32_t)(i))
#define UUID_PROC_MODEL(tgid)	((5ULL << 32) | (uint32_t)(tgid))

typedef Perfetto__Protos__TracePacket Packet;
typedef Perfetto__Protos__TrackEvent TrackEvent;
typedef Perfetto__Protos__TrackDescriptor TrackDescriptor;
typedef Perfetto__Protos__FtraceEvent FtraceEvent;

struct pf_ftrace {			/* one buffered ftrace event */
	FtraceEvent ev;
	union {
		Perfetto__Protos__SchedProcessForkFtraceEvent fork;
		Perfetto__Protos__SchedProcessExitFtraceEvent exit;
		Perfetto__Protos__SchedSwitchFtraceEvent sw;
	};
	char comm1[32], comm2[32];
};

/*
 * One CPU's bundle being filled: fork and exit as events, sched_switch in
 * the compact form (arrays, comms interned), as Perfetto's ftrace data
 * source writes them: about 10 bytes a switch instead of 80.
 */
struct pf_cpu {
	struct pf_ftrace ev[PF_BUNDLE_EVENTS];
	FtraceEvent *ptr[PF_BUNDLE_EVENTS];
	unsigned int n;
	uint64_t sw_ts[PF_BUNDLE_SWITCHES];
	int64_t sw_state[PF_BUNDLE_SWITCHES];
	int32_t sw_pid[PF_BUNDLE_SWITCHES], sw_prio[PF_BUNDLE_SWITCHES];
	uint32_t sw_comm[PF_BUNDLE_SWITCHES];
	unsigned int nsw;
	char *intern[PF_BUNDLE_COMMS];
	unsigned int nintern;
	bool lost;
	bool switched;			/* its first switch went out in full */
	uint64_t first_sw_ts;		/* ... at this timestamp */
};

struct pf_slice_event {
	uint64_t ts_ns;
	uint64_t id;
	int pid;
	bool begin, ready, unterminated;
	double energy_j;
	char *name;			/* begin only */
};

struct pf_counter {			/* atrace or powerpin counter track */
	int tgid;			/* 0: global (powerpin:powerpin_counter); -pid: tgid unknown */
	char *name;
};

struct pf_writer {
	const struct report *r;		/* first pass: sign, tasks, processes */
	FILE *out;
	int error;
	bool started;
	bool cleared[PF_NR_SEQ];	/* each sequence's first packet went out */
	uint64_t dropped_cpu_events;	/* on CPUs >= PF_MAX_CPU */
	struct trace_clock_info clock;	/* its pairs: pairs below */
	struct trace_clock_pair *pairs;	/* every pair of the capture, in order */
	size_t nr_pairs;
	uint32_t clock_id;		/* of the packets' timestamps; 0 boottime */
	struct trace_kernel_info kernel;	/* sysname "" when not named */
	enum pf_state_layout layout;	/* of prev_state, by that kernel */
	int ftrace_clock;		/* FtraceClock, 0 unset */

	struct pf_cpu **cpus;
	int nr_cpus;

	struct pf_slice_event *queue;
	uint32_t q_head, q_len, q_cap;
	uint64_t last_slice_ns;		/* latest BEGIN or END queued */
	/*
	 * A slice that ended before the first sample is done inside the live
	 * report's handling of its E, before this writer queues that END:
	 * its id and energy, for the END about to come.
	 */
	uint64_t done_early_id;
	double done_early_j;

	struct pf_counter *counters;
	uint32_t nr_counters, cap_counters;
	int *tracks_done;		/* tgids/pids whose descriptors went out, sorted */
	uint32_t nr_done, cap_done;

	/* per-process energy: last value written, by first-pass process index */
	double *proc_energy, *proc_sent;
	struct report_process_map map;
	uint64_t next_process_ns;
	bool have_charge, have_capacity, have_temp, have_current_avg;
	int64_t last_charge, last_current_avg;
	int32_t last_capacity, last_temp;
	double last_idle, last_other;
	double *model_sent;		/* per-process modelled energy last written */

	uint8_t *buf;
	size_t buf_cap;
};

/* ---- packets --------------------------------------------------------- */

static void put_varint(FILE *out, uint64_t v)
{
	uint8_t b[10];
	int n = 0;

	do {
		b[n] = v & 0x7f;
		v >>= 7;
		if (v)
			b[n] |= 0x80;
		n++;
	} while (v);
	fwrite(b, 1, n, out);
}

/*
 * Write @p as one `packet` field (1, length-delimited) of the Trace.  The
 * first packet starts the sequence's incremental state (the packet
 * defaults that name the timestamps' clock belong to it), as a Perfetto
 * trace writer's first packet does.
 */
static void emit_on(struct pf_writer *w, int seq, Packet *p)
{
	size_t len;

	p->optional_trusted_packet_sequence_id_case =
		PERFETTO__PROTOS__TRACE_PACKET__OPTIONAL_TRUSTED_PACKET_SEQUENCE_ID_TRUSTED_PACKET_SEQUENCE_ID;
	p->trusted_packet_sequence_id = seq;
	if (!w->cleared[seq]) {
		p->has_sequence_flags = true;
		p->sequence_flags |=
			PERFETTO__PROTOS__TRACE_PACKET__SEQUENCE_FLAGS__SEQ_INCREMENTAL_STATE_CLEARED;
		w->cleared[seq] = true;
	}
	len = perfetto__protos__trace_packet__get_packed_size(p);
	if (len > w->buf_cap) {
		uint8_t *b = realloc(w->buf, len * 2);

		if (!b) {
			w->error = ENOMEM;
			return;
		}
		w->buf = b;
		w->buf_cap = len * 2;
	}
	perfetto__protos__trace_packet__pack(p, w->buf);
	fputc(0x0a, w->out);
	put_varint(w->out, len);
	fwrite(w->buf, 1, len, w->out);
}

static void emit(struct pf_writer *w, Packet *p)
{
	emit_on(w, PF_SEQ, p);
}

static void emit_event(struct pf_writer *w, int seq, uint64_t ts_ns, TrackEvent *te)
{
	Packet p = PERFETTO__PROTOS__TRACE_PACKET__INIT;

	p.has_timestamp = true;
	p.timestamp = ts_ns;
	/* a timestamp in the defaults' clock needs them */
	if (w->clock_id) {
		p.has_sequence_flags = true;
		p.sequence_flags =
			PERFETTO__PROTOS__TRACE_PACKET__SEQUENCE_FLAGS__SEQ_NEEDS_INCREMENTAL_STATE;
	}
	p.data_case = PERFETTO__PROTOS__TRACE_PACKET__DATA_TRACK_EVENT;
	p.track_event = te;
	emit_on(w, seq, &p);
}

static void emit_counter(struct pf_writer *w, int seq, uint64_t ts_ns, uint64_t uuid, double v)
{
	TrackEvent te = PERFETTO__PROTOS__TRACK_EVENT__INIT;

	te.has_type = true;
	te.type = PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_COUNTER;
	te.has_track_uuid = true;
	te.track_uuid = uuid;
	te.counter_value_field_case =
		PERFETTO__PROTOS__TRACK_EVENT__COUNTER_VALUE_FIELD_DOUBLE_COUNTER_VALUE;
	te.double_counter_value = v + 0.0;
	emit_event(w, seq, ts_ns, &te);
}

static void emit_int_counter(struct pf_writer *w, int seq, uint64_t ts_ns, uint64_t uuid,
			     int64_t v)
{
	TrackEvent te = PERFETTO__PROTOS__TRACK_EVENT__INIT;

	te.has_type = true;
	te.type = PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_COUNTER;
	te.has_track_uuid = true;
	te.track_uuid = uuid;
	te.counter_value_field_case = PERFETTO__PROTOS__TRACK_EVENT__COUNTER_VALUE_FIELD_COUNTER_VALUE;
	te.counter_value = v;
	emit_event(w, seq, ts_ns, &te);
}

static void emit_descriptor(struct pf_writer *w, int seq, TrackDescriptor *td)
{
	Packet p = PERFETTO__PROTOS__TRACE_PACKET__INIT;

	p.data_case = PERFETTO__PROTOS__TRACE_PACKET__DATA_TRACK_DESCRIPTOR;
	p.track_descriptor = td;
	emit_on(w, seq, &p);
}

/* A counter track; @parent 0 for none, @rank < 0 for none. */
static void counter_track(struct pf_writer *w, int seq, uint64_t uuid, uint64_t parent, int rank,
			  const char *name, const char *unit, const char *description)
{
	TrackDescriptor td = PERFETTO__PROTOS__TRACK_DESCRIPTOR__INIT;
	Perfetto__Protos__CounterDescriptor cd = PERFETTO__PROTOS__COUNTER_DESCRIPTOR__INIT;
	char *n = utf8_sanitize(name, SIZE_MAX);

	td.has_uuid = true;
	td.uuid = uuid;
	if (parent) {
		td.has_parent_uuid = true;
		td.parent_uuid = parent;
	}
	if (rank >= 0) {
		td.has_sibling_order_rank = true;
		td.sibling_order_rank = rank;
	}
	td.static_or_dynamic_name_case = PERFETTO__PROTOS__TRACK_DESCRIPTOR__STATIC_OR_DYNAMIC_NAME_NAME;
	td.name = n ? n : (char *)"?";
	td.description = (char *)description;
	cd.unit_name = (char *)unit;
	td.counter = &cd;
	emit_descriptor(w, seq, &td);
	free(n);
}

/* ---- clock ----------------------------------------------------------- */

void pf_clock(struct pf_writer *w, const struct trace_clock_info *ci)
{
	const struct trace_clock_pair one = {
		ci->trace_ns, ci->boottime_ns, ci->realtime_ns
	};
	const struct trace_clock_pair *src = ci->nr_pairs ? ci->pairs : &one;
	size_t n = ci->nr_pairs ? ci->nr_pairs : 1;

	w->clock = *ci;
	w->clock.pairs = NULL;
	free(w->pairs);
	w->pairs = NULL;
	w->nr_pairs = 0;
	if (!ci->have_pair)
		return;
	w->pairs = malloc(n * sizeof(*w->pairs));
	if (!w->pairs) {
		w->error = ENOMEM;
		return;
	}
	memcpy(w->pairs, src, n * sizeof(*w->pairs));
	w->nr_pairs = n;
}

/*
 * The pair a timestamp @ts of the trace clock maps by: the last one taken
 * at or before it, else the first (as trace_processor's clock tracker
 * chooses among snapshots).
 */
static const struct trace_clock_pair *pair_at(const struct pf_writer *w, uint64_t ts)
{
	size_t lo = 0, hi = w->nr_pairs;

	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (w->pairs[mid].trace_ns <= ts)
			lo = mid;
		else
			hi = mid;
	}
	return &w->pairs[lo];
}

/* One pair as a clock snapshot on both sequences; the first sets the defaults. */
static void clock_snapshot(struct pf_writer *w, const struct trace_clock_pair *pr, bool first)
{
	Perfetto__Protos__ClockSnapshot cs = PERFETTO__PROTOS__CLOCK_SNAPSHOT__INIT;
	Perfetto__Protos__ClockSnapshot__Clock c[3], *cp[3];
	Perfetto__Protos__TracePacketDefaults d = PERFETTO__PROTOS__TRACE_PACKET_DEFAULTS__INIT;
	Packet p = PERFETTO__PROTOS__TRACE_PACKET__INIT;
	int i, n = 0;

	for (i = 0; i < 3; i++) {
		perfetto__protos__clock_snapshot__clock__init(&c[i]);
		cp[i] = &c[i];
	}
	c[n].has_clock_id = c[n].has_timestamp = true;
	c[n].clock_id = PERFETTO__PROTOS__BUILTIN_CLOCK__BUILTIN_CLOCK_BOOTTIME;
	c[n++].timestamp = pr->boottime_ns;
	if (w->clock_id) {
		c[n].has_clock_id = c[n].has_timestamp = true;
		c[n].clock_id = w->clock_id;
		c[n++].timestamp = pr->trace_ns;
	}
	if (pr->realtime_ns) {
		c[n].has_clock_id = c[n].has_timestamp = true;
		c[n].clock_id = PERFETTO__PROTOS__BUILTIN_CLOCK__BUILTIN_CLOCK_REALTIME;
		c[n++].timestamp = pr->realtime_ns;
	}
	cs.n_clocks = n;
	cs.clocks = cp;
	cs.has_primary_trace_clock = true;
	cs.primary_trace_clock = PERFETTO__PROTOS__BUILTIN_CLOCK__BUILTIN_CLOCK_BOOTTIME;
	p.data_case = PERFETTO__PROTOS__TRACE_PACKET__DATA_CLOCK_SNAPSHOT;
	p.clock_snapshot = &cs;
	if (first && w->clock_id) {
		d.has_timestamp_clock_id = true;
		d.timestamp_clock_id = w->clock_id;
		p.trace_packet_defaults = &d;
	}
	/* a sequence-scoped clock and the defaults belong to each sequence */
	emit_on(w, PF_SEQ, &p);
	emit_on(w, PF_SEQ_GLOBAL, &p);
}

/*
 * The packets' clock.  A capture in the boot clock needs nothing; one with
 * readings paired with boottime gets them as clock snapshots, and its
 * events keep their own timestamps in a clock of their own, mapped to
 * boottime by those pairs, the way Perfetto's ftrace data source records
 * ftrace clocks other than boot (it takes a pair per read of the buffer:
 * the capture takes them during the capture, so drift and suspend between
 * the clocks are followed).  Every snapshot goes out first: the importer
 * converts timestamps as it reads them, by the snapshots seen so far.
 * Without a pair the timestamps are taken as boottime, the only
 * assumption left.
 */
static void start_clock(struct pf_writer *w)
{
	const char *name = w->clock.name;
	size_t i;

	if (!w->clock.have_pair || !w->nr_pairs)
		return;
	if (strcmp(name, "boot")) {
		if (!strcmp(name, "mono_raw")) {
			w->clock_id = PERFETTO__PROTOS__BUILTIN_CLOCK__BUILTIN_CLOCK_MONOTONIC_RAW;
			w->ftrace_clock = PERFETTO__PROTOS__FTRACE_CLOCK__FTRACE_CLOCK_MONO_RAW;
		} else {
			w->clock_id = PF_SEQ_CLOCK;
			w->ftrace_clock = !strcmp(name, "global") ?
				PERFETTO__PROTOS__FTRACE_CLOCK__FTRACE_CLOCK_GLOBAL :
				PERFETTO__PROTOS__FTRACE_CLOCK__FTRACE_CLOCK_LOCAL;
		}
	}
	for (i = 0; i < w->nr_pairs; i++)
		clock_snapshot(w, &w->pairs[i], i == 0);
}

/* ---- the kernel ------------------------------------------------------ */

/*
 * @release's major and minor numbers as trace_processor reads them
 * (system_info_tracker.cc: up to the first dot, then up to the next dot or
 * the end), only when both are plain digits: a release it would read some
 * other way is not named, so the two never disagree on the layout (and
 * trace_processor before v50 aborts on a release it cannot read).
 */
static bool release_version(const char *rel, unsigned long *major, unsigned long *minor)
{
	size_t a = strspn(rel, "0123456789"), b;

	if (!a || a > 5 || rel[a] != '.')
		return false;
	b = strspn(rel + a + 1, "0123456789");
	if (!b || b > 5 || (rel[a + 1 + b] != '.' && rel[a + 1 + b] != '\0'))
		return false;
	*major = strtoul(rel, NULL, 10);
	*minor = strtoul(rel + a + 1, NULL, 10);
	return true;
}

/*
 * The capture's kernel.  trace_processor takes a version only from a
 * system named "Linux"; any other, or a release it would not read as
 * above, leaves the trace naming no kernel (4.4's layout).
 */
void pf_kernel(struct pf_writer *w, const struct trace_kernel_info *k)
{
	unsigned long major, minor;

	if (strcmp(k->sysname, "Linux") || !release_version(k->release, &major, &minor))
		return;
	w->kernel = *k;
	if (major > 4 || (major == 4 && minor >= 14))
		w->layout = PF_STATE_4_14;
	else if (major == 4 && minor >= 8)
		w->layout = PF_STATE_4_8;
	else
		w->layout = PF_STATE_4_4;
}

/*
 * The kernel as a SystemInfo packet, before any ftrace bundle: Perfetto
 * reads it as it meets it in the file (tokenizing), so every switch after
 * it is read in its kernel's layout.  The host name is not written.
 */
static void system_info(struct pf_writer *w)
{
	Perfetto__Protos__SystemInfo si = PERFETTO__PROTOS__SYSTEM_INFO__INIT;
	Perfetto__Protos__Utsname u = PERFETTO__PROTOS__UTSNAME__INIT;
	Packet p = PERFETTO__PROTOS__TRACE_PACKET__INIT;

	if (!w->kernel.sysname[0])
		return;
	u.sysname = w->kernel.sysname;
	u.release = w->kernel.release;
	u.machine = w->kernel.machine[0] ? w->kernel.machine : NULL;
	si.utsname = &u;
	p.data_case = PERFETTO__PROTOS__TRACE_PACKET__DATA_SYSTEM_INFO;
	p.system_info = &si;
	emit_on(w, PF_SEQ_GLOBAL, &p);
}

/* ---- tracks ---------------------------------------------------------- */

/* Mark @key (a tgid, or a pid + INT_MIN/2 for threads) done; false if it was. */
static bool first_time(struct pf_writer *w, int key)
{
	uint32_t lo = 0, hi = w->nr_done, mid;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (w->tracks_done[mid] < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < w->nr_done && w->tracks_done[lo] == key)
		return false;
	if (w->nr_done == w->cap_done) {
		uint32_t cap = w->cap_done ? w->cap_done * 2 : 256;
		int *d = realloc(w->tracks_done, cap * sizeof(*d));

		if (!d) {
			w->error = ENOMEM;
			return false;
		}
		w->tracks_done = d;
		w->cap_done = cap;
	}
	memmove(&w->tracks_done[lo + 1], &w->tracks_done[lo],
		(w->nr_done - lo) * sizeof(*w->tracks_done));
	w->tracks_done[lo] = key;
	w->nr_done++;
	return true;
}

#define THREAD_KEY(pid)	((pid) - (1 << 30))

static const char *comm_of(const struct report *r, int pid)
{
	const struct report_task *t = report_find_task(r, pid);

	return t && t->comm[0] ? t->comm : NULL;
}

/* @pid's thread group, or -1 when the input does not say. */
static int tgid_of(const struct report *r, int pid)
{
	const struct report_task *t = report_find_task(r, pid);

	return t && t->tgid > 0 ? t->tgid : -1;
}

static uint64_t process_track(struct pf_writer *w, int tgid)
{
	TrackDescriptor td = PERFETTO__PROTOS__TRACK_DESCRIPTOR__INIT;
	Perfetto__Protos__ProcessDescriptor pd = PERFETTO__PROTOS__PROCESS_DESCRIPTOR__INIT;
	const char *comm;
	char *name = NULL;

	if (tgid <= 0 || !first_time(w, tgid))
		return UUID_PROCESS(tgid);
	comm = comm_of(w->r, tgid);
	td.has_uuid = true;
	td.uuid = UUID_PROCESS(tgid);
	pd.has_pid = true;
	pd.pid = tgid;
	if (comm) {
		name = utf8_sanitize(comm, SIZE_MAX);
		pd.process_name = name;
	}
	td.process = &pd;
	emit_descriptor(w, PF_SEQ, &td);
	free(name);
	return UUID_PROCESS(tgid);
}

/*
 * A thread whose group the input does not say: no thread descriptor
 * (Perfetto needs a pid in one, and would make the thread lead a process
 * of its own), a global track named "COMM PID (tgid unknown)" for its
 * slices, on the global sequence.
 */
static void unknown_thread_track(struct pf_writer *w, int pid, const char *comm)
{
	TrackDescriptor td = PERFETTO__PROTOS__TRACK_DESCRIPTOR__INIT;
	char label[64], *name;

	snprintf(label, sizeof(label), "%s %d (tgid unknown)", comm ? comm : "thread", pid);
	name = utf8_sanitize(label, SIZE_MAX);
	td.has_uuid = true;
	td.uuid = UUID_THREAD(pid);
	td.static_or_dynamic_name_case = PERFETTO__PROTOS__TRACK_DESCRIPTOR__STATIC_OR_DYNAMIC_NAME_NAME;
	td.name = name ? name : (char *)"(tgid unknown)";
	td.description = (char *)"A thread whose thread group the input does not record "
				 "(no record-tgid, saved_tgids or task_newtask for it).";
	emit_descriptor(w, PF_SEQ_GLOBAL, &td);
	free(name);
}

static uint64_t thread_track(struct pf_writer *w, int pid)
{
	TrackDescriptor td = PERFETTO__PROTOS__TRACK_DESCRIPTOR__INIT;
	Perfetto__Protos__ThreadDescriptor thd = PERFETTO__PROTOS__THREAD_DESCRIPTOR__INIT;
	int tgid = tgid_of(w->r, pid);
	const char *comm;
	char *name = NULL;

	if (pid <= 0 || !first_time(w, THREAD_KEY(pid)))
		return UUID_THREAD(pid);
	comm = comm_of(w->r, pid);
	if (tgid <= 0) {
		unknown_thread_track(w, pid, comm);
		return UUID_THREAD(pid);
	}
	process_track(w, tgid);
	td.has_uuid = true;
	td.uuid = UUID_THREAD(pid);
	thd.has_pid = thd.has_tid = true;
	thd.pid = tgid;
	thd.tid = pid;
	if (comm) {
		name = utf8_sanitize(comm, SIZE_MAX);
		thd.thread_name = name;
	}
	td.thread = &thd;
	emit_descriptor(w, PF_SEQ, &td);
	free(name);
	return UUID_THREAD(pid);
}

/* The sequence of @pid's thread track: global when its group is unknown. */
static int thread_seq(const struct pf_writer *w, int pid)
{
	return tgid_of(w->r, pid) > 0 ? PF_SEQ : PF_SEQ_GLOBAL;
}

#define DISCHARGE_NOTE	"Discharge counts positive: positive while the battery discharges, " \
			"negative while it charges."

/* A track of the battery group for markers, without a thread. */
static void marker_track(struct pf_writer *w, uint64_t uuid, const char *name, const char *desc)
{
	TrackDescriptor td = PERFETTO__PROTOS__TRACK_DESCRIPTOR__INIT;

	td.has_uuid = td.has_parent_uuid = td.has_sibling_order_rank = true;
	td.uuid = uuid;
	td.parent_uuid = UUID_BATTERY;
	td.sibling_order_rank = 10;
	td.static_or_dynamic_name_case = PERFETTO__PROTOS__TRACK_DESCRIPTOR__STATIC_OR_DYNAMIC_NAME_NAME;
	td.name = (char *)name;
	td.description = (char *)desc;
	emit_descriptor(w, PF_SEQ_GLOBAL, &td);
}

static void battery_tracks(struct pf_writer *w)
{
	TrackDescriptor td = PERFETTO__PROTOS__TRACK_DESCRIPTOR__INIT;
	char desc[256];

	snprintf(desc, sizeof(desc),
		 "powerpin battery samples. %s The input's current sign was %s (%s).",
		 DISCHARGE_NOTE, w->r->sign_name, w->r->sign_method);
	td.has_uuid = true;
	td.uuid = UUID_BATTERY;
	td.static_or_dynamic_name_case = PERFETTO__PROTOS__TRACK_DESCRIPTOR__STATIC_OR_DYNAMIC_NAME_NAME;
	td.name = (char *)"Battery (powerpin)";
	td.description = desc;
	td.has_child_ordering = true;
	td.child_ordering = PERFETTO__PROTOS__TRACK_DESCRIPTOR__CHILD_TRACKS_ORDERING__EXPLICIT;
	emit_descriptor(w, PF_SEQ_GLOBAL, &td);
	counter_track(w, PF_SEQ_GLOBAL, UUID_VOLTAGE, UUID_BATTERY, 0, "Voltage", "V", "Battery voltage.");
	counter_track(w, PF_SEQ_GLOBAL, UUID_CURRENT, UUID_BATTERY, 1, "Current (discharge +)", "A",
		      "Battery current. " DISCHARGE_NOTE);
	counter_track(w, PF_SEQ_GLOBAL, UUID_CURRENT_AVG, UUID_BATTERY, 2, "Average current (discharge +)", "A",
		      "The fuel gauge's own average of the current (current_avg), when it changes. "
		      DISCHARGE_NOTE);
	counter_track(w, PF_SEQ_GLOBAL, UUID_POWER, UUID_BATTERY, 3, "Power (discharge +)", "W",
		      "Voltage x current. " DISCHARGE_NOTE);
	counter_track(w, PF_SEQ_GLOBAL, UUID_ENERGY, UUID_BATTERY, 4, "Energy (cumulative, discharge +)", "J",
		      "Trapezoid of voltage x current since the first sample; the report's energy_j at the end. "
		      DISCHARGE_NOTE);
	counter_track(w, PF_SEQ_GLOBAL, UUID_CHARGE, UUID_BATTERY, 5, "Charge counter", "mAh",
		      "The fuel gauge's charge counter as read (falls while discharging).");
	counter_track(w, PF_SEQ_GLOBAL, UUID_CAPACITY, UUID_BATTERY, 6, "Capacity", "%",
		      "State of charge reported by the fuel gauge.");
	counter_track(w, PF_SEQ_GLOBAL, UUID_TEMP, UUID_BATTERY, 7, "Temperature", "\xc2\xb0" "C",
		      "Battery temperature reported by the fuel gauge.");
	counter_track(w, PF_SEQ_GLOBAL, UUID_IDLE, UUID_BATTERY, 8, "Energy: CPU idle (cumulative)", "J",
		      "Energy attributed to idle CPU time (pid 0). " DISCHARGE_NOTE);
	counter_track(w, PF_SEQ_GLOBAL, UUID_OTHER, UUID_BATTERY, 9, "Energy: not attributed (cumulative)", "J",
		      "Energy of CPU time no task can be named for (before a CPU's first sched_switch). "
		      DISCHARGE_NOTE);
	marker_track(w, UUID_MARKERS, "powerpin markers",
		     "trace_marker writes \"powerpin:<label>\".");
	marker_track(w, UUID_MARKER_SPANS, "powerpin marker spans",
		     "Each powerpin marker's span, from it to the next marker (the last one to the end of the capture), "
		     "with the energy the text report gives it (debug.energy_j). " DISCHARGE_NOTE);
}

#define PROCESS_ENERGY_NOTE	"Battery energy attributed to this process by its share of CPU time " \
				"in each sample interval. " DISCHARGE_NOTE

/* Every process and thread the first pass met, and per-process energy. */
static void task_tracks(struct pf_writer *w)
{
	const struct report *r = w->r;
	char name[96];
	uint32_t i;

	for (i = 0; i < r->nr_processes; i++) {
		const struct report_process *p = &r->processes[i];

		if (p->tgid_known) {
			process_track(w, p->tgid);
			counter_track(w, PF_SEQ, UUID_PROC_ENERGY(p->tgid), UUID_PROCESS(p->tgid), -1,
				      "Energy (cumulative, discharge +)", "J", PROCESS_ENERGY_NOTE);
			continue;
		}
		snprintf(name, sizeof(name), "Energy: %s %d (tgid unknown; cumulative, discharge +)",
			 p->comm, p->tgid);
		counter_track(w, PF_SEQ_GLOBAL, UUID_PROC_ENERGY(p->tgid), 0, -1, name, "J",
			      "A thread whose thread group the input does not record: its energy alone. "
			      PROCESS_ENERGY_NOTE);
	}
	for (i = 0; i < r->nr_tasks; i++)
		thread_track(w, r->tasks[i].pid);
}

#define MODEL_PROCESS_NOTE "This process's CPU time priced by the power_profile.xml of report --model."

/* A process's modelled energy track: under its process, or global when its group is unknown. */
static void model_process_track(struct pf_writer *w, const struct report_process *p)
{
	char name[112];

	if (p->tgid_known) {
		counter_track(w, PF_SEQ, UUID_PROC_MODEL(p->tgid), UUID_PROCESS(p->tgid), -1,
			      "Energy, modelled (cumulative, power_profile.xml)", "J",
			      MODEL_PROCESS_NOTE);
		return;
	}
	snprintf(name, sizeof(name), "Energy, modelled: %s %d (tgid unknown; cumulative)",
		 p->comm, p->tgid);
	counter_track(w, PF_SEQ_GLOBAL, UUID_PROC_MODEL(p->tgid), 0, -1, name, "J",
		      MODEL_PROCESS_NOTE);
}

/*
 * report --model: the model's power and cumulative energy beside the
 * measured ones (the same ranks: they follow them), and each process's
 * modelled energy beside its measured energy.
 */
static void model_tracks(struct pf_writer *w)
{
	const struct report *r = w->r;
	uint32_t i;

	if (!r->model)
		return;
	counter_track(w, PF_SEQ_GLOBAL, UUID_MODEL_POWER, UUID_BATTERY, 3, "Power, modelled (power_profile.xml)", "W",
		      "What the power_profile.xml of report --model predicts over each sample interval: "
		      "cpu.idle plus each busy CPU's core and cluster current at the frequency it ran at, "
		      "x the voltage.");
	counter_track(w, PF_SEQ_GLOBAL, UUID_MODEL_ENERGY, UUID_BATTERY, 4,
		      "Energy, modelled (cumulative, power_profile.xml)", "J",
		      "cpu.idle since the first sample plus every process's modelled CPU energy, at the mean voltage.");
	for (i = 0; i < r->nr_processes; i++)
		model_process_track(w, &r->processes[i]);
}

/* The model's power over the interval this sample closes, and its energy. */
static void model_power(struct pf_writer *w, const struct report *live, uint64_t ts)
{
	double pw = report_model_power_w(live->model_run);

	if (!live->model_run || isnan(pw))
		return;
	emit_counter(w, PF_SEQ_GLOBAL, ts, UUID_MODEL_POWER, pw);
	emit_counter(w, PF_SEQ_GLOBAL, ts, UUID_MODEL_ENERGY, report_model_device_j(live->model_run));
}

/* Each process's modelled energy, where its measured energy goes. */
static void model_process_energy(struct pf_writer *w, const struct report *live, uint64_t ts)
{
	const struct report *r = w->r;
	uint32_t j;
	double e;

	if (!live->model_run || !w->model_sent)
		return;
	for (j = 0; j < r->nr_processes; j++) {
		e = report_model_process_j(live->model_run, j);
		if (e != w->model_sent[j]) {
			emit_counter(w, r->processes[j].tgid_known ? PF_SEQ : PF_SEQ_GLOBAL, ts,
				     UUID_PROC_MODEL(r->processes[j].tgid), e);
			w->model_sent[j] = e;
		}
	}
}

static void start(struct pf_writer *w)
{
	if (w->started)
		return;
	w->started = true;
	start_clock(w);
	system_info(w);
	battery_tracks(w);
	task_tracks(w);
	model_tracks(w);
}

/* ---- ftrace bundles --------------------------------------------------- */

static struct pf_cpu *cpu_get(struct pf_writer *w, const struct trace_event *ev);
static int64_t prev_state_raw(const struct pf_writer *w, unsigned int s);

static void flush_cpu(struct pf_writer *w, int cpu)
{
	Perfetto__Protos__FtraceEventBundle b = PERFETTO__PROTOS__FTRACE_EVENT_BUNDLE__INIT;
	Perfetto__Protos__FtraceEventBundle__CompactSched cs =
		PERFETTO__PROTOS__FTRACE_EVENT_BUNDLE__COMPACT_SCHED__INIT;
	Packet p = PERFETTO__PROTOS__TRACE_PACKET__INIT;
	struct pf_cpu *c = w->cpus[cpu];
	unsigned int i;

	if (!c || (!c->n && !c->nsw && !c->lost))
		return;
	b.has_cpu = true;
	b.cpu = cpu;
	b.n_event = c->n;
	b.event = c->ptr;
	if (c->nsw) {
		/* the first timestamp absolute, then deltas */
		for (i = c->nsw - 1; i > 0; i--)
			c->sw_ts[i] -= c->sw_ts[i - 1];
		cs.n_intern_table = c->nintern;
		cs.intern_table = c->intern;
		cs.n_switch_timestamp = cs.n_switch_prev_state = cs.n_switch_next_pid = c->nsw;
		cs.n_switch_next_prio = cs.n_switch_next_comm_index = c->nsw;
		cs.switch_timestamp = c->sw_ts;
		cs.switch_prev_state = c->sw_state;
		cs.switch_next_pid = c->sw_pid;
		cs.switch_next_prio = c->sw_prio;
		cs.switch_next_comm_index = c->sw_comm;
		b.compact_sched = &cs;
	}
	if (c->lost) {
		b.has_lost_events = true;
		b.lost_events = true;
	}
	if (w->ftrace_clock && w->nr_pairs) {
		/* the pair in force at the bundle's first event */
		uint64_t first = c->n ? c->ptr[0]->timestamp : UINT64_MAX;
		const struct trace_clock_pair *pr;

		if (c->nsw && c->sw_ts[0] < first)
			first = c->sw_ts[0];
		pr = pair_at(w, first);
		b.has_ftrace_clock = b.has_ftrace_timestamp = b.has_boot_timestamp = true;
		b.ftrace_clock = w->ftrace_clock;
		b.ftrace_timestamp = pr->trace_ns;
		b.boot_timestamp = pr->boottime_ns;
	}
	p.data_case = PERFETTO__PROTOS__TRACE_PACKET__DATA_FTRACE_EVENTS;
	p.ftrace_events = &b;
	emit(w, &p);
	for (i = 0; i < c->nintern; i++)
		free(c->intern[i]);
	c->n = c->nsw = c->nintern = 0;
	c->lost = false;
}

/* Index of @comm in the CPU's intern table, adding it; -1 when out of memory. */
static int intern_comm(struct pf_writer *w, int cpu, const char *comm)
{
	struct pf_cpu *c = w->cpus[cpu];
	char *s = utf8_sanitize(comm ? comm : "", 15);
	unsigned int i;

	if (!s) {
		w->error = ENOMEM;
		return -1;
	}
	for (i = 0; i < c->nintern; i++)
		if (!strcmp(c->intern[i], s)) {
			free(s);
			return (int)i;
		}
	c->intern[c->nintern] = s;
	return (int)c->nintern++;
}

static struct pf_ftrace *ftrace_slot(struct pf_writer *w, const struct trace_event *ev);
static char *comm_copy(char *buf, size_t len, const char *comm);

/*
 * A switch as a whole sched_switch event: Perfetto skips the first compact
 * switch of each CPU (its previous task is implied by nothing), so each
 * CPU's first switch goes out in this form.  So does every switch at that
 * same timestamp: the importer queues a bundle's compact switches before
 * its whole events and breaks timestamp ties by that order, so a compact
 * switch sharing the first one's timestamp would sort before it and be the
 * one skipped.
 */
static void full_switch(struct pf_writer *w, const struct trace_event *ev)
{
	struct pf_ftrace *f = ftrace_slot(w, ev);

	if (!f)
		return;
	perfetto__protos__sched_switch_ftrace_event__init(&f->sw);
	f->sw.prev_comm = comm_copy(f->comm1, sizeof(f->comm1), ev->sw.prev_comm);
	f->sw.next_comm = comm_copy(f->comm2, sizeof(f->comm2), ev->sw.next_comm);
	f->sw.has_prev_pid = f->sw.has_next_pid = f->sw.has_prev_state = true;
	f->sw.prev_pid = ev->sw.prev_pid;
	f->sw.next_pid = ev->sw.next_pid;
	f->sw.prev_state = prev_state_raw(w, ev->sw.prev_state);
	f->sw.has_prev_prio = ev->sw.prev_prio >= 0;
	f->sw.prev_prio = ev->sw.prev_prio;
	f->sw.has_next_prio = ev->sw.next_prio >= 0;
	f->sw.next_prio = ev->sw.next_prio;
	f->ev.event_case = PERFETTO__PROTOS__FTRACE_EVENT__EVENT_SCHED_SWITCH;
	f->ev.sched_switch = &f->sw;
}

static void compact_switch(struct pf_writer *w, const struct trace_event *ev)
{
	struct pf_cpu *c = cpu_get(w, ev);
	int comm;

	if (!c)
		return;
	if (!c->switched || ev->ts_ns == c->first_sw_ts) {
		c->switched = true;
		c->first_sw_ts = ev->ts_ns;
		full_switch(w, ev);
		return;
	}
	if (c->nsw == PF_BUNDLE_SWITCHES || c->nintern == PF_BUNDLE_COMMS)
		flush_cpu(w, ev->cpu);
	comm = intern_comm(w, ev->cpu, ev->sw.next_comm);
	if (comm < 0)
		return;
	c->sw_ts[c->nsw] = ev->ts_ns;
	c->sw_state[c->nsw] = prev_state_raw(w, ev->sw.prev_state);
	c->sw_pid[c->nsw] = ev->sw.next_pid;
	c->sw_prio[c->nsw] = ev->sw.next_prio >= 0 ? ev->sw.next_prio : 0;
	c->sw_comm[c->nsw] = comm;
	c->nsw++;
}

static struct pf_cpu *cpu_get(struct pf_writer *w, const struct trace_event *ev)
{
	if (ev->cpu < 0)
		return NULL;
	if (ev->cpu >= PF_MAX_CPU) {
		w->dropped_cpu_events++;
		return NULL;
	}
	if (ev->cpu >= w->nr_cpus) {
		struct pf_cpu **n = realloc(w->cpus, (ev->cpu + 1) * sizeof(*n));

		if (!n) {
			w->error = ENOMEM;
			return NULL;
		}
		memset(n + w->nr_cpus, 0, (ev->cpu + 1 - w->nr_cpus) * sizeof(*n));
		w->cpus = n;
		w->nr_cpus = ev->cpu + 1;
	}
	if (!w->cpus[ev->cpu]) {
		w->cpus[ev->cpu] = calloc(1, sizeof(struct pf_cpu));
		if (!w->cpus[ev->cpu]) {
			w->error = ENOMEM;
			return NULL;
		}
	}
	return w->cpus[ev->cpu];
}

static struct pf_ftrace *ftrace_slot(struct pf_writer *w, const struct trace_event *ev)
{
	struct pf_cpu *c = cpu_get(w, ev);
	struct pf_ftrace *f;

	if (!c)
		return NULL;
	if (c->n == PF_BUNDLE_EVENTS)
		flush_cpu(w, ev->cpu);
	f = &c->ev[c->n];
	c->ptr[c->n++] = &f->ev;
	perfetto__protos__ftrace_event__init(&f->ev);
	f->ev.has_timestamp = f->ev.has_pid = true;
	f->ev.timestamp = ev->ts_ns;
	f->ev.pid = ev->pid > 0 ? ev->pid : 0;
	return f;
}

/* Copy @comm (or "") into @buf as well-formed UTF-8. */
static char *comm_copy(char *buf, size_t len, const char *comm)
{
	char *s = utf8_sanitize(comm ? comm : "", 15);

	snprintf(buf, len, "%s", s ? s : "");
	free(s);
	return buf;
}

/*
 * prev_state in the layout trace_processor reads for the trace's kernel,
 * from the letters sched_switch printed: each letter's bit in 4.4's, 4.8's
 * and 4.14's layout (0: none there).
 */
static const struct { unsigned int bit; int64_t raw[PF_NR_LAYOUTS]; } pf_state_bits[] = {
	{ TRACE_TASK_S, { 0x1, 0x1, 0x1 } },
	{ TRACE_TASK_D, { 0x2, 0x2, 0x2 } },
	{ TRACE_TASK_T, { 0x4, 0x4, 0x4 } },
	{ TRACE_TASK_t, { 0x8, 0x8, 0x8 } },
	{ TRACE_TASK_X, { 0x10, 0x10, 0x10 } },
	{ TRACE_TASK_Z, { 0x20, 0x20, 0x20 } },
	{ TRACE_TASK_x, { 0x40, 0x40, 0 } },
	{ TRACE_TASK_K, { 0x80, 0x80, 0 } },
	{ TRACE_TASK_W, { 0x100, 0x100, 0 } },
	{ TRACE_TASK_P, { 0x200, 0x200, 0x40 } },
	{ TRACE_TASK_N, { 0x400, 0x400, 0 } },
	/* idle: D without load before 4.14, which trace_processor shows as I */
	{ TRACE_TASK_I, { 0x402, 0x402, 0x80 } },
	{ TRACE_TASK_PREEMPTED, { 0x800, 0x1000, 0x100 } },
};

/*
 * A state the input did not give or that could not be read, or a letter
 * the layout has no bit for, is written unknown in 4.14's layout; the
 * older ones have no unknown value, so it is written as its known letters
 * there (0, R, when none).
 */
static int64_t prev_state_raw(const struct pf_writer *w, unsigned int s)
{
	bool unknown = s & TRACE_TASK_UNKNOWN;
	int64_t raw = 0, bit;
	size_t i;

	for (i = 0; i < sizeof(pf_state_bits) / sizeof(pf_state_bits[0]); i++) {
		if (!(s & pf_state_bits[i].bit))
			continue;
		bit = pf_state_bits[i].raw[w->layout];
		unknown |= !bit;
		raw |= bit;
	}
	return unknown && w->layout == PF_STATE_4_14 ? PF_STATE_UNKNOWN_4_14 : raw;
}

static void ftrace_event(struct pf_writer *w, const struct trace_event *ev)
{
	struct pf_ftrace *f = ftrace_slot(w, ev);

	if (!f)
		return;
	switch (ev->kind) {
	case TRACE_EV_FORK:
		perfetto__protos__sched_process_fork_ftrace_event__init(&f->fork);
		f->fork.parent_comm = comm_copy(f->comm1, sizeof(f->comm1), ev->fork.parent_comm);
		f->fork.child_comm = comm_copy(f->comm2, sizeof(f->comm2), ev->fork.child_comm);
		f->fork.has_parent_pid = f->fork.has_child_pid = true;
		f->fork.parent_pid = ev->fork.parent_pid;
		f->fork.child_pid = ev->fork.child_pid;
		f->ev.event_case = PERFETTO__PROTOS__FTRACE_EVENT__EVENT_SCHED_PROCESS_FORK;
		f->ev.sched_process_fork = &f->fork;
		break;
	default:
		perfetto__protos__sched_process_exit_ftrace_event__init(&f->exit);
		f->exit.comm = comm_copy(f->comm1, sizeof(f->comm1), ev->exit.comm);
		f->exit.has_pid = true;
		f->exit.pid = ev->exit.pid;
		if (ev->exit.prio >= 0) {
			f->exit.has_prio = true;
			f->exit.prio = ev->exit.prio;
		}
		f->ev.event_case = PERFETTO__PROTOS__FTRACE_EVENT__EVENT_SCHED_PROCESS_EXIT;
		f->ev.sched_process_exit = &f->exit;
		break;
	}
}

/* ---- slices ----------------------------------------------------------- */

static struct pf_slice_event *queue_add(struct pf_writer *w)
{
	struct pf_slice_event *e;

	if (w->q_len == w->q_cap) {
		uint32_t cap = w->q_cap ? w->q_cap * 2 : 64, i;
		struct pf_slice_event *q = malloc(cap * sizeof(*q));

		if (!q) {
			w->error = ENOMEM;
			return NULL;
		}
		for (i = 0; i < w->q_len; i++)
			q[i] = w->queue[(w->q_head + i) % w->q_cap];
		free(w->queue);
		w->queue = q;
		w->q_head = 0;
		w->q_cap = cap;
	}
	e = &w->queue[(w->q_head + w->q_len++) % w->q_cap];
	memset(e, 0, sizeof(*e));
	return e;
}

static void emit_slice_event(struct pf_writer *w, const struct pf_slice_event *e)
{
	Perfetto__Protos__DebugAnnotation da[2], *dap[2];
	TrackEvent te = PERFETTO__PROTOS__TRACK_EVENT__INIT;
	int n = 0;

	te.has_type = te.has_track_uuid = true;
	te.track_uuid = thread_track(w, e->pid);
	if (e->begin) {
		te.type = PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_BEGIN;
		te.name_field_case = PERFETTO__PROTOS__TRACK_EVENT__NAME_FIELD_NAME;
		te.name = e->name;
	} else {
		te.type = PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_END;
		if (e->ready) {
			perfetto__protos__debug_annotation__init(&da[n]);
			da[n].name_field_case = PERFETTO__PROTOS__DEBUG_ANNOTATION__NAME_FIELD_NAME;
			da[n].name = (char *)"energy_j";
			da[n].value_case = PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_DOUBLE_VALUE;
			da[n].double_value = e->energy_j + 0.0;
			dap[n] = &da[n];
			n++;
		}
		if (e->unterminated) {
			perfetto__protos__debug_annotation__init(&da[n]);
			da[n].name_field_case = PERFETTO__PROTOS__DEBUG_ANNOTATION__NAME_FIELD_NAME;
			da[n].name = (char *)"unterminated";
			da[n].value_case = PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_BOOL_VALUE;
			da[n].bool_value = true;
			dap[n] = &da[n];
			n++;
		}
		te.n_debug_annotations = n;
		te.debug_annotations = dap;
	}
	emit_event(w, thread_seq(w, e->pid), e->ts_ns, &te);
}

/* Write queued slice events in order, up to the first END still waiting. */
static void queue_flush(struct pf_writer *w, bool all)
{
	while (w->q_len) {
		struct pf_slice_event *e = &w->queue[w->q_head];

		if (!e->begin && !e->ready && !all && w->q_len < PF_QUEUE_MAX)
			break;
		emit_slice_event(w, e);
		free(e->name);
		w->q_head = (w->q_head + 1) % w->q_cap;
		w->q_len--;
	}
}

/*
 * A powerpin marker's span, priced as the text report prices it, as a
 * slice with its energy: written whole once its energy is final (Perfetto
 * sorts events by time; spans follow one another, so an END and the next
 * BEGIN at the same time keep their file order).
 */
static void marker_span(struct pf_writer *w, const struct report_open_slice *o)
{
	Perfetto__Protos__DebugAnnotation da = PERFETTO__PROTOS__DEBUG_ANNOTATION__INIT, *dap = &da;
	TrackEvent te = PERFETTO__PROTOS__TRACK_EVENT__INIT;
	const char *label = o->stat < w->r->nr_slice_stats ? w->r->slice_stats[o->stat].name : "?";
	char *name = utf8_sanitize(label, SIZE_MAX);

	te.has_type = te.has_track_uuid = true;
	te.track_uuid = UUID_MARKER_SPANS;
	te.type = PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_BEGIN;
	te.name_field_case = PERFETTO__PROTOS__TRACK_EVENT__NAME_FIELD_NAME;
	te.name = name ? name : (char *)"?";
	emit_event(w, PF_SEQ_GLOBAL, o->begin_ns, &te);
	free(name);
	perfetto__protos__track_event__init(&te);
	te.has_type = te.has_track_uuid = true;
	te.track_uuid = UUID_MARKER_SPANS;
	te.type = PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_END;
	da.name_field_case = PERFETTO__PROTOS__DEBUG_ANNOTATION__NAME_FIELD_NAME;
	da.name = (char *)"energy_j";
	da.value_case = PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_DOUBLE_VALUE;
	da.double_value = w->r->sign * o->energy + 0.0;
	te.n_debug_annotations = 1;
	te.debug_annotations = &dap;
	emit_event(w, PF_SEQ_GLOBAL, o->end_ns > o->begin_ns ? o->end_ns : o->begin_ns, &te);
}

void pf_slice_done(struct pf_writer *w, const struct report_open_slice *o, bool marker,
		   bool unterminated)
{
	struct pf_slice_event *e;
	uint32_t i;

	if (marker) {
		marker_span(w, o);
		return;
	}
	for (i = 0; i < w->q_len; i++) {
		e = &w->queue[(w->q_head + i) % w->q_cap];
		if (!e->begin && e->id == o->id) {
			e->ready = true;
			e->energy_j = w->r->sign * o->energy;
			e->unterminated = unterminated;
			return;
		}
	}
	/* ended before the first sample: its END is being read now */
	if (!unterminated) {
		w->done_early_id = o->id;
		w->done_early_j = w->r->sign * o->energy;
		return;
	}
	/*
	 * Still open at the end of the capture: it ends there, or at the last
	 * slice event if that came after the last sample, so that it still
	 * encloses the slices that began and ended inside it.
	 */
	e = queue_add(w);
	if (!e)
		return;
	e->ts_ns = o->end_ns > w->last_slice_ns ? o->end_ns : w->last_slice_ns;
	e->id = o->id;
	e->pid = o->pid;
	e->ready = true;
	e->energy_j = w->r->sign * o->energy;
	e->unterminated = true;
}

/* ---- events ----------------------------------------------------------- */

static void marker_event(struct pf_writer *w, const struct trace_event *ev, const char *label,
			 size_t len)
{
	TrackEvent te = PERFETTO__PROTOS__TRACK_EVENT__INIT;
	char *name = utf8_sanitize(label, len);

	te.has_type = te.has_track_uuid = true;
	te.type = PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_INSTANT;
	te.track_uuid = UUID_MARKERS;
	te.name_field_case = PERFETTO__PROTOS__TRACK_EVENT__NAME_FIELD_NAME;
	te.name = name ? name : (char *)"?";
	emit_event(w, PF_SEQ_GLOBAL, ev->ts_ns, &te);
	free(name);
}

/* The track of counter @name of process @tgid (0: a global one). */
static uint64_t counter_uuid(struct pf_writer *w, int tgid, const char *name, size_t len)
{
	struct pf_counter *c;
	char *n;
	uint32_t i;

	for (i = 0; i < w->nr_counters; i++) {
		c = &w->counters[i];
		if (c->tgid == tgid && !strncmp(c->name, name, len) && !c->name[len])
			return UUID_COUNTER(i);
	}
	if (w->nr_counters == w->cap_counters) {
		uint32_t cap = w->cap_counters ? w->cap_counters * 2 : 16;

		c = realloc(w->counters, cap * sizeof(*c));
		if (!c) {
			w->error = ENOMEM;
			return 0;
		}
		w->counters = c;
		w->cap_counters = cap;
	}
	n = strndup(name, len);
	if (!n) {
		w->error = ENOMEM;
		return 0;
	}
	c = &w->counters[w->nr_counters++];
	c->tgid = tgid;
	c->name = n;
	if (tgid > 0)
		counter_track(w, PF_SEQ, UUID_COUNTER(i), process_track(w, tgid), -1, n, NULL,
			      "atrace counter (C|tgid|name|value)");
	else
		counter_track(w, PF_SEQ_GLOBAL, UUID_COUNTER(i), tgid ? 0 : UUID_BATTERY,
			      tgid ? -1 : 11 + (int)i, n, NULL,
			      tgid ? "atrace counter of a thread whose thread group the input does not record"
				   : "powerpin:powerpin_counter event");
	return UUID_COUNTER(i);
}

static void mark_event(struct pf_writer *w, const struct report *live, const struct trace_event *ev)
{
	const char *s = ev->mark.text, *end = s + ev->mark.len, *name;
	struct pf_slice_event *e;
	long long value;
	size_t len;
	uint64_t uuid;

	if (live->last_begun_id && ev->mark.len >= 2 && s[0] == 'B') {
		name = memchr(s + 2, '|', end - s - 2);
		e = queue_add(w);
		if (!name || !e)
			return;
		name++;
		e->begin = true;
		e->ts_ns = ev->ts_ns;
		w->last_slice_ns = ev->ts_ns;
		e->id = live->last_begun_id;
		e->pid = ev->pid;
		e->name = utf8_sanitize(name, end - name);
		if (!e->name)
			w->error = ENOMEM;
	} else if (live->last_ended_id && s[0] == 'E') {
		e = queue_add(w);
		if (!e)
			return;
		e->ts_ns = ev->ts_ns;
		w->last_slice_ns = ev->ts_ns;
		e->id = live->last_ended_id;
		e->pid = ev->pid;
		if (e->id == w->done_early_id) {
			e->ready = true;
			e->energy_j = w->done_early_j;
			w->done_early_id = 0;
		}
	} else if (ev->mark.len >= 2 && s[0] == 'C' && s[1] == '|') {
		int tgid = atoi(s + 2);

		if (report_counter_mark(s, end, &name, &len, &value))
			return;
		if (tgid <= 0)
			tgid = tgid_of(w->r, ev->pid) > 0 ? tgid_of(w->r, ev->pid) : -ev->pid;
		uuid = counter_uuid(w, tgid, name, len);
		if (uuid)
			emit_int_counter(w, tgid > 0 ? PF_SEQ : PF_SEQ_GLOBAL, ev->ts_ns, uuid, value);
	} else if (ev->mark.len > 9 && !strncmp(s, "powerpin:", 9)) {
		name = s + 9;
		while (name < end && *name == ' ')
			name++;
		if (name < end)
			marker_event(w, ev, name, end - name);
	}
}

/* Cumulative energy of each process (and idle, other), every 100 ms. */
static void process_energy(struct pf_writer *w, struct report *live, uint64_t ts, bool last)
{
	const struct report *r = w->r;
	uint32_t j;

	if (!last && ts < w->next_process_ns)
		return;
	w->next_process_ns = ts + PF_PROCESS_PERIOD_NS;
	/* the energy of what ran through whole intervals is charged on demand */
	report_settle(live);
	if (report_energy_by_process(r, live, &w->map, w->proc_energy)) {
		w->error = ENOMEM;
		return;
	}
	/* sent values start as NaN: each track gets at least one value */
	for (j = 0; j < r->nr_processes; j++)
		if (w->proc_energy[j] != w->proc_sent[j]) {
			emit_counter(w, r->processes[j].tgid_known ? PF_SEQ : PF_SEQ_GLOBAL, ts,
				     UUID_PROC_ENERGY(r->processes[j].tgid), w->proc_energy[j]);
			w->proc_sent[j] = w->proc_energy[j];
		}
	if (live->idle_energy != w->last_idle) {
		emit_counter(w, PF_SEQ_GLOBAL, ts, UUID_IDLE, r->sign * live->idle_energy);
		w->last_idle = live->idle_energy;
	}
	if (live->other_energy != w->last_other) {
		emit_counter(w, PF_SEQ_GLOBAL, ts, UUID_OTHER,
			     report_energy_rounded(r->sign * live->other_energy, live->energy));
		w->last_other = live->other_energy;
	}
	model_process_energy(w, live, ts);
}

static void power_event(struct pf_writer *w, struct report *live, const struct trace_event *ev)
{
	const struct report *r = w->r;
	double p = (double)ev->power.voltage_uv * (double)ev->power.current_ua * 1e-6;
	bool missing = ev->power.flags & POWERPIN_SAMPLE_MISSING;

	if (ev->power.flags & (POWERPIN_SAMPLE_READ_ERROR | POWERPIN_SAMPLE_AGAIN))
		return;
	emit_counter(w, PF_SEQ_GLOBAL, ev->ts_ns, UUID_VOLTAGE, ev->power.voltage_uv * 1e-6);
	emit_counter(w, PF_SEQ_GLOBAL, ev->ts_ns, UUID_CURRENT, report_current_a(r, ev->power.current_ua));
	emit_counter(w, PF_SEQ_GLOBAL, ev->ts_ns, UUID_POWER, report_power_w(r, p));
	emit_counter(w, PF_SEQ_GLOBAL, ev->ts_ns, UUID_ENERGY, r->sign * live->energy);
	model_power(w, live, ev->ts_ns);
	/* a zero in a sample flagged as missing a property is that property */
	if ((ev->power.has & TRACE_POWER_HAS_CHARGE) &&
	    !(missing && !ev->power.charge_uah) &&
	    (!w->have_charge || ev->power.charge_uah != w->last_charge)) {
		emit_counter(w, PF_SEQ_GLOBAL, ev->ts_ns, UUID_CHARGE, ev->power.charge_uah * 1e-3);
		w->have_charge = true;
		w->last_charge = ev->power.charge_uah;
	}
	if ((ev->power.has & TRACE_POWER_HAS_CURRENT_AVG) &&
	    !(missing && !ev->power.current_avg_ua) &&
	    (!w->have_current_avg || ev->power.current_avg_ua != w->last_current_avg)) {
		emit_counter(w, PF_SEQ_GLOBAL, ev->ts_ns, UUID_CURRENT_AVG,
			     report_current_a(r, ev->power.current_avg_ua));
		w->have_current_avg = true;
		w->last_current_avg = ev->power.current_avg_ua;
	}
	if ((ev->power.has & TRACE_POWER_HAS_CAPACITY) && !(missing && !ev->power.capacity) &&
	    (!w->have_capacity || ev->power.capacity != w->last_capacity)) {
		emit_counter(w, PF_SEQ_GLOBAL, ev->ts_ns, UUID_CAPACITY, ev->power.capacity);
		w->have_capacity = true;
		w->last_capacity = ev->power.capacity;
	}
	if ((ev->power.has & TRACE_POWER_HAS_TEMP) && !(missing && !ev->power.temp_dc) &&
	    (!w->have_temp || ev->power.temp_dc != w->last_temp)) {
		emit_counter(w, PF_SEQ_GLOBAL, ev->ts_ns, UUID_TEMP, ev->power.temp_dc / 10.0);
		w->have_temp = true;
		w->last_temp = ev->power.temp_dc;
	}
	process_energy(w, live, ev->ts_ns, false);
	/* slices ended before this sample now have their energy */
	queue_flush(w, false);
}

int pf_event(struct pf_writer *w, struct report *live, const struct trace_event *ev)
{
	start(w);
	switch (ev->kind) {
	case TRACE_EV_POWER:
		power_event(w, live, ev);
		break;
	case TRACE_EV_SWITCH:
		compact_switch(w, ev);
		break;
	case TRACE_EV_FORK:
	case TRACE_EV_EXIT:
		ftrace_event(w, ev);
		break;
	case TRACE_EV_NEWTASK:
		break;
	case TRACE_EV_CPU_FREQ:
		break;		/* the model's power has it (report_model.c) */
	case TRACE_EV_MARK:
		mark_event(w, live, ev);
		break;
	case TRACE_EV_COUNTER:
		if (!report_battery_counter(ev->counter.track)) {
			uint64_t uuid = counter_uuid(w, 0, ev->counter.track,
						     strlen(ev->counter.track));

			if (uuid)
				emit_int_counter(w, PF_SEQ_GLOBAL, ev->ts_ns, uuid,
						 ev->counter.value);
		}
		break;
	case TRACE_EV_LOST: {
		struct pf_cpu *c = cpu_get(w, ev);

		/* the bundle of this CPU's events after the drop says so */
		if (c) {
			flush_cpu(w, ev->cpu);
			c->lost = true;
		}
		break;
	}
	}
	if (w->error) {
		errno = w->error;
		return -1;
	}
	return 0;
}

struct pf_writer *pf_open(const struct report *r, FILE *out)
{
	struct pf_writer *w = calloc(1, sizeof(*w));
	uint32_t i;

	if (!w)
		return NULL;
	w->r = r;
	w->out = out;
	w->proc_energy = calloc(r->nr_processes + 1, sizeof(double));
	w->proc_sent = calloc(r->nr_processes + 1, sizeof(double));
	w->model_sent = calloc(r->nr_processes + 1, sizeof(double));
	if (!w->proc_energy || !w->proc_sent || !w->model_sent) {
		pf_free(w);
		return NULL;
	}
	for (i = 0; i <= r->nr_processes; i++)
		w->proc_sent[i] = w->model_sent[i] = NAN;
	w->last_idle = w->last_other = NAN;
	return w;
}

/* After the live report's report_finish(): the last values, then done. */
int pf_close(struct pf_writer *w, struct report *live)
{
	int cpu;

	start(w);
	process_energy(w, live, live->last_ns, true);
	queue_flush(w, true);
	for (cpu = 0; cpu < w->nr_cpus; cpu++)
		flush_cpu(w, cpu);
	if (w->error) {
		errno = w->error;
		return -1;
	}
	return 0;
}

uint64_t pf_dropped_cpu_events(const struct pf_writer *w)
{
	return w ? w->dropped_cpu_events : 0;
}

void pf_free(struct pf_writer *w)
{
	uint32_t i;
	int cpu;

	if (!w)
		return;
	while (w->q_len) {
		free(w->queue[w->q_head].name);
		w->q_head = (w->q_head + 1) % w->q_cap;
		w->q_len--;
	}
	free(w->queue);
	for (i = 0; i < w->nr_counters; i++)
		free(w->counters[i].name);
	free(w->counters);
	for (cpu = 0; cpu < w->nr_cpus; cpu++) {
		for (i = 0; w->cpus[cpu] && i < w->cpus[cpu]->nintern; i++)
			free(w->cpus[cpu]->intern[i]);
		free(w->cpus[cpu]);
	}
	free(w->cpus);
	free(w->pairs);
	free(w->tracks_done);
	free(w->proc_energy);
	free(w->proc_sent);
	free(w->model_sent);
	free(w->map.idx);
	free(w->buf);
	free(w);
}
