// SPDX-License-Identifier: GPL-2.0
/* powerpind's configuration parser and spool helpers, on the host. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <linux/powerpin.h>
#include <kselftest_harness.h>

#include "capture/capture.h"
#include "fuzz_seed.h"

static int parse(const char *text, struct ppd_config *cfg, char *err,
		 size_t errlen)
{
	FILE *fp = fmemopen((void *)text, strlen(text), "r");
	int ret;

	if (!fp)
		return -2;
	fuzz_seed("powerpind_config", text, strlen(text));
	ret = ppd_config_parse(fp, "t.conf", cfg, err, errlen);
	fclose(fp);
	return ret;
}

TEST(config_full)
{
	struct ppd_config cfg = { 0 };
	char err[256] = "";

	ASSERT_EQ(0, parse("# comment\n\n  spool = /var/spool/pp  \n"
			   "period_ms = 12.5 # trailing comment\n"
			   "supply = BAT0\nreport = no\n"
			   "pin_file = /a/b.apk\npin_file = /c\n", &cfg, err, sizeof(err)))
		TH_LOG("%s", err);
	EXPECT_STREQ("/var/spool/pp", cfg.spool);
	EXPECT_TRUE(cfg.have_period);
	EXPECT_EQ(12500U, cfg.period_us);
	EXPECT_STREQ("BAT0", cfg.supply);
	EXPECT_FALSE(cfg.report);
	ASSERT_EQ(2, cfg.nr_pin_files);
	EXPECT_STREQ("/a/b.apk", cfg.pin_files[0]);
	EXPECT_STREQ("/c", cfg.pin_files[1]);
	ppd_config_free(&cfg);
}

TEST(config_defaults)
{
	struct ppd_config cfg = { 0 };
	char err[256];

	ASSERT_EQ(0, parse("", &cfg, err, sizeof(err)));
	EXPECT_EQ(NULL, cfg.spool);
	EXPECT_FALSE(cfg.have_period);
	EXPECT_EQ(NULL, cfg.supply);
	EXPECT_TRUE(cfg.report);
	EXPECT_EQ(0, cfg.nr_pin_files);
	/* an empty supply means "first battery" and is kept as "" */
	ASSERT_EQ(0, parse("supply =\n", &cfg, err, sizeof(err)));
	EXPECT_STREQ("", cfg.supply);
	ppd_config_free(&cfg);
}

TEST(config_errors_name_the_line)
{
	static const struct {
		const char *text, *msg;
	} bad[] = {
		{ "report = yes\nbogus = 1\n", "t.conf:2: unknown key 'bogus'" },
		{ "period_ms = 0.5\n", "t.conf:1: period_ms '0.5'" },
		{ "period_ms = 60001\n", "t.conf:1: period_ms" },
		{ "period_ms = 1.0001\n", "t.conf:1: period_ms" },
		{ "period_ms = ten\n", "t.conf:1: period_ms 'ten'" },
		{ "period_ms =\n", "t.conf:1: period_ms ''" },
		{ "\n\njust words\n", "t.conf:3: expected 'key = value'" },
		{ "spool = relative/dir\n", "t.conf:1: spool must be an absolute path" },
		{ "pin_file = x.apk\n", "t.conf:1: pin_file must be an absolute path" },
		{ "report = maybe\n", "t.conf:1: report 'maybe'" },
		{ "supply = 0123456789012345678901234567890123456789012345678901234567890123\n",
		  "t.conf:1: supply name longer than 63 bytes" },
	};
	struct ppd_config cfg = { 0 };
	char err[256];
	size_t i;

	/* a failed parse leaves the previous configuration alone */
	ASSERT_EQ(0, parse("period_ms = 20\n", &cfg, err, sizeof(err)));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		EXPECT_EQ(-1, parse(bad[i].text, &cfg, err, sizeof(err)));
		EXPECT_EQ(EINVAL, errno);
		EXPECT_EQ(0, strncmp(err, bad[i].msg, strlen(bad[i].msg)))
			TH_LOG("case %zu: got '%s', want '%s'", i, err, bad[i].msg);
		EXPECT_EQ(20000U, cfg.period_us);
	}
	ppd_config_free(&cfg);
}

