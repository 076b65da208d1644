// SPDX-License-Identifier: GPL-2.0
/*
 * trace.dat reader: libtracecmd opens the file and merges the per-CPU
 * buffers in timestamp order; libtraceevent reads each field by name from
 * the format the file itself carries, so field order and sizes may change
 * between module versions.
 */
#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <trace-cmd/trace-cmd.h>

#include "trace_input.h"
#include "trace_threads.h"

/*
 * Exported by libtracecmd.so.1 but declared only in trace-cmd's private
 * header: the CPUSTAT text stored in the file (per CPU "overrun:" and
 * "dropped events:" lines, and the "powerpin: lost_events=N" line that
 * powerpin record adds, see docs/capture-format.md).
 */
const char *tracecmd_get_cpustats(struct tracecmd_input *handle);
/*
 * The same: exported, declared privately.  The last record of a CPU's data,
 * found from the end of the data rather than by reading up to it.
 */
struct tep_record *tracecmd_read_cpu_last(struct tracecmd_input *handle, int cpu);
/*
 * The same: the size of CPU @cpu's data in the file, or -1 for a CPU the
 * file's data does not have (see dat_incomplete_cpu()).
 */
off_t tracecmd_get_cpu_file_size(struct tracecmd_input *handle, int cpu);
/* The same: the trace clock named by the file's TRACECLOCK option, or NULL. */
const char *tracecmd_get_trace_clock(struct tracecmd_input *handle);
/* The same: the text of the file's UNAME option, or NULL. */
const char *tracecmd_get_uname(struct tracecmd_input *handle);

/*
 * Formats libtraceevent cannot read safely.  libtraceevent 1.7.1 (and 1.8.4,
 * the code is unchanged) reads the token after an array field's '[' without
 * checking it: when the format ends there, or a byte it takes for the end
 * (not printable, or above 0x7f) follows, it dereferences NULL; trace-cmd
 * report crashes on such a trace.dat too.  libtracecmd hands every format
 * of a trace.dat (ftrace and event, file version 6 or 7, compressed or not)
 * to tep_parse_event(), so that function is defined here as well: it looks
 * at each format first, refuses the unsafe ones (the library then counts a
 * parsing failure and goes on), and passes the others to the library's own
 * definition.  The reader then refuses the whole file with a message.
 */
static _Thread_local char format_refused[128];

bool trace_format_unsafe(const char *buf, size_t size)
{
	const unsigned char *p = (const unsigned char *)buf, *end = p + size, *q;

	while ((p = memchr(p, '[', end - p))) {
		/* read_token() skips blanks, not newlines */
		for (q = p + 1; q < end && *q != '\n' && isspace(*q); q++)
			;
		if (q == end || (*q != '\n' && (*q > 0x7f || !isprint(*q))))
			return true;
		p++;
	}
	return false;
}

/*
 * The two guards below stand in front of libtraceevent's own functions of
 * the same names.  Against the shared library they are found first and
 * reach the library's through dlsym(RTLD_NEXT); a static link (make
 * android) has no RTLD_NEXT, so there the linker's --wrap=NAME sends every
 * other object's calls to __wrap_NAME and the library's is __real_NAME.
 */
#ifdef POWERPIN_STATIC
#define GUARD(name)	__wrap_##name
#define LIBRARY(name)	__real_##name
enum tep_errno __real_tep_parse_event(struct tep_handle *tep, const char *buf,
				      unsigned long size, const char *sys);
int __real_tep_parse_printk_formats(struct tep_handle *tep, const char *buf);
enum tep_errno __wrap_tep_parse_event(struct tep_handle *tep, const char *buf,
				      unsigned long size, const char *sys);
int __wrap_tep_parse_printk_formats(struct tep_handle *tep, const char *buf);
#else
#define GUARD(name)	name
#define LIBRARY(name)	dlsym(RTLD_NEXT, #name)
#endif

/* "SYSTEM:NAME" of a format, from its "name:" line, for the message. */
static void format_name(const char *buf, size_t size, const char *sys, char *out, size_t len)
{
	const char *p = memmem(buf, size, "name:", 5), *e;

	if (!p) {
		snprintf(out, len, "%s:?", sys ? sys : "?");
		return;
	}
	for (p += 5; p < buf + size && *p == ' '; p++)
		;
	for (e = p; e < buf + size && *e != '\n' && e - p < 64; e++)
		;
	snprintf(out, len, "%s:%.*s", sys ? sys : "?", (int)(e - p), p);
}

enum tep_errno GUARD(tep_parse_event)(struct tep_handle *tep, const char *buf,
				      unsigned long size, const char *sys)
{
	static enum tep_errno (*library)(struct tep_handle *, const char *, unsigned long,
					 const char *);

	if (trace_format_unsafe(buf, size)) {
		if (!format_refused[0])
			format_name(buf, size, sys, format_refused, sizeof(format_refused));
		return TEP_ERRNO__READ_FORMAT_FAILED;
	}
	if (!library)
		library = (enum tep_errno (*)(struct tep_handle *, const char *, unsigned long,
					      const char *))LIBRARY(tep_parse_event);
	if (!library)
		return TEP_ERRNO__READ_FORMAT_FAILED;
	return library(tep, buf, size, sys);
}

