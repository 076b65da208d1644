// SPDX-License-Identifier: GPL-2.0
/*
 * Format detection and the ftrace text reader.
 *
 * Text lines look like (the TGID column and the irq-info flags are optional,
 * trace-cmd report prints the same layout without the TGID):
 *
 *   periodic_power-3003 ( 3003) [000] .... 574.487676: write_power_ringbuffer: v:4380937 c:530056 e:-203095456
 *   kworker/0:1-42 [001] d..2. 12.000100: sched_switch: prev_comm=a prev_pid=1 ... ==> next_comm=b next_pid=2 ...
 *   app-303 [000] ...1 457.198279: tracing_mark_write: B|303|hwc_set_external
 *   powerpin-77 [001] ..... 3.5: battery: seq=7 voltage_uv=4160000 current_ua=-500000 ...
 *
 * libtraceevent parses event *payloads* from a binary record and a format
 * file; it has no parser for the printed text form, hence this one.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trace_input.h"
#include "trace_threads.h"

#define TRACEDAT_MAGIC		"\027\010\104tracing"
#define TRACEDAT_MAGIC_LEN	10
/* Non-ftrace lines tolerated before the file is called foreign. */
#define TEXT_MAX_LEADING_JUNK	64

enum trace_format trace_input_sniff(const void *start, size_t n, const char *name, char *err,
				   size_t errlen)
{
	const unsigned char *buf = start;
	size_t i;

	if (n == 0) {
		snprintf(err, errlen, "%s: empty file", name);
		return TRACE_FORMAT_UNKNOWN;
	}
	if (n >= TRACEDAT_MAGIC_LEN && !memcmp(buf, TRACEDAT_MAGIC, TRACEDAT_MAGIC_LEN))
		return TRACE_FORMAT_TRACEDAT;
	if (n > TRACE_SNIFF_BYTES)
		n = TRACE_SNIFF_BYTES;
	for (i = 0; i < n; i++) {
		if (buf[i] == '\t' || buf[i] == '\n' || buf[i] == '\r')
			continue;
		/* ftrace text is ASCII apart from task names; allow UTF-8 bytes */
		if (buf[i] < 0x20 || buf[i] == 0x7f) {
			snprintf(err, errlen,
				 "%s: binary data that is not a trace.dat (no trace-cmd magic)",
				 name);
			return TRACE_FORMAT_UNKNOWN;
		}
	}
	return TRACE_FORMAT_TEXT;
}

enum trace_format trace_input_detect(const char *path, char *err, size_t errlen)
{
	unsigned char buf[TRACE_SNIFF_BYTES];
	struct stat st;
	ssize_t n;
	int fd;

	/*
	 * Sniffing reads the start, and the readers read again from the start
	 * (a report's second pass too): a pipe would lose what was read.
	 */
	if (!stat(path, &st) && !S_ISREG(st.st_mode)) {
		snprintf(err, errlen,
			 "%s: not a regular file: a pipe, FIFO or device cannot be read more than once; copy it to a file first",
			 path);
		return TRACE_FORMAT_UNKNOWN;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return TRACE_FORMAT_UNKNOWN;
	}
	n = read(fd, buf, sizeof(buf));
	close(fd);
	if (n < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return TRACE_FORMAT_UNKNOWN;
	}
	return trace_input_sniff(buf, n, path, err, errlen);
}

int trace_input_read(const char *path, const struct trace_input_ops *ops, void *arg,
		     char *err, size_t errlen)
{
	switch (trace_input_detect(path, err, errlen)) {
	case TRACE_FORMAT_TEXT:
		if (ops->instance) {
			snprintf(err, errlen, "%s: ftrace text has one buffer, not instance %s (a trace.dat from trace-cmd record -B has several)",
				 path, ops->instance);
			return -1;
		}
		return trace_input_read_text(path, ops, arg, err, errlen);
	case TRACE_FORMAT_TRACEDAT:
		return trace_input_read_tracedat(path, ops, arg, err, errlen);
	default:
		return -1;
	}
}

