// SPDX-License-Identifier: GPL-2.0
/*
 * The report's second pass: the outputs that go sample by sample (samples
 * CSV, HTML page, Chrome JSON trace events, Perfetto trace), written once
 * the first pass has fixed the sign convention and named the processes.
 *
 * A second report (the "live" one) is fed the same events as they are
 * read, so the writers see energy, attribution and slice energies as they
 * stand at each point of the capture, computed by the very code that made
 * the first pass's totals.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <linux/powerpin.h>

#include "report.h"
#include "report_filter.h"
#include "base/base.h"

#define CHROME_BATTERY_PID	0x7ffffffe
/*
 * Chrome JSON has no "no process": threads whose group the input does not
 * say go under this one, named as the text and JSON say it ("tgid
 * unknown"), rather than each passing for a process of its own pid.
 */
#define CHROME_UNKNOWN_TGID_PID	0x7ffffffd

struct samples_pass {
	const struct report *r;
	const struct report_outputs *o;
	struct report live;
	struct pf_writer *pf;
	struct html_writer *html;
	bool chrome_first;
	int write_errno;		/* of the first output write that failed */
};

/* ---- samples CSV ------------------------------------------------------ */

static void csv_header(FILE *csv)
{
	fputs("time_s,voltage_v,current_a,power_w,charge_uah,seq,flags,capture_start_s\n", csv);
}

/* time_s from the capture's first sample; capture_start_s is its trace time */
static void csv_row(const struct report *r, FILE *csv, const struct trace_event *ev)
{
	double p = (double)ev->power.voltage_uv * (double)ev->power.current_ua * 1e-6;
	int64_t rel = (int64_t)(ev->ts_ns - r->first_ns);
	uint64_t abs_rel = rel < 0 ? -(uint64_t)rel : (uint64_t)rel;

	fprintf(csv, "%s%" PRIu64 ".%09" PRIu64 ",%.6f,%.6f,%.6f,", rel < 0 ? "-" : "",
		abs_rel / 1000000000, abs_rel % 1000000000, ev->power.voltage_uv * 1e-6,
		report_current_a(r, ev->power.current_ua), report_power_w(r, p));
	if (ev->power.has & TRACE_POWER_HAS_CHARGE)
		fprintf(csv, "%" PRId64, ev->power.charge_uah);
	fputc(',', csv);
	if (ev->power.has & TRACE_POWER_HAS_SEQ)
		fprintf(csv, "%" PRIu32, ev->power.seq);
	fprintf(csv, ",%" PRIu32 ",%" PRIu64 ".%09" PRIu64 "\n", ev->power.flags,
		r->first_ns / 1000000000, r->first_ns % 1000000000);
}

/* ---- Chrome JSON trace events ----------------------------------------- */

static void chrome_sep(struct samples_pass *p)
{
	fputs(p->chrome_first ? "\n" : ",\n", p->o->chrome_json);
	p->chrome_first = false;
}

static int tgid_of(const struct report *r, int pid)
{
	const struct report_task *t = report_find_task(r, pid);

	return t && t->tgid > 0 ? t->tgid : CHROME_UNKNOWN_TGID_PID;
}

static void chrome_header(struct samples_pass *p)
{
	const struct report *r = p->r;
	FILE *out = p->o->chrome_json;
	uint32_t i;

	fputs("{\"displayTimeUnit\":\"ms\",\"traceEvents\":[", out);
	chrome_sep(p);
	fprintf(out, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%d,\"args\":{\"name\":\"battery (powerpin)\"}}",
		CHROME_BATTERY_PID);
	chrome_sep(p);
	fprintf(out, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%d,\"args\":{\"name\":\"tgid unknown (threads whose process the capture does not say)\"}}",
		CHROME_UNKNOWN_TGID_PID);
	for (i = 0; i < r->nr_tasks; i++) {
		const struct report_task *t = &r->tasks[i];

		if (!t->comm[0])
			continue;
		chrome_sep(p);
		fprintf(out, "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"args\":{\"name\":",
			t->tgid > 0 ? t->tgid : CHROME_UNKNOWN_TGID_PID, t->pid);
		json_string(out, t->comm, sizeof(t->comm));
		fputs("}}", out);
	}
}