/*
 * The printk formats section: lines of "ADDRESS : FORMAT".  libtraceevent's
 * tep_parse_printk_formats() copies from one byte past the ':' without
 * looking (past the end of the buffer when a line has no ':' or ends with
 * it), and tep_register_print_string() then reads up to three bytes before
 * a format shorter than that.  libtracecmd calls it for the section of
 * every trace.dat, so it is defined here too: the lines the library cannot
 * read safely are left out (they only name the strings behind events' %s
 * pointers, which the report never prints) and the rest passed on.
 */
static bool printk_line_unsafe(const char *line, const char *end)
{
	const char *colon, *fmt;

	/* strtok_r() skips the delimiters a token starts with */
	while (line < end && *line == ':')
		line++;
	if (line == end)
		return false;	/* the library stops at such a line, safely */
	colon = memchr(line, ':', end - line);
	if (!colon || colon + 1 >= end)
		return true;
	fmt = colon + 2;	/* the library skips the space after the ':' */
	if (fmt < end && *fmt == '"')
		fmt++;
	return fmt >= end || end - fmt < 3;
}

bool trace_printk_formats_unsafe(const char *buf)
{
	const char *line, *end;

	for (line = buf; *line; line = *end ? end + 1 : end) {
		end = strchrnul(line, '\n');
		if (printk_line_unsafe(line, end))
			return true;
	}
	return false;
}

int GUARD(tep_parse_printk_formats)(struct tep_handle *tep, const char *buf)
{
	static int (*library)(struct tep_handle *, const char *);
	const char *line, *end;
	char *safe, *p;
	int ret;

	if (!library)
		library = (int (*)(struct tep_handle *, const char *))
			  LIBRARY(tep_parse_printk_formats);
	if (!library)
		return -1;
	if (!trace_printk_formats_unsafe(buf))
		return library(tep, buf);
	safe = malloc(strlen(buf) + 1);
	if (!safe)
		return -1;
	for (p = safe, line = buf; *line; line = *end ? end + 1 : end) {
		end = strchrnul(line, '\n');
		if (printk_line_unsafe(line, end))
			continue;
		memcpy(p, line, end - line);
		p += end - line;
		*p++ = '\n';
	}
	*p = '\0';
	ret = library(tep, safe);
	free(safe);
	return ret;
}

/* Records between two trims of the input's mapped pages. */
#define TRIM_EVERY	65536

struct dat_reader {
	dev_t dev;
	ino_t ino;
	struct tep_handle *tep;
	const struct trace_input_ops *ops;
	void *arg;
	int ret;
	uint64_t last_ts;
	unsigned long records;
	/* per CPU: file offset of the last record delivered, 0 none */
	unsigned long long *last_offset;
	int nr_cpus;
	struct tep_event *battery, *counter, *sched_switch, *print, *fork, *exit, *newtask,
			 *cpu_freq;
	struct tep_format_field *b_seq, *b_volt, *b_cur, *b_charge, *b_flags;
	struct tep_format_field *b_cap, *b_temp, *b_avg;
	struct tep_format_field *c_track, *c_value;
	struct tep_format_field *s_prev_pid, *s_next_pid, *s_prev_comm, *s_next_comm;
	struct tep_format_field *s_prev_prio, *s_next_prio, *s_prev_state;
	struct tep_format_field *f_parent_pid, *f_child_pid, *f_parent_comm, *f_child_comm;
	struct tep_format_field *x_pid, *x_prio, *x_comm;
	struct tep_format_field *n_pid, *n_flags;
	struct tep_format_field *q_state, *q_cpu;
	struct trace_tgids tgids;	/* thread groups learned so far */
	struct tep_format_field *p_buf;
	/* prev_state values seen and their TRACE_TASK_* meaning */
	struct {
		int64_t raw;
		unsigned int state;
	} states[32];
	int nr_states;
	struct trace_seq seq;
};

/* Integer field, sign-extended when the format says it is signed. */
static int field_int(struct tep_format_field *f, struct tep_record *rec, int64_t *val)
{
	unsigned long long v;

	if (!f || tep_read_number_field(f, rec->data, &v))
		return -1;
	if ((f->flags & TEP_FIELD_IS_SIGNED) && f->size < 8) {
		unsigned int shift = 64 - 8 * f->size;

		*val = (int64_t)(v << shift) >> shift;
	} else {
		*val = (int64_t)v;
	}
	return 0;
}

/* String field (fixed char array or __data_loc) copied into @buf. */
static const char *field_str(struct dat_reader *r, struct tep_event *event,
			     struct tep_format_field *f, struct tep_record *rec,
			     char *buf, size_t buflen)
{
	const char *p;
	int len;

	if (!f)
		return NULL;
	if (f->flags & TEP_FIELD_IS_DYNAMIC) {
		p = tep_get_field_raw(NULL, event, f->name, rec, &len, 0);
		if (!p)
			return NULL;
	} else {
		p = (const char *)rec->data + f->offset;
		len = f->size ? f->size : rec->size - f->offset;
	}
	if (len < 0)
		return NULL;
	if ((size_t)len >= buflen)
		len = buflen - 1;
	memcpy(buf, p, len);
	buf[len] = '\0';
	return buf;
}

/*
 * libtracecmd maps each CPU's data read-only in windows of up to 64 MiB and
 * keeps them mapped until tracecmd_close(), so the resident set would grow
 * with the capture.  The pages are clean, private and PROT_READ: dropping
 * them from our page tables loses nothing (a later access faults them back
 * in from the page cache), and memory stays flat however long the capture.
 */