/*
 * "574.487676" -> ns, exactly; returns the character after the number, or
 * NULL if there is none.  A number past 2^64 - 1 ns (18446744073.709551615
 * s) sets *@overflow rather than wrap round to a small time.
 */
static char *parse_timestamp(char *s, uint64_t *ts_ns, bool *overflow)
{
	const uint64_t ns_per_s = 1000000000ULL;
	uint64_t sec = 0, frac = 0;
	bool big = false;
	int digits = 0;
	char *p = s;

	if (!isdigit((unsigned char)*p))
		return NULL;
	while (isdigit((unsigned char)*p)) {
		if (sec > (UINT64_MAX / ns_per_s - (*p - '0')) / 10)
			big = true;
		else
			sec = sec * 10 + (*p - '0');
		p++;
	}
	if (*p == '.') {
		p++;
		while (isdigit((unsigned char)*p)) {
			if (digits < 9) {
				frac = frac * 10 + (*p - '0');
				digits++;
			}
			p++;
		}
	}
	while (digits++ < 9)
		frac *= 10;
	if (big || sec > (UINT64_MAX - frac) / ns_per_s)
		*overflow = true;
	else
		*ts_ns = sec * ns_per_s + frac;
	return p;
}

/*
 * Value of "key=<int>" inside @s (a space-separated key=value payload).
 * Returns 0, -1 when there is no such number, -2 when it is past int64.
 */
static int kv_int(const char *s, const char *key, int64_t *val)
{
	size_t klen = strlen(key);
	const char *p = s;
	char *end;

	while ((p = strstr(p, key))) {
		if ((p == s || p[-1] == ' ' || p[-1] == ',') && p[klen] == '=') {
			errno = 0;
			*val = strtoll(p + klen + 1, &end, 0);
			if (end == p + klen + 1)
				return -1;
			return errno == ERANGE ? -2 : errno ? -1 : 0;
		}
		p += klen;
	}
	return -1;
}

static char *kv_comm(char *s, const char *key, const char *stop);

/* "<prefix><int>" at *@s, moving past it; -1 none, -2 past int64. */
static int take_int(const char **s, const char *prefix, int64_t *val)
{
	size_t len = strlen(prefix);
	char *end;

	while (**s == ' ')
		(*s)++;
	if (strncmp(*s, prefix, len))
		return -1;
	errno = 0;
	*val = strtoll(*s + len, &end, 10);
	if (end == *s + len)
		return -1;
	if (errno == ERANGE)
		return -2;
	*s = end;
	return 0;
}

/* The seed's "v:<uV> c:<uA> e:<uAh>" */
static int parse_seed_power(const char *s, struct trace_event *ev)
{
	int64_t v, c, e;
	int r;

	if ((r = take_int(&s, "v:", &v)) || (r = take_int(&s, "c:", &c)) ||
	    (r = take_int(&s, "e:", &e)))
		return r == -2 ? TRACE_LINE_VALUE_RANGE : -1;
	ev->kind = TRACE_EV_POWER;
	ev->power.voltage_uv = v;
	ev->power.current_ua = c;
	ev->power.charge_uah = e;
	ev->power.seq = 0;
	ev->power.flags = 0;
	ev->power.has = TRACE_POWER_HAS_CHARGE;
	return 1;
}

