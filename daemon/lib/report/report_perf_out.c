// SPDX-License-Identifier: GPL-2.0
/* The report's energy-per-function table in text, JSON and HTML. */
#include <inttypes.h>
#include <string.h>

#include "report_perf.h"
#include "base/base.h"

static const char *base(const char *dso)
{
	const char *b = strrchr(dso, '/');

	return b ? b + 1 : dso;
}

void report_perf_write_text(const struct report_perf *rp, FILE *out)
{
	uint32_t i, n = rp->nr_fns < REPORT_PERF_TEXT_TOP ? rp->nr_fns : REPORT_PERF_TEXT_TOP;

	fprintf(out, "\nenergy by function (%" PRIu64 " perf %s samples, %.3f s CPU, %.4f J; %" PRIu64
		" outside the capture):\n", rp->used, rp->event, rp->cpu_s, rp->energy_j,
		rp->outside);
	fprintf(out, "  %10s  %10s  %5s  %8s  %s\n", "self J", "total J", "self%", "samples",
		"function");
	for (i = 0; i < n; i++) {
		const struct report_function *f = &rp->fns[rp->order[i]];

		const char *obj = base(f->dso);

		fprintf(out, "  %10.4f  %10.4f  %5.1f  %8" PRIu64 "  %s %s%s%s\n", f->self_j + 0.0,
			f->total_j + 0.0, rp->energy_j ? 100 * f->self_j / rp->energy_j : 0,
			f->samples, f->name, obj[0] == '[' ? "" : "[", obj, obj[0] == '[' ? "" : "]");
	}
	if (rp->nr_fns > n)
		fprintf(out, "  (%u more functions in --json)\n", rp->nr_fns - n);
}

void report_perf_write_json(const struct report_perf *rp, FILE *out)
{
	uint32_t i;

	fprintf(out, "  \"perf\": {\"event\": ");
	json_string(out, rp->event, SIZE_MAX);
	fprintf(out, ", \"samples\": %" PRIu64 ", \"samples_used\": %" PRIu64
		", \"samples_outside\": %" PRIu64 ", \"cpu_s\": %.9f, \"energy_j\": %.9g, \"jit_frames_named\": %" PRIu64 "},\n",
		rp->samples, rp->used, rp->outside, rp->cpu_s, rp->energy_j + 0.0, rp->jit_named);
	fputs("  \"functions\": [", out);
	for (i = 0; i < rp->nr_fns; i++) {
		const struct report_function *f = &rp->fns[rp->order[i]];

		fprintf(out, "%s\n    {\"name\": ", i ? "," : "");
		json_string(out, f->name, SIZE_MAX);
		fputs(", \"dso\": ", out);
		json_string(out, f->dso, SIZE_MAX);
		fprintf(out, ", \"self_j\": %.9g, \"total_j\": %.9g, \"self_samples\": %" PRIu64
			", \"samples\": %" PRIu64 "}", f->self_j + 0.0, f->total_j + 0.0,
			f->self_samples, f->samples);
	}
	fputs("\n  ],\n", out);
}

void report_perf_write_html(const struct report_perf *rp, FILE *out)
{
	uint32_t i, n = rp->nr_fns < 50 ? rp->nr_fns : 50;

	fprintf(out, "<h3>Energy by function</h3>\n<p>%" PRIu64 " perf %s samples, %.3f s CPU, %.4f J.</p>\n"
		"<table class=\"functions\"><tr><th>function</th><th>object</th><th>self J</th><th>total J</th><th>samples</th></tr>\n",
		rp->used, rp->event, rp->cpu_s, rp->energy_j);
	for (i = 0; i < n; i++) {
		const struct report_function *f = &rp->fns[rp->order[i]];

		fputs("<tr><td>", out);
		html_text(out, f->name);
		fputs("</td><td>", out);
		html_text(out, base(f->dso));
		fprintf(out, "</td><td>%.4f</td><td>%.4f</td><td>%" PRIu64 "</td></tr>\n",
			f->self_j + 0.0, f->total_j + 0.0, f->samples);
	}
	fputs("</table>\n", out);
}