static void trim_input_mappings(const struct dat_reader *r)
{
	unsigned long start, end, ino;
	unsigned int maj, min;
	char line[512], perms[8];
	FILE *maps;

	maps = fopen("/proc/self/maps", "re");
	if (!maps)
		return;
	while (fgets(line, sizeof(line), maps)) {
		if (sscanf(line, "%lx-%lx %7s %*x %x:%x %lu", &start, &end, perms, &maj, &min,
			   &ino) != 6)
			continue;
		if (ino != r->ino || maj != major(r->dev) || min != minor(r->dev) ||
		    strcmp(perms, "r--p"))
			continue;
		madvise((void *)start, end - start, MADV_DONTNEED);
	}
	fclose(maps);
}

/*
 * The kernel's prev_state bits changed layout in 4.8 and 4.14, and the
 * sched_switch format stored in the file says how to print them.  So let
 * libtraceevent print the event once per distinct raw value and read the
 * letters back; a capture has a handful of distinct values.
 */
static unsigned int dat_prev_state(struct dat_reader *r, struct tep_record *rec, int64_t raw)
{
	unsigned int state = TRACE_TASK_UNKNOWN;
	const char *p;
	int i;

	for (i = 0; i < r->nr_states; i++)
		if (r->states[i].raw == raw)
			return r->states[i].state;
	trace_seq_reset(&r->seq);
	tep_print_event(r->tep, &r->seq, rec, "%s", TEP_PRINT_INFO);
	trace_seq_terminate(&r->seq);
	p = r->seq.buffer ? strstr(r->seq.buffer, "prev_state=") : NULL;
	if (p) {
		p += strlen("prev_state=");
		state = trace_task_state_parse(p, strcspn(p, " "));
	}
	if (r->nr_states < (int)(sizeof(r->states) / sizeof(r->states[0]))) {
		r->states[r->nr_states].raw = raw;
		r->states[r->nr_states++].state = state;
	}
	return state;
}

/*
 * The record's place in the stream: its time not before the last one's,
 * and its CPU's records one after another in the file (one at or before
 * the last is a corrupt page chain going round, which libtracecmd would
 * follow for minutes).  Returns 0, or the reader's error code.
 */
static int dat_check_order(struct dat_reader *r, struct tep_record *rec, int cpu)
{
	if (rec->ts < r->last_ts)
		return -2;
	r->last_ts = rec->ts;
	if (cpu >= 0 && cpu < r->nr_cpus) {
		if (rec->offset <= r->last_offset[cpu])
			return -5;
		r->last_offset[cpu] = rec->offset;
	}
	return 0;
}

/* Events the ring buffer dropped before this record, as an event of their own. */
static int dat_lost(struct dat_reader *r, struct tep_record *rec, int cpu)
{
	struct trace_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.kind = TRACE_EV_LOST;
	ev.ts_ns = rec->ts;
	ev.cpu = cpu;
	ev.tgid = -1;
	ev.lost.count = rec->missed_events > 0 ? rec->missed_events : 0;
	return r->ops->event(&ev, r->arg);
}

/* Room for the strings an event points to until it is delivered. */
struct dat_strings {
	char s1[64], s2[64], text[4096];
};

/* Each returns 0 with @ev filled, or -1 when a field the event needs is not there. */
static int dat_battery(struct dat_reader *r, struct tep_record *rec, struct trace_event *ev)
{
	int64_t v;

	ev->kind = TRACE_EV_POWER;
	if (field_int(r->b_volt, rec, &ev->power.voltage_uv) ||
	    field_int(r->b_cur, rec, &ev->power.current_ua))
		return -1;
	if (!field_int(r->b_charge, rec, &ev->power.charge_uah))
		ev->power.has |= TRACE_POWER_HAS_CHARGE;
	if (!field_int(r->b_seq, rec, &v)) {
		ev->power.seq = (uint32_t)v;
		ev->power.has |= TRACE_POWER_HAS_SEQ;
	}
	if (!field_int(r->b_flags, rec, &v)) {
		ev->power.flags = (uint32_t)v;
		ev->power.has |= TRACE_POWER_HAS_FLAGS;
	}
	if (!field_int(r->b_cap, rec, &v)) {
		ev->power.capacity = (int32_t)v;
		ev->power.has |= TRACE_POWER_HAS_CAPACITY;
	}
	if (!field_int(r->b_temp, rec, &v)) {
		ev->power.temp_dc = (int32_t)v;
		ev->power.has |= TRACE_POWER_HAS_TEMP;
	}
	if (!field_int(r->b_avg, rec, &ev->power.current_avg_ua))
		ev->power.has |= TRACE_POWER_HAS_CURRENT_AVG;
	return 0;
}

static int dat_switch(struct dat_reader *r, struct tep_record *rec, struct trace_event *ev,
		      struct dat_strings *str)
{
	struct tep_event *event = r->sched_switch;
	int64_t v;