static int parse_battery(const char *s, struct trace_event *ev)
{
	int64_t v;
	int r;

	memset(&ev->power, 0, sizeof(ev->power));
	if ((r = kv_int(s, "voltage_uv", &ev->power.voltage_uv)) ||
	    (r = kv_int(s, "current_ua", &ev->power.current_ua)))
		return r == -2 ? TRACE_LINE_VALUE_RANGE : -1;
	ev->kind = TRACE_EV_POWER;
	r = kv_int(s, "charge_uah", &ev->power.charge_uah);
	if (r == -2)
		return TRACE_LINE_VALUE_RANGE;
	if (!r)
		ev->power.has |= TRACE_POWER_HAS_CHARGE;
	if (!kv_int(s, "seq", &v)) {
		ev->power.seq = (uint32_t)v;
		ev->power.has |= TRACE_POWER_HAS_SEQ;
	}
	if (!kv_int(s, "flags", &v)) {
		ev->power.flags = (uint32_t)v;
		ev->power.has |= TRACE_POWER_HAS_FLAGS;
	}
	if (!kv_int(s, "capacity", &v)) {
		ev->power.capacity = (int32_t)v;
		ev->power.has |= TRACE_POWER_HAS_CAPACITY;
	}
	if (!kv_int(s, "temp_dc", &v)) {
		ev->power.temp_dc = (int32_t)v;
		ev->power.has |= TRACE_POWER_HAS_TEMP;
	}
	if (!kv_int(s, "current_avg_ua", &ev->power.current_avg_ua))
		ev->power.has |= TRACE_POWER_HAS_CURRENT_AVG;
	return 1;
}

/* The value of "key=" up to the next space, as TRACE_TASK_* bits. */
static unsigned int kv_state(const char *s, const char *key)
{
	const char *p = strstr(s, key);
	size_t len;

	if (!p)
		return TRACE_TASK_UNKNOWN;
	p += strlen(key);
	len = strcspn(p, " ");
	return trace_task_state_parse(p, len);
}

/* "comm=bash pid=1234 child_comm=bash child_pid=1240" */
static int parse_fork(char *s, struct trace_event *ev)
{
	int64_t parent, child;

	if (kv_int(s, "pid", &parent) || kv_int(s, "child_pid", &child))
		return 0;
	ev->kind = TRACE_EV_FORK;
	ev->fork.parent_pid = (int)parent;
	ev->fork.child_pid = (int)child;
	ev->fork.child_comm = kv_comm(s, "child_comm=", " child_pid=");
	ev->fork.parent_comm = kv_comm(s, "comm=", " pid=");
	return 1;
}

/* "comm=ls pid=1240 prio=120" */
static int parse_exit(char *s, struct trace_event *ev)
{
	int64_t pid, prio;

	if (kv_int(s, "pid", &pid))
		return 0;
	ev->kind = TRACE_EV_EXIT;
	ev->exit.pid = (int)pid;
	ev->exit.prio = kv_int(s, "prio", &prio) ? -1 : (int)prio;
	ev->exit.comm = kv_comm(s, "comm=", " pid=");
	return 1;
}

/* "state=1800000 cpu_id=2" (power:cpu_frequency) */
static int parse_cpu_freq(char *s, struct trace_event *ev)
{
	int64_t khz, cpu;

	if (kv_int(s, "state", &khz) || kv_int(s, "cpu_id", &cpu) || khz < 0 ||
	    khz > UINT32_MAX || cpu < 0 || cpu > INT32_MAX)
		return 0;
	ev->kind = TRACE_EV_CPU_FREQ;
	ev->freq.cpu = (int)cpu;
	ev->freq.khz = (unsigned int)khz;
	return 1;
}

/* "track_name=cpu_load counter_value=42" */
static int parse_counter(char *s, struct trace_event *ev)
{
	char *name = strstr(s, "track_name=");
	char *end;
	int r;

	if (!name)
		return 0;
	r = kv_int(s, "counter_value", &ev->counter.value);
	if (r)
		return r == -2 ? TRACE_LINE_VALUE_RANGE : 0;
	name += strlen("track_name=");
	end = strstr(name, " counter_value=");
	if (end)
		*end = '\0';
	ev->kind = TRACE_EV_COUNTER;
	ev->counter.track = name;
	return 1;
}