static void chrome_mark(struct samples_pass *p, const struct trace_event *ev)
{
	const char *s = ev->mark.text, *end = s + ev->mark.len, *name;
	int tgid = tgid_of(p->r, ev->pid);
	FILE *out = p->o->chrome_json;
	long long value;
	size_t len;

	if (ev->mark.len >= 2 && s[0] == 'B' && s[1] == '|') {
		name = memchr(s + 2, '|', end - s - 2);
		if (!name)
			return;
		name++;
		chrome_sep(p);
		fputs("{\"name\":", out);
		json_string(out, name, end - name);
		fprintf(out, ",\"ph\":\"B\",\"ts\":%.3f,\"pid\":%d,\"tid\":%d}", ev->ts_ns / 1e3,
			tgid, ev->pid);
	} else if (ev->mark.len >= 1 && s[0] == 'E' && (ev->mark.len == 1 || s[1] == '|')) {
		chrome_sep(p);
		fprintf(out, "{\"ph\":\"E\",\"ts\":%.3f,\"pid\":%d,\"tid\":%d}", ev->ts_ns / 1e3,
			tgid, ev->pid);
	} else if (ev->mark.len >= 2 && s[0] == 'C' && s[1] == '|') {
		if (report_counter_mark(s, end, &name, &len, &value))
			return;
		chrome_sep(p);
		fputs("{\"name\":", out);
		json_string(out, name, len);
		fprintf(out, ",\"ph\":\"C\",\"ts\":%.3f,\"pid\":%d,", ev->ts_ns / 1e3, tgid);
		/* in the unknown group, each thread's counters apart: by id */
		if (tgid == CHROME_UNKNOWN_TGID_PID)
			fprintf(out, "\"id\":\"%d\",", ev->pid);
		fprintf(out, "\"args\":{\"value\":%lld}}", value);
	} else if (ev->mark.len > 9 && !strncmp(s, "powerpin:", 9)) {
		chrome_sep(p);
		fputs("{\"name\":", out);
		json_string(out, s + 9, ev->mark.len - 9);
		fprintf(out, ",\"ph\":\"i\",\"s\":\"g\",\"ts\":%.3f,\"pid\":%d,\"tid\":%d}",
			ev->ts_ns / 1e3, CHROME_BATTERY_PID, CHROME_BATTERY_PID);
	}
}

/*
 * One counter event per sample, named "battery": Perfetto's JSON importer
 * names a counter track "<name> <arg>", so these become "battery voltage V"
 * and so on.  The powerpin:powerpin_counter events that repeat the battery fields
 * (raw sign, micro-units) are left out.
 */
static void chrome_event(struct samples_pass *p, const struct trace_event *ev)
{
	const struct report *r = p->r;
	FILE *out = p->o->chrome_json;
	double pw;

	switch (ev->kind) {
	case TRACE_EV_POWER:
		if (ev->power.flags & (POWERPIN_SAMPLE_READ_ERROR | POWERPIN_SAMPLE_AGAIN))
			break;
		pw = (double)ev->power.voltage_uv * (double)ev->power.current_ua * 1e-6;
		chrome_sep(p);
		fprintf(out, "{\"name\":\"battery\",\"ph\":\"C\",\"ts\":%.3f,\"pid\":%d,\"args\":{\"voltage V\":%.9g,\"current A (discharge +)\":%.9g,\"power W (discharge +)\":%.9g}}",
			ev->ts_ns / 1e3, CHROME_BATTERY_PID, ev->power.voltage_uv * 1e-6,
			report_current_a(r, ev->power.current_ua) + 0.0, report_power_w(r, pw) + 0.0);
		break;
	case TRACE_EV_MARK:
		chrome_mark(p, ev);
		break;
	case TRACE_EV_COUNTER:
		if (report_battery_counter(ev->counter.track))
			break;
		chrome_sep(p);
		fputs("{\"name\":", out);
		json_string(out, ev->counter.track, SIZE_MAX);
		fprintf(out, ",\"ph\":\"C\",\"ts\":%.3f,\"pid\":%d,\"args\":{\"value\":%" PRId64 "}}",
			ev->ts_ns / 1e3, CHROME_BATTERY_PID, ev->counter.value);
		break;
	default:
		break;
	}
}