	ev->kind = TRACE_EV_SWITCH;
	if (field_int(r->s_prev_pid, rec, &v))
		return -1;
	ev->sw.prev_pid = (int)v;
	if (field_int(r->s_next_pid, rec, &v))
		return -1;
	ev->sw.next_pid = (int)v;
	ev->sw.prev_comm = field_str(r, event, r->s_prev_comm, rec, str->s1, sizeof(str->s1));
	ev->sw.next_comm = field_str(r, event, r->s_next_comm, rec, str->s2, sizeof(str->s2));
	ev->sw.prev_prio = field_int(r->s_prev_prio, rec, &v) ? -1 : (int)v;
	ev->sw.next_prio = field_int(r->s_next_prio, rec, &v) ? -1 : (int)v;
	ev->sw.prev_state = field_int(r->s_prev_state, rec, &v) ? TRACE_TASK_UNKNOWN :
			    dat_prev_state(r, rec, v);
	if (r->ops->comm) {
		if (ev->sw.prev_comm)
			r->ops->comm(ev->sw.prev_pid, ev->sw.prev_comm, r->arg);
		if (ev->sw.next_comm)
			r->ops->comm(ev->sw.next_pid, ev->sw.next_comm, r->arg);
	}
	return 0;
}

static int dat_print(struct dat_reader *r, struct tep_record *rec, struct trace_event *ev,
		     struct dat_strings *str)
{
	ev->kind = TRACE_EV_MARK;
	ev->mark.text = field_str(r, r->print, r->p_buf, rec, str->text, sizeof(str->text));
	if (!ev->mark.text)
		return -1;
	ev->mark.len = strlen(ev->mark.text);
	while (ev->mark.len && ev->mark.text[ev->mark.len - 1] == '\n')
		ev->mark.len--;
	return 0;
}

static int dat_fork(struct dat_reader *r, struct tep_record *rec, struct trace_event *ev,
		    struct dat_strings *str)
{
	int64_t v;

	ev->kind = TRACE_EV_FORK;
	if (field_int(r->f_parent_pid, rec, &v))
		return -1;
	ev->fork.parent_pid = (int)v;
	if (field_int(r->f_child_pid, rec, &v))
		return -1;
	ev->fork.child_pid = (int)v;
	ev->fork.parent_comm = field_str(r, r->fork, r->f_parent_comm, rec, str->s1,
					 sizeof(str->s1));
	ev->fork.child_comm = field_str(r, r->fork, r->f_child_comm, rec, str->s2,
					sizeof(str->s2));
	if (r->ops->comm && ev->fork.child_comm)
		r->ops->comm(ev->fork.child_pid, ev->fork.child_comm, r->arg);
	return 0;
}

static int dat_exit(struct dat_reader *r, struct tep_record *rec, struct trace_event *ev,
		    struct dat_strings *str)
{
	int64_t v;

	ev->kind = TRACE_EV_EXIT;
	if (field_int(r->x_pid, rec, &v))
		return -1;
	ev->exit.pid = (int)v;
	ev->exit.prio = field_int(r->x_prio, rec, &v) ? -1 : (int)v;
	ev->exit.comm = field_str(r, r->exit, r->x_comm, rec, str->s1, sizeof(str->s1));
	return 0;
}

static int dat_counter(struct dat_reader *r, struct tep_record *rec, struct trace_event *ev,
		       struct dat_strings *str)
{
	ev->kind = TRACE_EV_COUNTER;
	ev->counter.track = field_str(r, r->counter, r->c_track, rec, str->s1, sizeof(str->s1));
	if (!ev->counter.track || field_int(r->c_value, rec, &ev->counter.value))
		return -1;
	return 0;
}

static int dat_newtask(struct dat_reader *r, struct tep_record *rec, struct trace_event *ev)
{
	int64_t v;

	ev->kind = TRACE_EV_NEWTASK;
	if (field_int(r->n_pid, rec, &v))
		return -1;
	ev->newtask.pid = (int)v;
	if (field_int(r->n_flags, rec, &v))
		return -1;
	ev->newtask.clone_flags = (uint64_t)v;
	return 0;
}

/* A power:cpu_frequency record into @ev; -1 when a field is missing. */
static int dat_cpu_freq(struct dat_reader *r, struct tep_record *rec, struct trace_event *ev)
{
	int64_t khz, cpu;

	if (field_int(r->q_state, rec, &khz) || field_int(r->q_cpu, rec, &cpu) || khz < 0 ||
	    khz > UINT32_MAX || cpu < 0 || cpu > INT32_MAX)
		return -1;
	ev->kind = TRACE_EV_CPU_FREQ;
	ev->freq.cpu = (int)cpu;
	ev->freq.khz = (unsigned int)khz;
	return 0;
}

/* @ev from @rec by its event type: 1 filled, 0 not an event of ours (or incomplete). */
static int dat_fill(struct dat_reader *r, struct tep_record *rec, struct trace_event *ev,
		    struct dat_strings *str)
{
	int type = tep_data_type(r->tep, rec), bad;

	if (r->battery && type == r->battery->id)
		bad = dat_battery(r, rec, ev);
	else if (r->sched_switch && type == r->sched_switch->id)
		bad = dat_switch(r, rec, ev, str);
	else if (r->print && type == r->print->id)
		bad = dat_print(r, rec, ev, str);
	else if (r->fork && type == r->fork->id)
		bad = dat_fork(r, rec, ev, str);
	else if (r->exit && type == r->exit->id)
		bad = dat_exit(r, rec, ev, str);
	else if (r->counter && type == r->counter->id)
		bad = dat_counter(r, rec, ev, str);
	else if (r->newtask && type == r->newtask->id)
		bad = dat_newtask(r, rec, ev);
	else if (r->cpu_freq && type == r->cpu_freq->id)
		bad = dat_cpu_freq(r, rec, ev);
	else
		return 0;
	return bad ? 0 : 1;
}