/* Comm between "<key>=" and " <stop>=" (comms may hold spaces). */
static char *kv_comm(char *s, const char *key, const char *stop)
{
	char *p = strstr(s, key);
	char *e;

	if (!p)
		return NULL;
	p += strlen(key);
	e = strstr(p, stop);
	if (!e)
		return NULL;
	*e = '\0';
	return p;
}

/* "comm:pid [prio] S" as trace-cmd's sched plugin prints a task */
static int plugin_task(char *s, char **comm, int *pid, int *prio, unsigned int *state)
{
	char *bracket = strstr(s, " [");
	char *colon, *end;

	if (!bracket)
		return -1;
	*bracket = '\0';
	*prio = (int)strtol(bracket + 2, &end, 10);
	if (end == bracket + 2 || *end != ']')
		*prio = -1;
	else if (state)
		*state = end[1] == ' ' ? trace_task_state_parse(end + 2, strcspn(end + 2, " ")) :
					 TRACE_TASK_UNKNOWN;
	colon = strrchr(s, ':');
	if (!colon || !isdigit((unsigned char)colon[1]))
		return -1;
	*colon = '\0';
	*pid = atoi(colon + 1);
	*comm = s;
	return 0;
}

static int parse_switch(char *s, struct trace_event *ev)
{
	int64_t prev, next, prio;
	char *arrow;

	if (kv_int(s, "prev_pid", &prev) || kv_int(s, "next_pid", &next)) {
		/* trace-cmd report: "prev:12 [120] S ==> next:34 [120]" */
		char *pc, *nc;
		int pp, np;

		arrow = strstr(s, " ==> ");
		if (!arrow)
			return 0;
		*arrow = '\0';
		ev->sw.prev_state = TRACE_TASK_UNKNOWN;
		if (plugin_task(s, &pc, &pp, &ev->sw.prev_prio, &ev->sw.prev_state) ||
		    plugin_task(arrow + 5, &nc, &np, &ev->sw.next_prio, NULL))
			return 0;
		ev->kind = TRACE_EV_SWITCH;
		ev->sw.prev_pid = pp;
		ev->sw.next_pid = np;
		ev->sw.prev_comm = pc;
		ev->sw.next_comm = nc;
		return 1;
	}
	arrow = strstr(s, "==>");
	if (!arrow)
		return 0;
	*arrow = '\0';
	ev->kind = TRACE_EV_SWITCH;
	ev->sw.prev_prio = kv_int(s, "prev_prio", &prio) ? -1 : (int)prio;
	ev->sw.next_prio = kv_int(arrow + 3, "next_prio", &prio) ? -1 : (int)prio;
	ev->sw.prev_state = kv_state(s, "prev_state=");
	ev->sw.prev_pid = (int)prev;
	ev->sw.next_pid = (int)next;
	ev->sw.prev_comm = kv_comm(s, "prev_comm=", " prev_pid=");
	ev->sw.next_comm = kv_comm(arrow + 3, "next_comm=", " next_pid=");
	return 1;
}

static int parse_mark(char *s, struct trace_event *ev)
{
	size_t len;

	/* trace-cmd report prints ftrace:print as "print: tracing_mark_write: ..."
	 * or with the caller's address first */
	if (!strncmp(s, "tracing_mark_write: ", 20))
		s += 20;
	else if (!strncmp(s, "0x", 2) && strstr(s, ": "))
		s = strstr(s, ": ") + 2;
	len = strlen(s);
	while (len && (s[len - 1] == '\n' || s[len - 1] == '\r'))
		len--;
	ev->kind = TRACE_EV_MARK;
	ev->mark.text = s;
	ev->mark.len = len;
	return 1;
}

static int parse_lost(const char *line, struct trace_event *ev)
{
	unsigned long long n;
	int cpu;

	if (sscanf(line, "CPU:%d [LOST %llu EVENTS]", &cpu, &n) == 2 ||
	    sscanf(line, "CPU:%d [%llu EVENTS DROPPED]", &cpu, &n) == 2) {
		ev->kind = TRACE_EV_LOST;
		ev->cpu = cpu;
		ev->lost.count = n;
		return 1;
	}
	return 0;
}

