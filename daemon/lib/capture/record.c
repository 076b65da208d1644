// SPDX-License-Identifier: GPL-2.0
/*
 * Capture writer.  Raw ring-buffer pages come from libtracefs (tracefs_cpu_*),
 * the trace.dat container from libtracecmd, so `trace-cmd report` and every
 * libtracecmd reader open the result.  Layout: docs/capture-format.md.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <tracefs.h>

#include "base/base.h"
#include "record.h"

/*
 * libtracecmd.so.1 (trace-cmd 3.x) exports its trace.dat writer, but Debian
 * ships only the reader's header (trace-cmd.h).  These are the prototypes
 * of the writer functions used here, as trace-cmd-private.h declares them
 * in libtracecmd 1.3; `trace-cmd record` drives them in the same order.
 */
struct tracecmd_output;
struct tracecmd_event_list;
struct tracecmd_option;
struct tracecmd_output *tracecmd_output_create(const char *output_file);
int tracecmd_output_write_headers(struct tracecmd_output *handle,
				  struct tracecmd_event_list *list);
struct tracecmd_option *tracecmd_add_option(struct tracecmd_output *handle,
					    unsigned short id, int size,
					    const void *data);
int tracecmd_write_cmdlines(struct tracecmd_output *handle);
int tracecmd_append_cpu_data(struct tracecmd_output *handle, int cpus,
			     char * const *cpu_data_files);
void tracecmd_output_close(struct tracecmd_output *handle);
void tracecmd_set_quiet(struct tracecmd_output *handle, bool set_quiet);
int tracecmd_output_set_compression(struct tracecmd_output *handle,
				    const char *compression);
#define PP_TRACECMD_OPTION_CPUSTAT	2
#define PP_TRACECMD_OPTION_TRACECLOCK	4
#define PP_TRACECMD_OPTION_UNAME	5

/*
 * The ftrace instance captures read and set up (pp_record_instance), NULL
 * for the top-level buffer; and whether this process made it.
 */
static struct tracefs_instance *pp_inst;
static bool pp_inst_made;

int pp_record_instance(const char *name)
{
	pp_inst = tracefs_instance_create(name);
	if (!pp_inst)
		return -1;
	pp_inst_made = tracefs_instance_is_new(pp_inst);
	return 0;
}

struct tracefs_instance *pp_record_tracefs_instance(void)
{
	return pp_inst;
}

void pp_record_instance_end(void)
{
	if (pp_inst && pp_inst_made)
		tracefs_instance_destroy(pp_inst);
	tracefs_instance_free(pp_inst);
	pp_inst = NULL;
	pp_inst_made = false;
}

/* ---- tracefs mounts made on our behalf ------------------------------ */

#define PP_MOUNTS_MAX	8

static struct {
	bool noted;
	int nr;
	char dir[PP_MOUNTS_MAX][256];
} pp_mounts;

/*
 * The tracefs and debugfs mount points in /proc/self/mounts, in mount
 * order, into @dir (at most PP_MOUNTS_MAX); their number, or -1.  A point
 * with an escaped character (\040 for a space) is left out: libtracefs
 * mounts only at its own fixed paths.
 */
static int tracing_mounts(char dir[][256])
{
	char line[1024], point[256], type[32];
	FILE *f = fopen("/proc/self/mounts", "re");
	int n = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f) && n < PP_MOUNTS_MAX) {
		if (sscanf(line, "%*s %255s %31s", point, type) != 2 || strchr(point, '\\'))
			continue;
		if (!strcmp(type, "tracefs") || !strcmp(type, "debugfs"))
			strcpy(dir[n++], point);
	}
	fclose(f);
	return n;
}

void pp_tracing_mounts_note(void)
{
	pp_mounts.nr = tracing_mounts(pp_mounts.dir);
	pp_mounts.noted = pp_mounts.nr >= 0;
}