/* The event to the caller, its tasks' thread groups first; a new task only teaches. */
static int dat_deliver(struct dat_reader *r, struct trace_event *ev)
{
	if (trace_tgids_atrace(&r->tgids, ev))
		return -6;
	if (ev->kind == TRACE_EV_NEWTASK) {
		if (trace_tgids_newtask(&r->tgids, ev->pid, ev->newtask.pid,
					ev->newtask.clone_flags))
			return -6;
		return 0;
	}
	if (trace_tgids_announce(&r->tgids, ev, r->ops, r->arg))
		return -6;
	return r->ops->event(ev, r->arg);
}

static int dat_record(struct tracecmd_input *handle, struct tep_record *rec, int cpu,
		      void *data)
{
	struct dat_reader *r = data;
	struct dat_strings str;
	struct trace_event ev;

	if (!(++r->records % TRIM_EVERY))
		trim_input_mappings(r);
	r->ret = dat_check_order(r, rec, cpu);
	if (!r->ret && rec->missed_events)
		r->ret = dat_lost(r, rec, cpu);
	if (r->ret)
		return -1;
	memset(&ev, 0, sizeof(ev));
	ev.ts_ns = rec->ts;
	ev.cpu = cpu;
	ev.tgid = -1;
	if (!dat_fill(r, rec, &ev, &str))
		return 0;
	ev.pid = tep_data_pid(r->tep, rec);
	ev.comm = tep_data_comm_from_pid(r->tep, ev.pid);
	r->ret = dat_deliver(r, &ev);
	return r->ret ? -1 : 0;
}

/*
 * A powerpin event by its name, or by the name older modules gave it
 * (powerpin:battery, powerpin:counter): a capture has one or the other.
 */
static struct tep_event *dat_find_powerpin(struct dat_reader *r, const char *name)
{
	char prefixed[64];
	struct tep_event *e;

	snprintf(prefixed, sizeof(prefixed), "powerpin_%s", name);
	e = tep_find_event_by_name(r->tep, "powerpin", prefixed);
	return e ? e : tep_find_event_by_name(r->tep, "powerpin", name);
}

static void dat_find_power(struct dat_reader *r)
{
	struct tep_event *e = dat_find_powerpin(r, "battery");

	if (e) {
		r->battery = e;
		r->b_seq = tep_find_field(e, "seq");
		r->b_volt = tep_find_field(e, "voltage_uv");
		r->b_cur = tep_find_field(e, "current_ua");
		r->b_charge = tep_find_field(e, "charge_uah");
		r->b_flags = tep_find_field(e, "flags");
		r->b_cap = tep_find_field(e, "capacity");
		r->b_temp = tep_find_field(e, "temp_dc");
		r->b_avg = tep_find_field(e, "current_avg_ua");
		if (!r->b_volt || !r->b_cur)
			r->battery = NULL;
	}
	e = dat_find_powerpin(r, "counter");
	if (e) {
		r->counter = e;
		r->c_track = tep_find_field(e, "track_name");
		r->c_value = tep_find_field(e, "counter_value");
		if (!r->c_track || !r->c_value)
			r->counter = NULL;
	}
	e = tep_find_event_by_name(r->tep, "power", "cpu_frequency");
	if (e) {
		r->cpu_freq = e;
		r->q_state = tep_find_field(e, "state");
		r->q_cpu = tep_find_field(e, "cpu_id");
		if (!r->q_state || !r->q_cpu)
			r->cpu_freq = NULL;
	}
	e = tep_find_event_by_name(r->tep, "ftrace", "print");
	if (e) {
		r->print = e;
		r->p_buf = tep_find_field(e, "buf");
		if (!r->p_buf)
			r->print = NULL;
	}
}

static void dat_find_tasks(struct dat_reader *r)
{
	struct tep_event *e = tep_find_event_by_name(r->tep, "sched", "sched_switch");

	if (e) {
		r->sched_switch = e;
		r->s_prev_pid = tep_find_field(e, "prev_pid");
		r->s_next_pid = tep_find_field(e, "next_pid");
		r->s_prev_comm = tep_find_field(e, "prev_comm");
		r->s_next_comm = tep_find_field(e, "next_comm");
		r->s_prev_prio = tep_find_field(e, "prev_prio");
		r->s_next_prio = tep_find_field(e, "next_prio");
		r->s_prev_state = tep_find_field(e, "prev_state");
	}
	e = tep_find_event_by_name(r->tep, "sched", "sched_process_fork");
	if (e) {
		r->fork = e;
		r->f_parent_pid = tep_find_field(e, "parent_pid");
		r->f_child_pid = tep_find_field(e, "child_pid");
		r->f_parent_comm = tep_find_field(e, "parent_comm");
		r->f_child_comm = tep_find_field(e, "child_comm");
	}
	e = tep_find_event_by_name(r->tep, "sched", "sched_process_exit");
	if (e) {
		r->exit = e;
		r->x_pid = tep_find_field(e, "pid");
		r->x_prio = tep_find_field(e, "prio");
		r->x_comm = tep_find_field(e, "comm");
	}
	e = tep_find_event_by_name(r->tep, "task", "task_newtask");
	if (e) {
		r->newtask = e;
		r->n_pid = tep_find_field(e, "pid");
		r->n_flags = tep_find_field(e, "clone_flags");
	}
}

/*
 * Events lost during the capture by the kernel's own count: powerpin
 * record's line (end minus start) when present, else the sum over CPUs of
 * overruns and drops at the end (trace-cmd record starts from empty
 * buffers).  Returns -1 when the file holds no statistics.
 */