/* "pid=1216 comm=app clone_flags=3d0f00 oom_score_adj=0" (flags in hex) */
static int parse_newtask(char *s, struct trace_event *ev)
{
	const char *f = strstr(s, "clone_flags=");
	int64_t pid;
	char *end;

	if (kv_int(s, "pid", &pid) || !f)
		return 0;
	f += strlen("clone_flags=");
	errno = 0;
	ev->newtask.clone_flags = strtoull(f, &end, 16);
	if (end == f || errno)
		return 0;
	ev->kind = TRACE_EV_NEWTASK;
	ev->newtask.pid = (int)pid;
	return 1;
}

/*
 * A line that is not an event: 0 to skip it (blank, comment, header), 1
 * for a lost-events line (@ev filled), -1 to parse it as an event.
 */
static int parse_non_event(char *line, struct trace_event *ev)
{
	if (!*line || *line == '\n' || *line == '#')
		return 0;
	if (!strncmp(line, "CPU:", 4) || !strncmp(line, "CPU ", 4))
		return parse_lost(line, ev);
	if (!strncmp(line, "cpus=", 5) || !strncmp(line, "version =", 9))
		return 0;
	return -1;
}

/* The CPU field, the first " [digits]": its '[' (NULL: none), its end in *@end. */
static char *find_cpu_field(char *line, struct trace_event *ev, char **end)
{
	char *bracket = line;

	while ((bracket = strchr(bracket, '['))) {
		if (bracket > line && bracket[-1] == ' ' && isdigit((unsigned char)bracket[1])) {
			ev->cpu = (int)strtol(bracket + 1, end, 10);
			if (**end == ']')
				return bracket;
		}
		bracket++;
	}
	return NULL;
}

/*
 * "comm-pid", with an optional "(tgid)" (options/record-tgid; "(-----)"
 * when the kernel had none for the task), ending before @task_end.
 */
static int parse_task_field(char *line, char *task_end, struct trace_event *ev)
{
	char *q, *t, *dash;

	while (task_end > line && task_end[-1] == ' ')
		task_end--;
	if (task_end > line && task_end[-1] == ')') {
		q = task_end - 1;
		while (q > line && *q != '(')
			q--;
		if (*q == '(') {
			for (t = q + 1; *t == ' '; t++)
				;
			ev->tgid = isdigit((unsigned char)*t) ? atoi(t) : -1;
			task_end = q;
			while (task_end > line && task_end[-1] == ' ')
				task_end--;
		}
	}
	*task_end = '\0';
	dash = strrchr(line, '-');
	if (!dash || !isdigit((unsigned char)dash[1]))
		return -1;
	ev->pid = atoi(dash + 1);
	*dash = '\0';
	ev->comm = line;
	return 0;
}

/*
 * Optional flags, then "timestamp:" from @p.  Returns the character after
 * the ':', NULL for no timestamp; *@overflow for one past 2^64 - 1 ns.
 */
static char *parse_time_field(char *p, struct trace_event *ev, bool *overflow)
{
	char *q;

	while (*p == ' ')
		p++;
	q = parse_timestamp(p, &ev->ts_ns, overflow);
	if (!q || *q != ':') {
		*overflow = false;
		while (*p && *p != ' ')
			p++;
		while (*p == ' ')
			p++;
		q = parse_timestamp(p, &ev->ts_ns, overflow);
		if (!q || *q != ':')
			return NULL;
	}
	return q + 1;
}