void pp_tracing_mounts_undo(void)
{
	char now[PP_MOUNTS_MAX][256];
	int n, i, j;

	if (!pp_mounts.noted)
		return;
	pp_mounts.noted = false;
	n = tracing_mounts(now);
	/* newest first: tracefs automounted inside a debugfs made here */
	for (i = n - 1; i >= 0; i--) {
		for (j = 0; j < pp_mounts.nr; j++)
			if (!strcmp(now[i], pp_mounts.dir[j]))
				break;
		if (j == pp_mounts.nr)
			umount2(now[i], MNT_DETACH);
	}
}

const char *const pp_capture_events[] = {
	"powerpin/",
	"sched/sched_switch",
	"sched/sched_process_fork",
	"sched/sched_process_exit",
	/* clone_flags: a new thread or a new process (thread groups) */
	"task/task_newtask",
	/* the frequency each CPU runs at, where the kernel has the event */
	"power/cpu_frequency",
	/* ftrace/print (trace_marker) cannot be switched: it is always on */
	NULL,
};

/* Every event a capture enabled, one by one, and whether it was on before. */
struct pp_events_saved {
	const char *tgid_option;	/* options/<this> recording tgids, NULL none */
	bool tgid_was_on;
	int n, cap;
	struct {
		char *system;
		char *event;
		bool was_enabled;
	} *ev;
};

struct pp_capture {
	struct output_file out;	/* where the capture goes (output.h) */
	char *data;		/* the trace.dat libtracecmd writes */
	bool data_is_ours;	/* data is to be copied into a stream, then removed */
	char *spill;		/* prefix of the per-CPU files */
	int ncpus;
	struct tracecmd_output *handle;
	struct tracefs_cpu **tcpu;
	int *fd;
	char **files;
	uint64_t *lost0;	/* per-CPU overrun + dropped at the start */
	uint64_t bytes;
	struct timespec t0;
	int error;		/* first write error (errno), sticky */
	char *error_file;	/* where it happened */
	char *trace_clock;	/* the trace_clock file as the capture started */
	char clock_name[16];	/* the trace clock's name, "" unknown */
	char *clock_lines;	/* "powerpin: clock=..." lines (docs/capture-format.md) */
	size_t clock_len;
	uint64_t boot0_ns;	/* CLOCK_BOOTTIME of the first pair ... */
	uint64_t pair_ns;	/* ... and of the last */
	char *tasks0;		/* "PID TGID" lines of the tasks alive at the start */
};

__attribute__((format(printf, 3, 4)))
static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

static int split_event(const char *spec, char **system, char **event)
{
	const char *slash = strchr(spec, '/');

	*system = strndup(spec, slash - spec);
	*event = slash[1] ? strdup(slash + 1) : NULL;
	return *system ? 0 : -1;
}

/*
 * Note the state of one event and enable it.  Returns 0, 1 if the event
 * does not exist, -1 with errno if it cannot be enabled.
 */
static int enable_one(struct pp_events_saved *s, const char *system,
		      const char *event)
{
	enum tracefs_enable_state st;

	st = tracefs_event_is_enabled(pp_inst, system, event);
	if (st == TRACEFS_ERROR)
		return 1;
	if (s->n == s->cap) {
		int cap = s->cap ? s->cap * 2 : 8;
		void *ev = realloc(s->ev, cap * sizeof(*s->ev));

		if (!ev)
			return -1;
		s->ev = ev;
		s->cap = cap;
	}
	s->ev[s->n].system = strdup(system);
	s->ev[s->n].event = strdup(event);
	if (!s->ev[s->n].system || !s->ev[s->n].event) {
		free(s->ev[s->n].system);
		free(s->ev[s->n].event);
		errno = ENOMEM;
		return -1;
	}
	s->ev[s->n].was_enabled = st == TRACEFS_ALL_ENABLED;
	s->n++;
	if (tracefs_event_enable(pp_inst, system, event)) {
		if (!errno)
			errno = EACCES;
		return -1;
	}
	return 0;
}

/*
 * Have the kernel note each task's thread group as it switches, for the
 * saved_tgids table the capture stores: options/record-tgid (4.13+), or
 * print-tgid as Android's older kernels call it.  Without either, a
 * capture's threads have no known group.
 */