/* ---- the pass --------------------------------------------------------- */

static int samples_event(const struct trace_event *ev, void *arg)
{
	struct samples_pass *p = arg;

	report_event(ev, &p->live);
	/*
	 * A --from/--to window's edge is not a sample (its values are its
	 * neighbour's): priced in the live report, written by none of the
	 * per-sample outputs, which hold the samples read
	 */
	if (ev->kind == TRACE_EV_POWER && (ev->power.has & TRACE_POWER_WINDOW_EDGE))
		return 0;
	/* the model's power and energy as far as here, for the HTML and Perfetto writers */
	if (p->live.model_run && report_model_event(p->live.model_run, ev))
		return 4;
	if (p->o->csv && ev->kind == TRACE_EV_POWER)
		csv_row(p->r, p->o->csv, ev);
	if (p->o->chrome_json)
		chrome_event(p, ev);
	if (p->html)
		html_event(p->html, &p->live, ev);
	/* positive: stop reading, the Perfetto writer failed (errno says why) */
	if (p->pf && pf_event(p->pf, &p->live, ev))
		return 2;
	/* an output that cannot be written: stop, with the reason of its write */
	if ((p->o->csv && ferror(p->o->csv)) || (p->o->chrome_json && ferror(p->o->chrome_json)) ||
	    (p->o->perfetto && ferror(p->o->perfetto)) || (p->o->html && ferror(p->o->html))) {
		p->write_errno = errno ? errno : EIO;
		return 3;
	}
	return 0;
}

static void samples_cpus(int nr_cpus, void *arg)
{
	report_cpus(nr_cpus, &((struct samples_pass *)arg)->live);
}

static void samples_comm(int pid, const char *comm, void *arg)
{
	report_comm(pid, comm, &((struct samples_pass *)arg)->live);
}

static void samples_clock(const struct trace_clock_info *ci, void *arg)
{
	struct samples_pass *p = arg;

	if (p->pf)
		pf_clock(p->pf, ci);
}

static void samples_kernel(const struct trace_kernel_info *k, void *arg)
{
	struct samples_pass *p = arg;

	if (p->pf)
		pf_kernel(p->pf, k);
}

static void samples_slice_done(const struct report *live, const struct report_open_slice *o,
			       bool unterminated, void *arg)
{
	struct samples_pass *p = arg;

	if (p->pf)
		pf_slice_done(p->pf, o, live->slice_stats[o->stat].marker, unterminated);
	if (p->html)
		html_slice_done(p->html, live, o, live->slice_stats[o->stat].marker);
}

static int stream_error(FILE *f)
{
	return f && (fflush(f) || ferror(f));
}

/*
 * "writing the HTML report NAME: reason" for the first output that failed
 * (@e: the errno of its failed write, when known); false if none did.
 */
static bool write_failed(const struct report_outputs *o, int e, char *err, size_t errlen)
{
	const struct { FILE *f; const char *what, *name; } outs[] = {
		{ o->csv, "the samples CSV", o->csv_name },
		{ o->chrome_json, "the Chrome JSON trace", o->chrome_json_name },
		{ o->perfetto, "the Perfetto trace", o->perfetto_name },
		{ o->html, "the HTML report", o->html_name },
	};
	size_t k;

	errno = 0;
	for (k = 0; k < sizeof(outs) / sizeof(outs[0]); k++)
		if (stream_error(outs[k].f)) {
			if (!e)
				e = errno ? errno : EIO;
			snprintf(err, errlen, "writing %s%s%s: %s", outs[k].what,
				 outs[k].name ? " " : "", outs[k].name ? outs[k].name : "",
				 strerror(e));
			return true;
		}
	return false;
}