/* "event: payload" at @s: the two, NUL-terminated, the line end dropped. */
static int split_event(char *s, char **event, char **payload)
{
	char *q;

	while (*s == ' ')
		s++;
	*event = s;
	q = strchr(s, ':');
	if (!q)
		return -1;
	*q++ = '\0';
	while (*q == ' ')
		q++;
	*payload = q;
	q += strlen(q);
	while (q > *payload && (q[-1] == '\n' || q[-1] == '\r'))
		*--q = '\0';
	return 0;
}

/* The payload of @event, by its name: trace_text_parse_line's answer. */
static int parse_payload(const char *event, char *payload, struct trace_event *ev)
{
	/* powerpin's events, also by the names older modules gave them */
	if (!strcmp(event, "powerpin_battery") || !strcmp(event, "battery"))
		return parse_battery(payload, ev);
	if (!strcmp(event, "write_power_ringbuffer"))
		return parse_seed_power(payload, ev);
	if (!strcmp(event, "powerpin_counter") || !strcmp(event, "counter"))
		return parse_counter(payload, ev);
	if (!strcmp(event, "sched_switch"))
		return parse_switch(payload, ev) ? 1 : -1;
	if (!strcmp(event, "sched_process_fork"))
		return parse_fork(payload, ev) ? 1 : -1;
	if (!strcmp(event, "sched_process_exit"))
		return parse_exit(payload, ev) ? 1 : -1;
	if (!strcmp(event, "task_newtask"))
		return parse_newtask(payload, ev) ? 1 : 2;
	if (!strcmp(event, "cpu_frequency"))
		return parse_cpu_freq(payload, ev) ? 1 : -1;
	if (!strcmp(event, "tracing_mark_write") || !strcmp(event, "print"))
		return parse_mark(payload, ev);
	/* some other event: still a valid line, its timestamp is checked */
	return 2;
}

int trace_text_parse_line(char *line, struct trace_event *ev)
{
	char *bracket, *cpu_end, *rest, *event, *payload;
	bool ts_overflow = false;
	int r;

	memset(ev, 0, sizeof(*ev));
	ev->tgid = -1;
	while (*line == ' ' || *line == '\t')
		line++;
	r = parse_non_event(line, ev);
	if (r >= 0)
		return r;
	bracket = find_cpu_field(line, ev, &cpu_end);
	if (!bracket || parse_task_field(line, bracket - 1, ev))
		return -1;
	rest = parse_time_field(cpu_end + 1, ev, &ts_overflow);
	if (!rest)
		return -1;
	if (ts_overflow)
		return TRACE_LINE_TIME_RANGE;
	if (split_event(rest, &event, &payload))
		return -1;
	return parse_payload(event, payload, ev);
}

/*
 * Lines of a file, each at most TRACE_TEXT_LINE_MAX bytes, read through one
 * fixed buffer: memory does not grow with the input, whatever it holds.
 */
struct line_reader {
	int fd;
	char *buf;
	size_t start, end;
	bool eof;
	bool cut;		/* the line returned last had no newline */
};

#define LINE_BUF	(4 * TRACE_TEXT_LINE_MAX)

enum { LINE_END = 0, LINE_OK = 1, LINE_TOO_LONG = -10, LINE_NUL = -11 };

/*
 * The next line in *@line, NUL-terminated in place, its newline dropped.
 * Returns LINE_OK, LINE_END, LINE_TOO_LONG or LINE_NUL (a NUL byte: not
 * text), or -1 with errno for a read error.
 */