static void enable_tgids(struct pp_events_saved *s)
{
	static const char *const names[] = { "options/record-tgid", "options/print-tgid" };
	char *was;
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		was = tracefs_instance_file_read(NULL, names[i], NULL);
		if (!was)
			continue;
		s->tgid_was_on = was[0] == '1';
		free(was);
		if (!s->tgid_was_on && tracefs_instance_file_write(NULL, names[i], "1") < 0)
			return;
		s->tgid_option = names[i];
		return;
	}
}

struct pp_events_saved *pp_events_enable(bool *missing_powerpin)
{
	struct pp_events_saved *s = calloc(1, sizeof(*s));
	const char *const *spec;
	int i, ret, e;

	if (!s)
		return NULL;
	*missing_powerpin = false;
	if (!tracefs_tracing_dir()) {
		free(s);
		errno = ENOENT;
		return NULL;
	}
	for (spec = pp_capture_events; *spec; spec++) {
		char *system, *event, **events = NULL;

		if (split_event(*spec, &system, &event))
			goto fail;
		/* a whole system goes event by event, each put back on its own */
		if (!event) {
			events = tracefs_system_events(NULL, system);
			if (!events && !strcmp(system, "powerpin"))
				*missing_powerpin = true;
			for (i = 0, ret = 0; events && events[i] && ret >= 0; i++)
				ret = enable_one(s, system, events[i]);
			tracefs_list_free(events);
		} else {
			ret = enable_one(s, system, event);
		}
		free(system);
		free(event);
		if (ret < 0)
			goto fail;
	}
	enable_tgids(s);
	return s;
fail:
	e = errno ? errno : ENOMEM;
	pp_events_restore(s);
	errno = e;
	return NULL;
}

void pp_events_restore(struct pp_events_saved *s)
{
	int i;

	if (!s)
		return;
	if (s->tgid_option && !s->tgid_was_on)
		tracefs_instance_file_write(NULL, s->tgid_option, "0");
	for (i = 0; i < s->n; i++) {
		/* a module unloaded since then took its events with it */
		if (!s->ev[i].was_enabled)
			tracefs_event_disable(pp_inst, s->ev[i].system, s->ev[i].event);
		free(s->ev[i].system);
		free(s->ev[i].event);
	}
	free(s->ev);
	free(s);
}

int pp_trace_clear(void)
{
	return tracefs_instance_file_write(pp_inst, "trace", "") < 0 ? -1 : 0;
}

/* overrun + dropped events of one CPU; the stats text into *text if asked */
static uint64_t cpu_lost(int cpu, char **text)
{
	char file[64], *buf, *p;
	uint64_t lost = 0;

	snprintf(file, sizeof(file), "per_cpu/cpu%d/stats", cpu);
	buf = tracefs_instance_file_read(pp_inst, file, NULL);
	if (!buf)
		return 0;
	p = strstr(buf, "overrun:");
	if (p)
		lost += strtoull(p + 8, NULL, 10);
	p = strstr(buf, "dropped events:");
	if (p)
		lost += strtoull(p + 15, NULL, 10);
	if (text)
		*text = buf;
	else
		free(buf);
	return lost;
}

static uint64_t now_ns(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1000000000ULL + t.tv_nsec - t0->tv_nsec;
}

static uint64_t clock_ns(clockid_t id)
{
	struct timespec t;

	clock_gettime(id, &t);
	return (uint64_t)t.tv_sec * 1000000000ULL + t.tv_nsec;
}

/*
 * One reading of the trace clock paired with CLOCK_BOOTTIME and
 * CLOCK_REALTIME, so a reader can put the capture's timestamps beside
 * other traces of the same boot (Perfetto's ftrace data source pairs its
 * clocks the same way), appended to the capture's clock lines.  The trace
 * clock is read as per_cpu/cpu0/stats prints it ("now ts:",
 * microseconds), between two readings of the others.
 */
