// SPDX-License-Identifier: GPL-2.0
/*
 * The whole report pipeline: format detection, either reader, the report's
 * arithmetic, then every writer of report_writers[] (a new writer is
 * fuzzed as soon as it is in that table).  The options come from the
 * input's size, so the seeds stay plain trace files.
 */
#include <string.h>

#define FUZZ_THROUGH_LIBTRACECMD
#include "fuzz.h"
#include "report/report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path;
	struct report_options opt = {
		.sign = (enum report_sign)(size % 3),
		.baseline_s = size / 3 % 2 ? 0.5 : 0,
	};
	const struct report_writer *w;
	char err[512] = "";
	struct report r;

	fuzz_close_leaked_fds();
	path = fuzz_file(data, size);
	FUZZ_CHECK(!report_init(&r, &opt));
	if (report_run(&r, path, err, sizeof(err))) {
		FUZZ_CHECK(err[0]);
		report_free(&r);
		return 0;
	}
	FUZZ_CHECK(r.finished);
	FUZZ_CHECK(r.samples > 0);
	for (w = report_writers; w->name; w++) {
		err[0] = '\0';
		/* the input was read once already: a second read cannot fail */
		FUZZ_CHECK(!w->write(&r, path, "fuzz", fuzz_sink(), err, sizeof(err)));
	}
	report_free(&r);
	return 0;
}