static int next_line(struct line_reader *lr, char **line)
{
	char *nl;
	ssize_t n;

	for (;;) {
		nl = memchr(lr->buf + lr->start, '\n', lr->end - lr->start);
		if (nl || (lr->eof && lr->start < lr->end)) {
			lr->cut = !nl;
			if (!nl)
				nl = lr->buf + lr->end;	/* the last line, unterminated */
			if ((size_t)(nl - lr->buf - lr->start) > TRACE_TEXT_LINE_MAX)
				return LINE_TOO_LONG;
			*nl = '\0';
			*line = lr->buf + lr->start;
			lr->start = nl - lr->buf + 1;
			if (lr->start > lr->end)
				lr->start = lr->end;
			return memchr(*line, '\0', nl - *line) ? LINE_NUL : LINE_OK;
		}
		if (lr->eof)
			return LINE_END;
		if (lr->end - lr->start > TRACE_TEXT_LINE_MAX)
			return LINE_TOO_LONG;
		memmove(lr->buf, lr->buf + lr->start, lr->end - lr->start);
		lr->end -= lr->start;
		lr->start = 0;
		/* one byte kept for the terminating NUL of a last line */
		n = read(lr->fd, lr->buf + lr->end, LINE_BUF - 1 - lr->end);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (!n)
			lr->eof = true;
		lr->end += n;
	}
}

/*
 * Whether a last line without its newline is a whole event (@r and @ev
 * from trace_text_parse_line()).  Text from ftrace ends every line with a
 * newline, so one without was cut by its writer, possibly inside a number
 * that still parses ("current_ua=-6" of -600000).  A battery line is whole
 * when it reaches its last field (flags=), a lost-events line when it ends
 * in its "]"; the end of any other event cannot be told from a cut.
 * Blank and comment lines (0) are nothing to leave out.
 */
static bool cut_line_whole(int r, const struct trace_event *ev)
{
	if (r == 0)
		return true;
	if (r != 1)
		return false;
	if (ev->kind == TRACE_EV_LOST)
		return true;
	return ev->kind == TRACE_EV_POWER && (ev->power.has & TRACE_POWER_HAS_FLAGS);
}

/* A line the reader cannot take: the message, and -1. */
static int bad_line(int r, const char *path, unsigned long lineno, char *err, size_t errlen)
{
	switch (r) {
	case LINE_TOO_LONG:
		snprintf(err, errlen, "%s:%lu: line longer than %d bytes: not ftrace text",
			 path, lineno, TRACE_TEXT_LINE_MAX);
		break;
	case LINE_NUL:
		snprintf(err, errlen, "%s:%lu: NUL byte: not ftrace text", path, lineno);
		break;
	case TRACE_LINE_TIME_RANGE:
		snprintf(err, errlen,
			 "%s:%lu: timestamp past 2^64 ns (18446744073.709551615 s): refusing it rather than wrap round",
			 path, lineno);
		break;
	case TRACE_LINE_VALUE_RANGE:
		snprintf(err, errlen, "%s:%lu: a power or counter value past 64 bits", path,
			 lineno);
		break;
	default:
		snprintf(err, errlen, "%s: read error: %s", path, strerror(errno));
		break;
	}
	return -1;
}

struct text_reader {
	struct line_reader lr;
	const char *path;
	const struct trace_input_ops *ops;
	void *arg;
	unsigned long lineno, good, junk;
	uint64_t last_ts;
	bool stop;		/* a cut last line: left out, the reading ends */
	struct trace_tgids tgids;
	char *err;
	size_t errlen;
};

/* "#P:4" in the header: the CPU count. */
static void text_header(struct text_reader *t, const char *line)
{
	const char *p;

	if (line[0] == '#' && t->ops->cpus && (p = strstr(line, "#P:")))
		t->ops->cpus(atoi(p + 3), t->arg);
}

/* A line that is no event: too many of them before the first event is no ftrace text. */
static int text_junk(struct text_reader *t)
{
	if (t->good || ++t->junk <= TEXT_MAX_LEADING_JUNK)
		return 0;
	snprintf(t->err, t->errlen,
		 "%s: not ftrace text (line %lu: no \"comm-pid [cpu] timestamp: event:\")",
		 t->path, t->lineno);
	return -1;
}