/* The period range is the module's, from the uapi header. */
TEST(config_period_limits)
{
	struct ppd_config cfg = { 0 };
	char err[256];

	ASSERT_EQ(0, parse("period_ms = 1\n", &cfg, err, sizeof(err)));
	EXPECT_EQ((uint32_t)POWERPIN_PERIOD_US_MIN, cfg.period_us);
	ASSERT_EQ(0, parse("period_ms = 60000\n", &cfg, err, sizeof(err)));
	EXPECT_EQ((uint32_t)POWERPIN_PERIOD_US_MAX, cfg.period_us);
	EXPECT_EQ(-1, parse("period_ms = 0.999\n", &cfg, err, sizeof(err)));
	EXPECT_EQ(-1, parse("period_ms = 60000.001\n", &cfg, err, sizeof(err)));
	EXPECT_EQ((uint32_t)POWERPIN_PERIOD_US_MAX, cfg.period_us);
	ppd_config_free(&cfg);
}

/* The example that install puts in /etc/powerpin parses as it ships. */
TEST(config_example_is_valid)
{
	struct ppd_config cfg = { 0 };
	char err[256] = "";

	ASSERT_EQ(0, ppd_config_load("daemon/powerpind.conf.example", true, &cfg,
				     err, sizeof(err)))
		TH_LOG("%s", err);
	EXPECT_STREQ(PPD_DEFAULT_SPOOL, cfg.spool);
	EXPECT_TRUE(cfg.report);
	EXPECT_FALSE(cfg.have_period);
	EXPECT_EQ(NULL, cfg.supply);
	ppd_config_free(&cfg);
}

TEST(config_load_missing_file)
{
	struct ppd_config cfg = { 0 };
	char err[256] = "";

	EXPECT_EQ(0, ppd_config_load("/nonexistent/pp.conf", false, &cfg, err, sizeof(err)));
	EXPECT_EQ(-1, ppd_config_load("/nonexistent/pp.conf", true, &cfg, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "/nonexistent/pp.conf: No such file"));
	ppd_config_free(&cfg);
}

/*
 * Only a bounded regular file is a configuration: a FIFO with no writer is
 * refused at once (powerpind used to block in fopen with SIGTERM already
 * blocked, at start and on SIGHUP), /dev/zero is not read until memory
 * runs out, a directory or an oversized file is an error, and a config
 * that fails leaves the one in use as it was.
 */
TEST(config_load_only_bounded_regular_files)
{
	char dir[] = "/tmp/ppconf.XXXXXX", fifo[64], big[64], cmd[256];
	struct ppd_config cfg = { .report = false };
	char err[256] = "";
	FILE *f;
	int k;

	ASSERT_NE(NULL, mkdtemp(dir));
	snprintf(fifo, sizeof(fifo), "%s/fifo.conf", dir);
	ASSERT_EQ(0, mkfifo(fifo, 0600));
	EXPECT_EQ(-1, ppd_config_load(fifo, true, &cfg, err, sizeof(err)));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_NE(NULL, strstr(err, "fifo.conf: not a regular file")) TH_LOG("%s", err);
	EXPECT_EQ(-1, ppd_config_load("/dev/zero", true, &cfg, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "/dev/zero: not a regular file")) TH_LOG("%s", err);
	EXPECT_EQ(-1, ppd_config_load(dir, true, &cfg, err, sizeof(err)));
	EXPECT_EQ(EISDIR, errno);
	snprintf(big, sizeof(big), "%s/big.conf", dir);
	f = fopen(big, "w");
	ASSERT_NE(NULL, f);
	for (k = 0; k <= PPD_CONFIG_MAX / 16; k++)
		fputs("# a comment....\n", f);
	fclose(f);
	EXPECT_EQ(-1, ppd_config_load(big, true, &cfg, err, sizeof(err)));
	EXPECT_EQ(EFBIG, errno);
	EXPECT_NE(NULL, strstr(err, "big.conf: larger than 1 MiB: not a configuration file"))
		TH_LOG("%s", err);
	/* none of that touched the configuration in use */
	EXPECT_FALSE(cfg.report);
	/* and powerpind itself says so and exits, never waiting on the FIFO */
	if (!access("build/bin/powerpind", X_OK)) {
		snprintf(cmd, sizeof(cmd),
			 "timeout -s KILL 10 build/bin/powerpind --check-config --config %s 2>%s/err", fifo, dir);
		EXPECT_EQ(1, WEXITSTATUS(system(cmd)));
		snprintf(cmd, sizeof(cmd), "grep -q 'fifo.conf: not a regular file' %s/err", dir);
		EXPECT_EQ(0, system(cmd));
	}
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	system(cmd);
}