static long long cpustats_lost(const char *stats)
{
	const char *p = stats;
	long long lost = 0, n;
	bool any = false;

	if (!stats)
		return -1;
	p = strstr(stats, "powerpin: lost_events=");
	if (p && sscanf(p, "powerpin: lost_events=%lld", &n) == 1)
		return n;
	for (p = stats; (p = strstr(p, "overrun: ")); p++) {
		if (p != stats && p[-1] != '\n')
			continue;	/* "commit overrun:" */
		if (sscanf(p, "overrun: %lld", &n) == 1) {
			lost += n;
			any = true;
		}
	}
	for (p = stats; (p = strstr(p, "dropped events: ")); p++) {
		if (sscanf(p, "dropped events: %lld", &n) == 1) {
			lost += n;
			any = true;
		}
	}
	return any ? lost : -1;
}

/*
 * The trace clock (trace-cmd's TRACECLOCK option) and powerpin record's
 * readings of it paired with CLOCK_BOOTTIME and CLOCK_REALTIME, one line
 * each: "powerpin: clock=local trace_ns=T boottime_ns=B realtime_ns=R".
 * The first line was read as the capture started, the others during it;
 * lines of another clock, or out of order, are left out.  *@pairs is
 * allocated (NULL without a pair): the caller frees it.
 */
static void dat_clock(struct tracecmd_input *handle, const char *stats,
		      struct trace_clock_info *ci, struct trace_clock_pair **pairs)
{
	const char *name = tracecmd_get_trace_clock(handle), *p;
	struct trace_clock_pair *v = NULL;
	size_t n = 0, cap = 0;

	memset(ci, 0, sizeof(*ci));
	*pairs = NULL;
	if (name)
		snprintf(ci->name, sizeof(ci->name), "%s", name);
	for (p = stats; p && (p = strstr(p, "powerpin: clock=")); p++) {
		unsigned long long t, b, w;
		char clock[16];

		if (p != stats && p[-1] != '\n')
			continue;
		if (sscanf(p, "powerpin: clock=%15s trace_ns=%llu boottime_ns=%llu realtime_ns=%llu",
			   clock, &t, &b, &w) != 4)
			continue;
		if (!ci->name[0])
			snprintf(ci->name, sizeof(ci->name), "%s", clock);
		if (strcmp(ci->name, clock) || (n && (t < v[n - 1].trace_ns || b < v[n - 1].boottime_ns)))
			continue;
		if (n == cap) {
			size_t ncap = cap ? 2 * cap : 16;
			struct trace_clock_pair *nv = realloc(v, ncap * sizeof(*v));

			if (!nv)
				break;
			v = nv;
			cap = ncap;
		}
		v[n].trace_ns = t;
		v[n].boottime_ns = b;
		v[n++].realtime_ns = w;
	}
	if (n) {
		ci->have_pair = true;
		ci->trace_ns = v[0].trace_ns;
		ci->boottime_ns = v[0].boottime_ns;
		ci->realtime_ns = v[0].realtime_ns;
		ci->pairs = v;
		ci->nr_pairs = n;
	}
	*pairs = v;
}

/* Copy the word at @w (up to white space) into @dst; -1 if it does not fit. */
static int word_copy(char *dst, size_t len, const char *w)
{
	size_t n = strcspn(w, " \t\n");

	if (n >= len)
		return -1;
	memcpy(dst, w, n);
	dst[n] = '\0';
	return 0;
}

int trace_kernel_parse(const char *s, struct trace_kernel_info *k)
{
	const char *w[3] = { NULL, NULL, NULL };	/* the first, the last two words */
	int n = 0;

	memset(k, 0, sizeof(*k));
	while (s && *(s += strspn(s, " \t\n"))) {
		if (!n++)
			w[0] = s;
		w[1] = w[2];
		w[2] = s;
		s += strcspn(s, " \t\n");
	}
	if (n < 3 || word_copy(k->sysname, sizeof(k->sysname), w[0]) ||
	    word_copy(k->release, sizeof(k->release), w[1]) ||
	    word_copy(k->machine, sizeof(k->machine), w[2])) {
		memset(k, 0, sizeof(*k));
		return -1;
	}
	return 0;
}

/*
 * libtracecmd ends a CPU's stream at the first page it cannot load (a bad
 * commit size, a failed map or decompression) exactly as at the end of the
 * data, and tracecmd_iterate_events() returns success.  So check that each
 * CPU's stream got to that CPU's last record.  Returns the first CPU that
 * did not, or -1.
 *
 * Only for the CPUs the handle has data of: a version 7 file lists in its
 * BUFFER option only the CPUs that recorded something (libtracecmd's
 * writer skips the empty ones), so when the last CPUs were idle through
 * the capture the handle has fewer CPUs than the CPUCOUNT option (the
 * tep's count, r->nr_cpus).  tracecmd_read_cpu_last() does not check its
 * @cpu (libtracecmd 1.3.1): past the handle's array it reads a neighbour's
 * memory as that CPU's pages and reallocates or writes through it (32-bit
 * powerpin aborted in realloc() on such a capture).  Such a CPU has no
 * records: none may have come from it either.
 */