/* Events the Perfetto writer left out (CPUs >= 1024): one warning line. */
static void warn_dropped_cpus(const struct pf_writer *pf, const struct report_outputs *o)
{
	uint64_t n = pf_dropped_cpu_events(pf);

	if (n)
		fprintf(o->warnings ? o->warnings : stderr,
			"powerpin report: warning: %" PRIu64 " events on CPUs numbered 1024 or more left out of the Perfetto trace%s%s (Perfetto refuses a trace that has any)\n",
			n, o->perfetto_name ? " " : "", o->perfetto_name ? o->perfetto_name : "");
}

/* The live report's model run, the Perfetto and HTML writers; -1 when out of memory. */
static int writers_open(struct samples_pass *p, const char *path)
{
	const struct report_outputs *o = p->o;

	if (p->r->model && (o->perfetto || o->html)) {
		p->live.model_run = report_model_open(p->r, o->html != NULL);
		if (!p->live.model_run)
			return -1;
	}
	if (o->perfetto) {
		p->pf = pf_open(p->r, o->perfetto);
		if (!p->pf)
			return -1;
	}
	if (o->html) {
		p->html = html_open(p->r, o->title ? o->title : path, o->html);
		if (!p->html)
			return -1;
	}
	return 0;
}

int report_write_outputs(const struct report *r, const char *path,
			 const struct report_outputs *o, char *err, size_t errlen)
{
	static const struct trace_input_ops ops = {
		.event = samples_event,
		.cpus = samples_cpus,
		.comm = samples_comm,
		.clock = samples_clock,
		.kernel = samples_kernel,
	};
	struct report_options opt = r->opt;
	struct samples_pass p = { .r = r, .o = o, .chrome_first = true };
	char why[256];
	int ret = -1;

	opt.sign = r->sign < 0 ? REPORT_SIGN_DISCHARGE_NEGATIVE : REPORT_SIGN_DISCHARGE_POSITIVE;
	if (report_init(&p.live, &opt)) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	p.live.slice_done = samples_slice_done;
	p.live.slice_done_arg = &p;
	if (writers_open(&p, path)) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	if (o->csv)
		csv_header(o->csv);
	if (o->chrome_json)
		chrome_header(&p);
	ret = report_filter_read(path, &ops, &p, r->opt.filter, err, errlen);
	if (ret == 3 && write_failed(o, p.write_errno, err, errlen))
		ret = -1;
	if (ret == 4) {
		snprintf(err, errlen, "%s: out of memory while pricing it by the model", path);
		ret = -1;
	}
	if (ret > 0) {
		snprintf(err, errlen, "writing the Perfetto trace%s%s: %s",
			 o->perfetto_name ? " " : "", o->perfetto_name ? o->perfetto_name : "",
			 strerror(errno));
		ret = -1;
	}
	if (ret)
		goto out;
	ret = -1;
	/* close the slices still open, as the first pass did */
	if (report_finish(&p.live, why, sizeof(why))) {
		snprintf(err, errlen, "%s: %s", path, why);
		goto out;
	}
	if (p.pf && pf_close(p.pf, &p.live)) {
		snprintf(err, errlen, "writing the Perfetto trace%s%s: %s",
			 o->perfetto_name ? " " : "", o->perfetto_name ? o->perfetto_name : "",
			 strerror(errno));
		goto out;
	}
	warn_dropped_cpus(p.pf, o);
	if (p.html && html_close(p.html, &p.live)) {
		snprintf(err, errlen, "writing the HTML report%s%s: %s",
			 o->html_name ? " " : "", o->html_name ? o->html_name : "", strerror(errno));
		goto out;
	}
	if (o->chrome_json)
		fputs("\n]}\n", o->chrome_json);
	if (write_failed(o, 0, err, errlen))
		goto out;
	ret = 0;
out:
	pf_free(p.pf);
	html_free(p.html);
	report_free(&p.live);
	return ret;
}