/* --check-config says the period as the file does: period_ms, not period_us */
TEST(check_config_in_the_files_terms)
{
	static const struct {
		const char *conf, *says;
	} cases[] = {
		{ "period_ms = 5\n", "period_ms: 5\n" },
		{ "period_ms = 12.5\n", "period_ms: 12.5\n" },
		{ "period_ms = 1.001\n", "period_ms: 1.001\n" },
		{ "report = no\n", "period_ms: the module's own\n" },
	};
	char conf[] = "/tmp/ppconf.XXXXXX", cmd[256], out[1024];
	size_t k, n;
	FILE *f, *p;
	int fd;

	if (access("build/bin/powerpind", X_OK))
		SKIP(return, "build/bin/powerpind not built (make userspace)");
	fd = mkstemp(conf);
	ASSERT_LE(0, fd);
	close(fd);
	for (k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		f = fopen(conf, "w");
		ASSERT_NE(NULL, f);
		fputs(cases[k].conf, f);
		fclose(f);
		snprintf(cmd, sizeof(cmd), "build/bin/powerpind --check-config --config %s", conf);
		p = popen(cmd, "r");
		ASSERT_NE(NULL, p);
		n = fread(out, 1, sizeof(out) - 1, p);
		out[n] = '\0';
		EXPECT_EQ(0, pclose(p));
		EXPECT_NE(NULL, strstr(out, cases[k].says)) TH_LOG("%s", out);
		EXPECT_EQ(NULL, strstr(out, "period_us")) TH_LOG("%s", out);
	}
	unlink(conf);
}

TEST(spool_dirs_and_summary)
{
	char spool[] = "/tmp/ppspool.XXXXXX", path[256], buf[512];
	struct ppd_summary s = {
		.start_ns = 100, .stop_ns = 2000000100, .samples = 20,
		.lost_events = 3, .bytes = 8192, .complete = true,
	};
	char *a, *b;
	int fd;
	ssize_t n;

	ASSERT_NE(NULL, mkdtemp(spool));
	a = ppd_new_capture_dir(spool);
	b = ppd_new_capture_dir(spool);
	ASSERT_NE(NULL, a);
	ASSERT_NE(NULL, b);
	/* two captures in the same second get distinct directories */
	EXPECT_NE(0, strcmp(a, b));
	EXPECT_EQ(0, strncmp(a, spool, strlen(spool)));
	EXPECT_NE(NULL, strstr(a, "/capture-"));

	ASSERT_EQ(0, ppd_write_summary(a, &s));
	snprintf(path, sizeof(path), "%s/summary.txt", a);
	fd = open(path, O_RDONLY);
	ASSERT_LE(0, fd);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	ASSERT_LT(0, n);
	buf[n] = '\0';
	EXPECT_STREQ("start_ns=100\nstop_ns=2000000100\nsamples=20\nlost_events=3\n"
		     "bytes=8192\ntrace=trace.dat\ncomplete=1\n", buf);

	/* a failed capture: no trace, not complete, and why, on one line */
	s.complete = true;
	s.error = "cannot write x: No space left on device\nsecond line";
	ASSERT_EQ(0, ppd_write_summary(b, &s));
	snprintf(path, sizeof(path), "%s/summary.txt", b);
	fd = open(path, O_RDONLY);
	ASSERT_LE(0, fd);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	ASSERT_LT(0, n);
	buf[n] = '\0';
	EXPECT_STREQ("start_ns=100\nstop_ns=2000000100\nsamples=20\nlost_events=3\n"
		     "bytes=8192\ntrace=\ncomplete=0\n"
		     "error=cannot write x: No space left on device second line\n", buf);
	unlink(path);

	/* leftovers of a killed capture go, real files stay */
	snprintf(path, sizeof(path), "%s/trace.dat.tmp.AbC123", a);
	ASSERT_EQ(0, close(open(path, O_CREAT | O_WRONLY, 0644)));
	snprintf(path, sizeof(path), "%s/trace.dat.cpu1.xYz789", b);
	ASSERT_EQ(0, close(open(path, O_CREAT | O_WRONLY, 0644)));
	pp_capture_clean_dir(spool);
	EXPECT_NE(0, access(path, F_OK));
	snprintf(path, sizeof(path), "%s/trace.dat.tmp.AbC123", a);
	EXPECT_NE(0, access(path, F_OK));
	snprintf(path, sizeof(path), "%s/summary.txt", a);
	EXPECT_EQ(0, access(path, F_OK));

	snprintf(buf, sizeof(buf), "rm -rf %s", spool);
	system(buf);
	free(a);
	free(b);
}

TEST_HARNESS_MAIN