static int dat_incomplete_cpu(struct tracecmd_input *handle, const struct dat_reader *r)
{
	struct tep_record *last;
	int cpu, bad = -1;

	for (cpu = 0; cpu < r->nr_cpus && bad < 0; cpu++) {
		if (tracecmd_get_cpu_file_size(handle, cpu) <= 0) {
			if (r->last_offset[cpu] != 0)
				bad = cpu;
			continue;
		}
		last = tracecmd_read_cpu_last(handle, cpu);
		if (last ? last->offset != r->last_offset[cpu] : r->last_offset[cpu] != 0)
			bad = cpu;
		tracecmd_free_record(last);
	}
	return bad;
}

/*
 * Why the headers are opened twice.  libtraceevent's format parser (1.7.1
 * to 1.8.4) and libtracecmd's header reader trust the file: one flipped bit
 * in a format's field list or print format crashes them in a dozen places
 * (SIGSEGV in the parser's token and argument code, SIGFPE for a page size
 * or field size of 0), and trace-cmd report crashes the same way.  Checking
 * every format as that parser would read it is rewriting the parser, so the
 * headers and the CPU data's layout are opened first in a child process: a
 * child that a signal ends means a file the libraries cannot read, and it is
 * refused with a message instead of crashing the caller.  The headers are
 * small beside the data, so the time stays linear in the file's size.
 */
static void dat_trial_child(const char *path)
{
	static const int faults[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP, SIGSYS };
	struct rlimit no_core = { 0, 0 };
	struct tracecmd_input *handle;
	size_t i;

	/* die of the signal quietly: no core file, no fuzzer's or sanitizer's report */
	for (i = 0; i < sizeof(faults) / sizeof(faults[0]); i++)
		signal(faults[i], SIG_DFL);
	setrlimit(RLIMIT_CORE, &no_core);
	handle = tracecmd_open_head(path, TRACECMD_FL_LOAD_NO_PLUGINS);
	if (handle)
		tracecmd_init_data(handle);
	_exit(0);
}

/* Whether opening @path's headers ends a process with a signal (above); its number or 0. */
static int dat_trial_open(const char *path)
{
	int status;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return 0;	/* no trial: the open below is as before */
	if (!pid)
		dat_trial_child(path);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return 0;
	return WIFSIGNALED(status) ? WTERMSIG(status) : 0;
}

/*
 * Open @path's headers and data.  tracecmd_open() is these two steps; done
 * apart because libtracecmd 1.3's error path after a failed
 * tracecmd_init_data() (a v6 file cut inside its CPU data) calls
 * tracecmd_close(), which dereferences NULL on such a handle.  So a handle
 * that failed there is not closed: its memory and descriptor leak once,
 * rather than the process crashing.  NULL with a message in @err.
 */
static struct tracecmd_input *dat_open(const char *path, char *err, size_t errlen)
{
	struct tracecmd_input *handle;
	int sig;

	/* the library's own messages would not say which input failed */
	tracecmd_set_loglevel(TEP_LOG_NONE);
	/* libtracecmd also prints through libtraceevent's log ("mmap: ...") */
	tep_set_loglevel(TEP_LOG_NONE);
	format_refused[0] = '\0';
	sig = dat_trial_open(path);
	if (sig) {
		snprintf(err, errlen,
			 "%s: unreadable trace.dat (corrupt headers or event formats: the trace-cmd libraries crash reading them: %s)",
			 path, strsignal(sig));
		return NULL;
	}
	handle = tracecmd_open_head(path, TRACECMD_FL_LOAD_NO_PLUGINS);
	if (format_refused[0]) {
		snprintf(err, errlen,
			 "%s: event format %s has an array field cut off after its '[': libtraceevent (1.7.1 to 1.8.4) crashes reading it, so the file is refused",
			 path, format_refused);
		if (handle)
			tracecmd_close(handle);
		return NULL;
	}
	if (!handle) {
		snprintf(err, errlen,
			 "%s: unreadable trace.dat (truncated or corrupt headers)", path);
		return NULL;
	}
	if (tracecmd_init_data(handle) < 0) {
		snprintf(err, errlen,
			 "%s: unreadable trace.dat (truncated or corrupt: its CPU data is incomplete)",
			 path);
		return NULL;
	}
	return handle;
}

/* What the file says before its events: CPUs, clock, saved thread groups. */
static int dat_prepare(struct tracecmd_input *handle, struct dat_reader *r)
{
	const char *stats = tracecmd_get_cpustats(handle);

	r->tep = tracecmd_get_tep(handle);
	r->nr_cpus = tep_get_cpus(r->tep);
	r->last_offset = calloc(r->nr_cpus > 0 ? r->nr_cpus : 1, sizeof(*r->last_offset));
	if (!r->last_offset || trace_tgids_parse_saved(&r->tgids, stats) < 0)
		return -1;
	dat_find_power(r);
	dat_find_tasks(r);
	if (r->ops->cpus)
		r->ops->cpus(r->nr_cpus, r->arg);
	if (r->ops->clock) {
		struct trace_clock_pair *pairs;
		struct trace_clock_info ci;

		dat_clock(handle, stats, &ci, &pairs);
		r->ops->clock(&ci, r->arg);
		free(pairs);
	}
	if (r->ops->kernel) {
		struct trace_kernel_info k;

		if (!trace_kernel_parse(tracecmd_get_uname(handle), &k))
			r->ops->kernel(&k, r->arg);
	}
	return 0;
}