static int text_time(struct text_reader *t, const struct trace_event *ev)
{
	if (ev->ts_ns < t->last_ts) {
		snprintf(t->err, t->errlen,
			 "%s:%lu: timestamp goes backwards (%" PRIu64 ".%09" PRIu64 " after %" PRIu64 ".%09" PRIu64 ")",
			 t->path, t->lineno, ev->ts_ns / 1000000000, ev->ts_ns % 1000000000,
			 t->last_ts / 1000000000, t->last_ts % 1000000000);
		return -1;
	}
	t->last_ts = ev->ts_ns;
	return 0;
}

/* An event the report uses: names and thread groups first, then the event. */
static int text_deliver(struct text_reader *t, struct trace_event *ev)
{
	const struct trace_input_ops *ops = t->ops;

	if (trace_tgids_atrace(&t->tgids, ev))
		goto oom;
	if (ev->kind == TRACE_EV_NEWTASK) {
		if (trace_tgids_learn(&t->tgids, ev->pid, ev->tgid) ||
		    trace_tgids_newtask(&t->tgids, ev->pid, ev->newtask.pid,
					ev->newtask.clone_flags))
			goto oom;
		return 0;
	}
	if (ev->kind == TRACE_EV_SWITCH && ops->comm) {
		if (ev->sw.prev_comm)
			ops->comm(ev->sw.prev_pid, ev->sw.prev_comm, t->arg);
		if (ev->sw.next_comm)
			ops->comm(ev->sw.next_pid, ev->sw.next_comm, t->arg);
	}
	if (ev->kind == TRACE_EV_FORK && ops->comm && ev->fork.child_comm)
		ops->comm(ev->fork.child_pid, ev->fork.child_comm, t->arg);
	if (trace_tgids_announce(&t->tgids, ev, ops, t->arg))
		goto oom;
	return ops->event(ev, t->arg);
oom:
	snprintf(t->err, t->errlen, "%s: out of memory", t->path);
	return -1;
}

/* One line: 0 to go on, else the reader's answer. */
static int text_line(struct text_reader *t, char *line)
{
	struct trace_event ev;
	int r;

	text_header(t, line);
	r = trace_text_parse_line(line, &ev);
	if (t->lr.cut && !cut_line_whole(r, &ev)) {
		if (t->ops->cut_line)
			t->ops->cut_line(t->lineno, t->arg);
		t->stop = true;
		return 0;
	}
	if (r == TRACE_LINE_TIME_RANGE || r == TRACE_LINE_VALUE_RANGE)
		return bad_line(r, t->path, t->lineno, t->err, t->errlen);
	if (r < 0)
		return text_junk(t);
	if (r == 0)
		return 0;
	if (ev.kind == TRACE_EV_LOST && r == 1) {
		ev.ts_ns = t->last_ts;
		return t->ops->event(&ev, t->arg);
	}
	t->good++;
	if (text_time(t, &ev))
		return -1;
	return r == 2 ? 0 : text_deliver(t, &ev);
}

int trace_input_read_text(const char *path, const struct trace_input_ops *ops, void *arg,
			  char *err, size_t errlen)
{
	struct text_reader t = {
		.lr.fd = -1, .path = path, .ops = ops, .arg = arg, .err = err, .errlen = errlen,
	};
	int ret = 0, r;
	char *line;

	t.lr.fd = open(path, O_RDONLY | O_CLOEXEC);
	if (t.lr.fd < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	t.lr.buf = malloc(LINE_BUF);
	if (!t.lr.buf) {
		close(t.lr.fd);
		snprintf(err, errlen, "%s: out of memory", path);
		return -1;
	}
	while (!ret && !t.stop && (r = next_line(&t.lr, &line)) != LINE_END) {
		t.lineno++;
		ret = r != LINE_OK ? bad_line(r, path, t.lineno, err, errlen) : text_line(&t, line);
	}
	if (!ret && !t.good && !t.lineno) {
		snprintf(err, errlen, "%s: empty file", path);
		ret = -1;
	}
	trace_tgids_free(&t.tgids);
	free(t.lr.buf);
	close(t.lr.fd);
	return ret;
}