static void capture_pair(struct pp_capture *c)
{
	uint64_t b0, b1, w0, w1, sec, usec;
	char line[192], *stats, *p, *more;
	int n;

	b0 = clock_ns(CLOCK_BOOTTIME);
	w0 = clock_ns(CLOCK_REALTIME);
	stats = tracefs_instance_file_read(pp_inst, "per_cpu/cpu0/stats", NULL);
	w1 = clock_ns(CLOCK_REALTIME);
	b1 = clock_ns(CLOCK_BOOTTIME);
	c->pair_ns = b0 + (b1 - b0) / 2;
	p = stats ? strstr(stats, "now ts:") : NULL;
	if (!p || sscanf(p, "now ts: %" SCNu64 ".%6" SCNu64, &sec, &usec) != 2) {
		free(stats);
		return;
	}
	free(stats);
	n = snprintf(line, sizeof(line),
		     "powerpin: clock=%s trace_ns=%" PRIu64 " boottime_ns=%" PRIu64
		     " realtime_ns=%" PRIu64 "\n", c->clock_name,
		     (uint64_t)(sec * 1000000000ULL + usec * 1000), c->pair_ns,
		     w0 + (w1 - w0) / 2);
	if (n <= 0 || (size_t)n >= sizeof(line))
		return;
	more = realloc(c->clock_lines, c->clock_len + n + 1);
	if (!more)
		return;
	memcpy(more + c->clock_len, line, n + 1);
	c->clock_lines = more;
	c->clock_len += n;
}

/* The trace clock's name and its first pair, as the capture starts. */
static void capture_clock(struct pp_capture *c)
{
	char *p, *q;

	c->trace_clock = tracefs_instance_file_read(pp_inst, "trace_clock", NULL);
	p = c->trace_clock ? strchr(c->trace_clock, '[') : NULL;
	q = p ? strchr(p, ']') : NULL;
	if (!q || q - p - 1 <= 0 || q - p - 1 >= (long)sizeof(c->clock_name))
		return;
	memcpy(c->clock_name, p + 1, q - p - 1);
	c->clock_name[q - p - 1] = '\0';
	capture_pair(c);
	c->boot0_ns = c->pair_ns;
}

/*
 * Another pair during the capture, a second after the last one at first
 * and then every 1/256 of the time so far: drift or a suspend between the
 * trace clock and boottime is followed, and a day's capture keeps about
 * two thousand pairs (logarithmic in its length).
 */
static void capture_pair_tick(struct pp_capture *c)
{
	uint64_t now, every;

	if (!c->clock_name[0] || !c->boot0_ns)
		return;
	now = clock_ns(CLOCK_BOOTTIME);
	every = (now - c->boot0_ns) / 256;
	if (every < 1000000000ULL)
		every = 1000000000ULL;
	if (now - c->pair_ns >= every)
		capture_pair(c);
}

static void capture_free(struct pp_capture *c)
{
	int i;

	for (i = 0; i < c->ncpus; i++) {
		if (c->tcpu && c->tcpu[i])
			tracefs_cpu_close(c->tcpu[i]);
		if (c->fd && c->fd[i] >= 0)
			close(c->fd[i]);
		if (c->files && c->files[i]) {
			output_temp_remove(c->files[i]);
			free(c->files[i]);
		}
	}
	if (c->handle)
		tracecmd_output_close(c->handle);
	if (c->data && c->data_is_ours)
		output_temp_remove(c->data);
	if (c->out.fp)
		output_abort(&c->out);
	free(c->clock_lines);
	free(c->tcpu);
	free(c->fd);
	free(c->files);
	free(c->lost0);
	free(c->data);
	free(c->spill);
	free(c->error_file);
	free(c->trace_clock);
	free(c->tasks0);
	free(c);
}

/*
 * Where the capture's own files go.  A file (a symlink's target) is written
 * beside itself and renamed into place; a stream (standard output, a FIFO,
 * a device) gets a trace.dat built in pp_tmp_dir() and copied into it at the
 * end, since libtracecmd seeks back into what it wrote.
 */