/* Every event, then the checks that the data was whole; the stats' lost count. */
static void dat_iterate(struct tracecmd_input *handle, struct dat_reader *r, int *bad_cpu)
{
	int ret = tracecmd_iterate_events(handle, NULL, 0, dat_record, r);

	if (!r->ret && ret < 0)
		r->ret = -3;
	if (!r->ret) {
		*bad_cpu = dat_incomplete_cpu(handle, r);
		if (*bad_cpu >= 0)
			r->ret = -4;
	}
	if (!r->ret && r->ops->kernel_lost) {
		long long lost = cpustats_lost(tracecmd_get_cpustats(handle));

		if (lost >= 0)
			r->ops->kernel_lost(lost, r->arg);
	}
}

/* The message for the reader's error code @code; -1, or @code for a callback's. */
static int dat_error(int code, const char *path, int bad_cpu, char *err, size_t errlen)
{
	switch (code) {
	case -2:
		snprintf(err, errlen, "%s: timestamps go backwards in the merged event stream",
			 path);
		return -1;
	case -3:
		snprintf(err, errlen, "%s: reading events failed: %s", path,
			 strerror(errno ? errno : EIO));
		return -1;
	case -4:
		snprintf(err, errlen,
			 "%s: unreadable trace.dat (corrupt: CPU %d's data stops at a page that cannot be loaded)",
			 path, bad_cpu);
		return -1;
	case -5:
		snprintf(err, errlen,
			 "%s: unreadable trace.dat (corrupt: a CPU's pages go round in a loop)",
			 path);
		return -1;
	case -6:
		snprintf(err, errlen, "%s: out of memory", path);
		return -1;
	}
	return code;
}

static struct tracecmd_input *dat_find_instance(struct tracecmd_input *top, const char *name,
						const char *path, char *err, size_t errlen);

/*
 * The buffer of ftrace instance @name in @top (trace-cmd record -B), or NULL
 * with a message naming the buffers there are; @top is closed either way
 * (the instance holds its own reference).
 */
static struct tracecmd_input *dat_instance(struct tracecmd_input *top, const char *name,
					   const char *path, char *err, size_t errlen)
{
	struct tracecmd_input *h = dat_find_instance(top, name, path, err, errlen);

	tracecmd_close(top);
	return h;
}

/* dat_instance()'s search, @top left open. */
static struct tracecmd_input *dat_find_instance(struct tracecmd_input *top, const char *name,
						const char *path, char *err, size_t errlen)
{
	int i, n = tracecmd_buffer_instances(top);
	struct tracecmd_input *h;
	size_t len;

	for (i = 0; i < n; i++) {
		const char *b = tracecmd_buffer_instance_name(top, i);

		if (!b || strcmp(b, name))
			continue;
		h = tracecmd_buffer_instance_handle(top, i);
		if (!h)
			snprintf(err, errlen, "%s: instance %s: its buffer cannot be read", path, name);
		return h;
	}
	len = (size_t)snprintf(err, errlen, "%s: no instance %s in it (%s", path, name,
			       n ? "it has:" : "it has the top buffer alone");
	for (i = 0; i < n && len < errlen; i++)
		len += (size_t)snprintf(err + len, errlen - len, " %s",
					tracecmd_buffer_instance_name(top, i));
	if (len < errlen)
		snprintf(err + len, errlen - len, ")");
	return NULL;
}

/*
 * libtracecmd 1.3 prints some failures itself whatever its log level
 * (perror("mmap") and "Can not mmap file, will read instead" for a corrupt
 * CPU data offset, "File possibly truncated..."): they would come before
 * the reader's own message, which names the input.  Its calls run with
 * standard error on /dev/null; the descriptor to put back, or -1.
 */
static int quiet_begin(void)
{
	int saved, null;

	fflush(stderr);
	saved = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
	null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (saved < 0 || null < 0 || dup2(null, STDERR_FILENO) < 0) {
		if (saved >= 0)
			close(saved);
		saved = -1;
	}
	if (null >= 0)
		close(null);
	return saved;
}

static void quiet_end(int saved)
{
	if (saved < 0)
		return;
	dup2(saved, STDERR_FILENO);
	close(saved);
}

static int dat_read(const char *path, const struct trace_input_ops *ops, void *arg,
		    char *err, size_t errlen);

int trace_input_read_tracedat(const char *path, const struct trace_input_ops *ops,
			      void *arg, char *err, size_t errlen)
{
	int saved = quiet_begin(), ret;

	ret = dat_read(path, ops, arg, err, errlen);
	quiet_end(saved);
	return ret;
}

/* trace_input_read_tracedat() with the library's messages silenced. */
static int dat_read(const char *path, const struct trace_input_ops *ops, void *arg,
		    char *err, size_t errlen)
{
	struct tracecmd_input *handle;
	struct dat_reader r;
	struct stat st;
	int bad_cpu = -1;

	memset(&r, 0, sizeof(r));
	r.ops = ops;
	r.arg = arg;
	if (stat(path, &st)) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	r.dev = st.st_dev;
	r.ino = st.st_ino;
	handle = dat_open(path, err, errlen);
	if (!handle)
		return -1;
	if (ops->instance && !(handle = dat_instance(handle, ops->instance, path, err, errlen)))
		return -1;
	trace_seq_init(&r.seq);
	if (dat_prepare(handle, &r))
		r.ret = -6;
	else
		dat_iterate(handle, &r, &bad_cpu);
	tracecmd_close(handle);
	trace_seq_destroy(&r.seq);
	free(r.last_offset);
	trace_tgids_free(&r.tgids);
	return dat_error(r.ret, path, bad_cpu, err, errlen);
}
