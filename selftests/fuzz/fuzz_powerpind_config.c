// SPDX-License-Identifier: GPL-2.0
/* powerpind's configuration file. */
#include <string.h>
#include <linux/powerpin.h>

#include "capture/capture.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ppd_config cfg = { .report = false, .have_period = true, .period_us = 4242 };
	char err[512] = "";
	FILE *fp;
	int i;

	fp = size ? fmemopen((void *)data, size, "r") : fopen("/dev/null", "r");
	FUZZ_CHECK(fp);
	if (ppd_config_parse(fp, "fuzz", &cfg, err, sizeof(err))) {
		fclose(fp);
		/* a bad file names itself and changes nothing */
		FUZZ_CHECK(!strncmp(err, "fuzz", 4));
		FUZZ_CHECK(!cfg.report && cfg.have_period && cfg.period_us == 4242);
		FUZZ_CHECK(!cfg.spool && !cfg.supply && !cfg.nr_pin_files);
		return 0;
	}
	fclose(fp);
	FUZZ_CHECK(!cfg.spool || cfg.spool[0] == '/');
	FUZZ_CHECK(!cfg.supply || strlen(cfg.supply) < 64);
	if (cfg.have_period)
		FUZZ_CHECK(cfg.period_us >= POWERPIN_PERIOD_US_MIN &&
			   cfg.period_us <= POWERPIN_PERIOD_US_MAX);
	for (i = 0; i < cfg.nr_pin_files; i++)
		FUZZ_CHECK(cfg.pin_files[i] && cfg.pin_files[i][0] == '/');
	ppd_config_free(&cfg);
	return 0;
}