static int capture_files(struct pp_capture *c)
{
	const char *dir = pp_tmp_dir();
	int fd;

	if (c->out.kind == OUTPUT_REPLACE) {
		c->data = strdup(c->out.tmp);
		c->spill = strdup(c->out.target);
		return c->data && c->spill ? 0 : -1;
	}
	if (asprintf(&c->spill, "%s/powerpin-record", dir) < 0) {
		c->spill = NULL;
		return -1;
	}
	if (asprintf(&c->data, "%s.tmp.XXXXXX", c->spill) < 0) {
		c->data = NULL;
		return -1;
	}
	fd = output_temp_create(c->data);
	if (fd < 0) {
		free(c->data);
		c->data = NULL;
		return -1;
	}
	close(fd);
	c->data_is_ours = true;
	return 0;
}

/* CPU @i's spill file and ring buffer, and its lost count now; 0 or -1 (said in @err). */
static int capture_open_cpu(struct pp_capture *c, int i, char *err, size_t errlen)
{
	if (asprintf(&c->files[i], "%s.cpu%d.XXXXXX", c->spill, i) < 0) {
		c->files[i] = NULL;
		set_err(err, errlen, "out of memory");
		return -1;
	}
	/* removed by SIGHUP or SIGPIPE too (output.h) */
	c->fd[i] = output_temp_create(c->files[i]);
	if (c->fd[i] < 0) {
		set_err(err, errlen, "cannot create %s: %s", c->files[i], strerror(errno));
		free(c->files[i]);
		c->files[i] = NULL;	/* nothing to remove */
		return -1;
	}
	c->tcpu[i] = tracefs_cpu_open(pp_inst, i, true);
	if (!c->tcpu[i]) {
		set_err(err, errlen, "cannot open the ring buffer of CPU %d: %s", i,
			strerror(errno));
		return -1;
	}
	c->lost0[i] = cpu_lost(i, NULL);
	return 0;
}

static char *proc_tasks(void);

struct pp_capture *pp_capture_start(const char *path, const char *compression,
				    char *err, size_t errlen)
{
	struct pp_capture *c = calloc(1, sizeof(*c));
	int i, e;

	if (!c)
		return NULL;
	clock_gettime(CLOCK_MONOTONIC, &c->t0);
	c->tasks0 = proc_tasks();
	c->ncpus = sysconf(_SC_NPROCESSORS_CONF);
	c->tcpu = calloc(c->ncpus, sizeof(*c->tcpu));
	c->fd = calloc(c->ncpus, sizeof(*c->fd));
	c->files = calloc(c->ncpus, sizeof(*c->files));
	c->lost0 = calloc(c->ncpus, sizeof(*c->lost0));
	if (!c->tcpu || !c->fd || !c->files || !c->lost0) {
		set_err(err, errlen, "out of memory");
		goto err;
	}
	for (i = 0; i < c->ncpus; i++)
		c->fd[i] = -1;

	if (output_open(&c->out, path)) {
		set_err(err, errlen, "cannot write %s: %s", path, strerror(errno));
		goto err;
	}
	if (capture_files(c)) {
		set_err(err, errlen, "cannot create a temporary file for %s: %s", path,
			strerror(errno));
		goto err;
	}
	for (i = 0; i < c->ncpus; i++)
		if (capture_open_cpu(c, i, err, errlen))
			goto err;

	capture_clock(c);
	/* formats now, while every event (powerpin's too) is registered */
	c->handle = tracecmd_output_create(c->data);
	if (c->handle)
		tracecmd_set_quiet(c->handle, true);
	/* before the headers: they are compressed too (file version 7) */
	if (c->handle && compression &&
	    tracecmd_output_set_compression(c->handle, compression)) {
		set_err(err, errlen, "compression '%s' is not available in libtracecmd",
			compression);
		errno = EINVAL;
		goto err;
	}
	if (!c->handle || tracecmd_output_write_headers(c->handle, NULL)) {
		set_err(err, errlen, "cannot write trace.dat headers to %s",
			c->data);
		goto err;
	}
	return c;
err:
	e = errno ? errno : EIO;
	capture_free(c);
	errno = e;
	return NULL;
}

