// SPDX-License-Identifier: GPL-2.0
/*
 * `perf script` text, line by line as `powerpin report --perf` reads it,
 * and each sample given its energy as the report gives it: a capture of
 * 4 W over [1 s, 2 s] on 2 CPUs, with a power step in the middle.
 */
#include <string.h>

#include "fuzz.h"
#include "trace/trace.h"
#include "report/report.h"

struct run {
	struct report_perf *rp;
	uint64_t samples;
};

static int on_sample(const struct perf_sample *s, void *arg)
{
	struct run *r = arg;
	uint32_t i;

	r->samples++;
	FUZZ_CHECK(s->comm && s->event && s->nr_frames <= PERF_SCRIPT_MAX_FRAMES);
	for (i = 0; i < s->nr_frames; i++)
		FUZZ_CHECK(s->frames[i].sym && s->frames[i].sym[0] && s->frames[i].dso);
	return report_perf_sample(s, r->rp);
}

static void power_points(struct report_perf *rp)
{
	static uint64_t t[] = { 1000000000, 1500000000, 1500000000, 2000000000 };
	static double uw[] = { 4e6, 4e6, 8e6, 8e6 };

	rp->pt_ns = malloc(sizeof(t));
	rp->pt_uw = malloc(sizeof(uw));
	FUZZ_CHECK(rp->pt_ns && rp->pt_uw);
	memcpy(rp->pt_ns, t, sizeof(t));
	memcpy(rp->pt_uw, uw, sizeof(uw));
	rp->nr_pts = rp->cap_pts = 4;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct report r;
	struct report_perf rp;
	struct perf_script ps;
	struct run run = { &rp, 0 };
	const uint8_t *s = data, *end = data + size, *nl;
	char err[256];
	int ret = 0;

	memset(&r, 0, sizeof(r));
	r.nr_cpus = 2;
	r.sign = 1;
	report_perf_init(&rp, &r, "/nonexistent/powerpin-fuzz");
	power_points(&rp);
	perf_script_init(&ps, on_sample, &run);
	while (s < end && !ret) {
		size_t len;
		char *line;

		nl = memchr(s, '\n', (size_t)(end - s));
		len = (size_t)((nl ? nl : end) - s);
		/* exactly the line's bytes, no NUL after them: as a reader may hand them */
		line = malloc(len ? len : 1);
		FUZZ_CHECK(line);
		memcpy(line, s, len);
		ret = perf_script_line(&ps, line, len, err, sizeof(err));
		free(line);
		if (ret < 0)
			FUZZ_CHECK(!strncmp(err, "line ", 5));
		s = nl ? nl + 1 : end;
	}
	if (!ret)
		perf_script_finish(&ps);
	FUZZ_CHECK(run.samples == ps.samples);
	/* every sample is inside the capture or counted outside it */
	FUZZ_CHECK(rp.used + rp.outside <= rp.samples);
	FUZZ_CHECK(rp.energy_j >= 0);
	if (!report_perf_finish(&rp, err, sizeof(err))) {
		report_perf_write_text(&rp, fuzz_sink());
		report_perf_write_json(&rp, fuzz_sink());
		report_perf_write_html(&rp, fuzz_sink());
		FUZZ_CHECK(!flame_write_html(&rp.flame, "fuzz", fuzz_sink()));
	}
	perf_script_free(&ps);
	report_perf_free(&rp);
	return 0;
}