/*
 * Note the first write error of a capture.  Once there is one, the capture
 * is lost: nothing more is read, and pp_capture_finish() fails with it.
 */
static void capture_error(struct pp_capture *c, int cpu, int e)
{
	if (c->error)
		return;
	c->error = e ? e : EIO;
	c->error_file = strdup(c->files[cpu]);
}

/*
 * Move what CPU @cpu has into its file: tracefs_cpu_write() answers with
 * bytes moved, 0 or EAGAIN when there is nothing (more) to read; anything
 * else is an error of the write side (ENOSPC, EIO, ...).
 */
static int drain_cpu(struct pp_capture *c, int cpu, bool flush)
{
	int n;

	for (;;) {
		errno = 0;
		n = flush ? tracefs_cpu_flush_write(c->tcpu[cpu], c->fd[cpu]) :
			    tracefs_cpu_write(c->tcpu[cpu], c->fd[cpu], true);
		if (n > 0) {
			c->bytes += n;
			continue;
		}
		if (n == 0 || errno == EAGAIN || errno == EWOULDBLOCK ||
		    errno == EINTR)
			return 0;
		capture_error(c, cpu, errno);
		return -1;
	}
}

long pp_capture_drain(struct pp_capture *c)
{
	uint64_t before = c->bytes;
	int i;

	if (c->error) {
		errno = c->error;
		return -1;
	}
	for (i = 0; i < c->ncpus; i++) {
		if (drain_cpu(c, i, false)) {
			errno = c->error;
			return -1;
		}
	}
	capture_pair_tick(c);
	return c->bytes - before;
}

uint64_t pp_capture_lost(struct pp_capture *c)
{
	uint64_t lost = 0;
	int i;

	for (i = 0; i < c->ncpus; i++) {
		uint64_t now = cpu_lost(i, NULL);

		if (now > c->lost0[i])
			lost += now - c->lost0[i];
	}
	return lost;
}

uint64_t pp_capture_bytes(const struct pp_capture *c)
{
	return c->bytes;
}

void pp_capture_abort(struct pp_capture *c)
{
	if (c)
		capture_free(c);
}

/* Copy the finished trace.dat @path into the stream @out. */
static int copy_into(const char *path, FILE *out)
{
	char buf[65536];
	size_t n;
	FILE *in = fopen(path, "re");
	int e;

	if (!in)
		return -1;
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		if (fwrite(buf, 1, n, out) != n)
			break;
	e = ferror(in) || ferror(out) ? (errno ? errno : EIO) : 0;
	fclose(in);
	errno = e;
	return e ? -1 : 0;
}

/*
 * The finished trace.dat into place: renamed over the target file, or
 * copied into the stream.
 */
static int capture_deliver(struct pp_capture *c, char *err, size_t errlen)
{
	const char *name = c->out.name;
	int ret;

	if (c->data_is_ours && copy_into(c->data, c->out.fp)) {
		set_err(err, errlen, "cannot write %s: %s", name, strerror(errno));
		return -1;
	}
	/* the name is gone with the commit; keep it for the message */
	name = strdup(name);
	ret = output_commit(&c->out);
	if (ret)
		set_err(err, errlen, "cannot write %s: %s", name ? name : "the capture",
			strerror(errno));
	free((char *)name);
	return ret;
}

/* @tgid's threads as "TID TGID" lines into @f (/proc/TGID/task). */
static void proc_threads(FILE *f, const char *tgid)
{
	char dir[sizeof("/proc//task") + sizeof(((struct dirent *)0)->d_name)];
	struct dirent *d;
	DIR *t;

	snprintf(dir, sizeof(dir), "/proc/%s/task", tgid);
	t = opendir(dir);
	while (t && (d = readdir(t)))
		if (d->d_name[0] >= '1' && d->d_name[0] <= '9')
			fprintf(f, "%s %s\n", d->d_name, tgid);
	if (t)
		closedir(t);
}

/*
 * Every task alive now as "PID TGID" lines (malloc'd, NULL when /proc
 * cannot be read), as perf record synthesizes the threads that exist:
 * kernels without record-tgid (before 4.13, 3.10 among them) keep no
 * saved_tgids, and a thread made during the capture gets its group from
 * its creator's (task_newtask), which this names.
 */
static char *proc_tasks(void)
{
	char *text = NULL;
	struct dirent *d;
	size_t len = 0;
	DIR *proc;
	FILE *f;

	proc = opendir("/proc");
	if (!proc)
		return NULL;
	f = open_memstream(&text, &len);
	while (f && (d = readdir(proc)))
		if (d->d_name[0] >= '1' && d->d_name[0] <= '9')
			proc_threads(f, d->d_name);
	closedir(proc);
	if (!f || fclose(f)) {
		free(text);
		return NULL;
	}
	return text;
}

/* "PID TGID" lines of @tab as "powerpin: tgids=" pairs into @f; the count so far. */
static int tgid_pairs(FILE *f, const char *tab, int n)
{
	const char *p, *end;
	int pid, tgid;

	for (p = tab; p && *p; p = end) {
		end = strchr(p, '\n');
		end = end ? end + 1 : p + strlen(p);
		if (sscanf(p, "%d %d", &pid, &tgid) != 2 || pid <= 0 || tgid <= 0)
			continue;
		fprintf(f, "%s%d:%d", n % 16 ? " " : n ? "\npowerpin: tgids=" : "powerpin: tgids=",
			pid, tgid);
		n++;
	}
	return n;
}

/*
 * The thread groups as CPUSTAT text that trace-cmd shows and powerpin
 * report reads: "powerpin: tgids=PID:TGID ..." lines of up to 16 pairs
 * (docs/capture-format.md).  The tasks alive at the start and at the end
 * (/proc), then the kernel's saved_tgids, which the reader takes last, so
 * they win.  Nothing when none of them says anything.
 */
static void add_saved_tgids(struct pp_capture *c)
{
	char *tab = tracefs_instance_file_read(NULL, "saved_tgids", NULL);
	char *now = proc_tasks(), *text = NULL;
	size_t len = 0;
	FILE *f;
	int n = 0;

	f = open_memstream(&text, &len);
	if (f) {
		n = tgid_pairs(f, c->tasks0, n);
		n = tgid_pairs(f, now, n);
		n = tgid_pairs(f, tab, n);
	}
	if (f && !fclose(f) && n)
		tracecmd_add_option(c->handle, PP_TRACECMD_OPTION_CPUSTAT, len + 1, text);
	free(text);
	free(now);
	free(tab);
}

/*
 * The kernel the capture was made on, as `trace-cmd record` stores it (its
 * UNAME option: "SYSNAME NODENAME RELEASE MACHINE"): the release tells a
 * reader how the kernel laid out sched_switch's prev_state bits.  Nothing
 * when uname() fails.
 */
static void add_uname(struct pp_capture *c)
{
	struct utsname u;
	char text[4 * sizeof(u.release)];
	int n;

	if (uname(&u))
		return;
	n = snprintf(text, sizeof(text), "%s %s %s %s", u.sysname, u.nodename, u.release,
		     u.machine);
	if (n > 0 && (size_t)n < sizeof(text))
		tracecmd_add_option(c->handle, PP_TRACECMD_OPTION_UNAME, n + 1, text);
}

int pp_capture_finish(struct pp_capture *c, int64_t samples,
		      struct pp_capture_stats *st, char *err, size_t errlen)
{
	uint64_t lost = 0;
	char line[256];
	int i;

	pp_capture_drain(c);
	for (i = 0; i < c->ncpus && !c->error; i++)
		drain_cpu(c, i, true);
	if (c->error) {
		set_err(err, errlen, "cannot write %s: %s; capture %s not written",
			c->error_file ? c->error_file : c->data,
			strerror(c->error), c->out.name);
		errno = c->error;
		goto err;
	}
	for (i = 0; i < c->ncpus; i++) {
		char *text = NULL;
		uint64_t now;

		now = cpu_lost(i, &text);
		if (now > c->lost0[i])
			lost += now - c->lost0[i];
		if (text) {
			tracecmd_add_option(c->handle, PP_TRACECMD_OPTION_CPUSTAT,
					    strlen(text) + 1, text);
			free(text);
		}
		if (fsync(c->fd[i]) || close(c->fd[i])) {
			c->fd[i] = -1;
			set_err(err, errlen, "cannot write %s: %s", c->files[i],
				strerror(errno));
			goto err;
		}
		c->fd[i] = -1;
	}
	memset(st, 0, sizeof(*st));
	st->bytes = c->bytes;
	st->lost_events = lost;
	st->duration_ns = now_ns(&c->t0);
	st->samples = samples;
	snprintf(line, sizeof(line),
		 "powerpin: lost_events=%llu pages=%llu bytes=%llu duration_ns=%llu samples=%lld\n",
		 (unsigned long long)lost,
		 (unsigned long long)(c->bytes / getpagesize()),
		 (unsigned long long)c->bytes,
		 (unsigned long long)st->duration_ns, (long long)samples);
	tracecmd_add_option(c->handle, PP_TRACECMD_OPTION_CPUSTAT,
			    strlen(line) + 1, line);
	if (c->clock_lines) {
		capture_pair(c);	/* the last one as the capture ends */
		tracecmd_add_option(c->handle, PP_TRACECMD_OPTION_CPUSTAT,
				    c->clock_len + 1, c->clock_lines);
	}
	add_saved_tgids(c);
	add_uname(c);
	/* as trace-cmd record stores it: readers then know the clock */
	if (c->trace_clock)
		tracecmd_add_option(c->handle, PP_TRACECMD_OPTION_TRACECLOCK,
				    strlen(c->trace_clock) + 1, c->trace_clock);

	if (tracecmd_write_cmdlines(c->handle) ||
	    tracecmd_append_cpu_data(c->handle, c->ncpus, c->files)) {
		set_err(err, errlen, "cannot append the ring-buffer data to %s",
			c->data);
		goto err;
	}
	tracecmd_output_close(c->handle);
	c->handle = NULL;
	if (capture_deliver(c, err, errlen))
		goto err;
	capture_free(c);
	return 0;
err:
	capture_free(c);
	return -1;
}

static bool is_stale_temp(const char *name)
{
	return !fnmatch("*.tmp.??????", name, 0) ||
	       !fnmatch("*.cpu[0-9]*.??????", name, 0);
}

static void clean_one(const char *dir, int depth)
{
	struct dirent *d;
	DIR *dp = opendir(dir);

	if (!dp)
		return;
	while ((d = readdir(dp))) {
		char *p;

		if (d->d_name[0] == '.' && (!d->d_name[1] ||
		    (d->d_name[1] == '.' && !d->d_name[2])))
			continue;
		if (asprintf(&p, "%s/%s", dir, d->d_name) < 0)
			continue;
		if (d->d_type == DT_DIR && depth > 0)
			clean_one(p, depth - 1);
		else if (d->d_type == DT_REG && is_stale_temp(d->d_name))
			unlink(p);
		free(p);
	}
	closedir(dp);
}

void pp_capture_clean_dir(const char *dir)
{
	clean_one(dir, 1);
}

int pp_capture_lock(void)
{
	char path[PATH_MAX];
	int fd;

	/*
	 * In a directory of its own, so that powerpind's unit can let the
	 * daemon write there (RuntimeDirectory=powerpin) and not in /run;
	 * made with its parents, as on a phone nothing is there.
	 */
	if (pp_mkdirs(pp_run_dir(), 0755))
		return -1;
	snprintf(path, sizeof(path), "%s/" PP_CAPTURE_LOCK_NAME, pp_run_dir());
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

void pp_capture_unlock(int fd)
{
	if (fd >= 0)
		close(fd);
}
