// SPDX-License-Identifier: GPL-2.0
/*
 * powerpind end to end in the guest: tracing_on alone makes a capture whose
 * samples are the emulator's, SIGTERM leaves a readable capture, kill -9 and
 * a restart leave a working daemon, and so does reloading powerpin.ko.
 * Runs as root from the repo root with the emulator, max17042_battery and
 * powerpin.ko loaded.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <linux/powerpin.h>

#include "guest_harness.h"

#include "cmd_helpers.h"
#include "gauge_driver.h"
#include "capture/capture.h"

#define TRACING "/sys/kernel/tracing"
#define EMU "/sys/kernel/debug/max17042_emu"
#define PP_STATUS "/sys/kernel/debug/powerpin/status"
#define SUPPLY "/sys/class/power_supply/max170xx_battery"

/*
 * VCELL 0xd000 -> 4160000 uV; Current 0xf830 (-2000) -> -312500 uA, or
 * -312000 uA from the drivers before 5.11 (156 uA per step, not 156.25)
 */
#define PIN_VCELL "53248"
#define PIN_CURRENT "63536"
#define EXPECT_VOLTAGE_UV 4160000LL
#define EXPECT_CURRENT_UA gauge_current_ua(0xf830)

static int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_TRUNC | O_CREAT, 0644);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, s, strlen(s));
	close(fd);
	return n == (ssize_t)strlen(s) ? 0 : -1;
}

/*
 * Tests need powerpin.ko (the runner loads it) and the gauge emulator.  The
 * module loaded without its battery event is a failure, not a skip.
 */
#define NEED_MODULE_AND_GAUGE() do {					\
	if (access("/sys/module/powerpin", F_OK))			\
		SKIP(return, "powerpin.ko is not loaded");		\
	ASSERT_EQ(0, access(TRACING "/events/powerpin/powerpin_battery/enable", F_OK)) \
		TH_LOG("powerpin.ko is loaded without powerpin:powerpin_battery"); \
	if (access(EMU "/vcell_raw", W_OK))				\
		SKIP(return, "gauge emulator not loaded");		\
} while (0)

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static bool file_has(const char *path, const char *needle)
{
	char buf[16384];

	return !read_text(path, buf, sizeof(buf)) && strstr(buf, needle);
}

/* The one capture-* directory in @spool with @file in it, or NULL. */
static char *find_capture(const char *spool, const char *file, int nth)
{
	struct dirent **names;
	char *found = NULL;
	int n, i, seen = 0;

	n = scandir(spool, &names, NULL, alphasort);
	for (i = 0; i < n; i++) {
		char path[1024];

		if (!found && !strncmp(names[i]->d_name, "capture-", 8)) {
			snprintf(path, sizeof(path), "%s/%s/%s", spool,
				 names[i]->d_name, file);
			if (!access(path, F_OK) && seen++ == nth)
				asprintf(&found, "%s/%s", spool, names[i]->d_name);
		}
		free(names[i]);
	}
	if (n >= 0)
		free(names);
	return found;
}

/*
 * How long a wait for the daemon may take before it counts as a hang: the
 * waits end as soon as what they wait for happens, and a guest starved by
 * other guests on the host takes several times an idle one's 1 to 2 s to
 * write a capture's reports (the time is reported, not bounded).
 */
#define HANG_S		60.0

static char *wait_capture(const char *spool, const char *file, int nth,
			  double timeout_s)
{
	double end = now_s() + timeout_s;
	char *dir;

	while (!(dir = find_capture(spool, file, nth)) && now_s() < end)
		usleep(50000);
	return dir;
}

static long long summary_value(const char *dir, const char *key)
{
	char path[1024], buf[1024], *p;

	snprintf(path, sizeof(path), "%s/summary.txt", dir);
	if (read_text(path, buf, sizeof(buf)))
		return -999;
	p = strstr(buf, key);
	if (!p || p[strlen(key)] != '=')
		return -999;
	return strtoll(p + strlen(key) + 1, NULL, 10);
}

struct battery_events {
	long count;
	long bad_voltage, bad_current, bad_seq;
	long long first_voltage, first_current;
};

static long long field(const char *line, const char *name)
{
	char key[64];
	const char *p;

	snprintf(key, sizeof(key), " %s=", name);
	p = strstr(line, key);
	return p ? strtoll(p + strlen(key), NULL, 10) : -999999999LL;
}

/* Read powerpin:powerpin_battery events back with trace-cmd, a real client. */
static int trace_dat_battery_events(const char *trace, struct battery_events *ev)
{
	char cmd[1200], line[4096];
	long long last_seq = -1;
	FILE *p;

	memset(ev, 0, sizeof(*ev));
	snprintf(cmd, sizeof(cmd), "trace-cmd report -i %s 2>/dev/null", trace);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	while (fgets(line, sizeof(line), p)) {
		long long v, c, seq;

		if (!strstr(line, " powerpin_battery:"))
			continue;
		v = field(line, "voltage_uv");
		c = field(line, "current_ua");
		seq = field(line, "seq");
		if (!ev->count) {
			ev->first_voltage = v;
			ev->first_current = c;
		}
		ev->count++;
		if (v != EXPECT_VOLTAGE_UV)
			ev->bad_voltage++;
		if (c != EXPECT_CURRENT_UA)
			ev->bad_current++;
		if (last_seq >= 0 && seq != last_seq + 1)
			ev->bad_seq++;
		last_seq = seq;
	}
	return pclose(p) == 0 ? 0 : -1;
}

static void busy_for(double seconds)
{
	pid_t pid = fork();

	if (pid == 0) {
		double end = now_s() + seconds;
		volatile unsigned long x = 0;

		while (now_s() < end)
			x++;
		_exit(0);
	}
	if (pid > 0)
		waitpid(pid, NULL, 0);
}

static bool no_temp_files(const char *dir)
{
	struct dirent *de;
	bool clean = true;
	DIR *dp = opendir(dir);

	if (!dp)
		return false;
	while ((de = readdir(dp)))
		if (strstr(de->d_name, ".tmp.") || strstr(de->d_name, ".cpu"))
			clean = false;
	closedir(dp);
	return clean;
}

/* Wait until the sampler's gate is closed (GET_STATUS says idle). */
static int wait_idle(double timeout_s)
{
	double end = now_s() + timeout_s;
	struct pp_genl *g = pp_genl_open();
	struct pp_status st;
	int ret = -1;

	if (!g)
		return -1;
	do {
		if (!pp_genl_get_status(g, &st) &&
		    st.state == POWERPIN_STATE_IDLE) {
			ret = 0;
			break;
		}
		usleep(20000);
	} while (now_s() < end);
	pp_genl_close(g);
	return ret;
}

/* Sleep in short naps for @seconds: a steady stream of sched_switch events. */
static void switch_for(double seconds)
{
	double end = now_s() + seconds;

	while (now_s() < end)
		usleep(100);
}

/* Write @path until the file system is full; true if it ended in ENOSPC. */
static bool fill_fs(const char *path)
{
	static char buf[1 << 20];
	size_t chunk = sizeof(buf);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	int e = 0;

	if (fd < 0)
		return false;
	while (chunk >= 4096) {
		if (write(fd, buf, chunk) < 0) {
			e = errno;
			if (e != ENOSPC)
				break;
			chunk /= 2;
		}
	}
	close(fd);
	return e == ENOSPC;
}

/* Enable state of one event: '0', '1', or '?' if it cannot be read. */
static char event_state(const char *event)
{
	char path[256], buf[16];

	snprintf(path, sizeof(path), TRACING "/events/%s/enable", event);
	return read_text(path, buf, sizeof(buf)) ? '?' : buf[0];
}

static int set_event(const char *event, const char *on)
{
	char path[256];

	snprintf(path, sizeof(path), TRACING "/events/%s/enable", event);
	return write_file(path, on);
}

FIXTURE(ppd) {
	char base[64];
	char spool[128];
	char conf[128];
	char log[128];
	char pinned[128];
	char period[32];
	char tracing_on[8];	/* as found, put back at the end */
	pid_t pid;
	int starts;
};

static pid_t start_daemon(struct __test_metadata *_metadata,
			  FIXTURE_DATA(ppd) *self)
{
	static char buf[65536];
	char needle[32];
	int status = 0;
	bool gone;
	double end;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		int fd = open(self->log, O_WRONLY | O_CREAT | O_APPEND, 0644);

		dup2(fd, STDERR_FILENO);
		execl("build/bin/powerpind", "powerpind", "--foreground",
		      "--config", self->conf, "--spool", self->spool, NULL);
		_exit(127);
	}
	/* "ready" once per start: wait for this start's line */
	self->starts++;
	snprintf(needle, sizeof(needle), "ready:");
	end = now_s() + HANG_S;
	for (;;) {
		char *p = buf;
		size_t len;
		int n = 0;

		if (read_text(self->log, buf, sizeof(buf)))
			buf[0] = '\0';
		while ((p = strstr(p, needle))) {
			n++;
			p++;
		}
		if (n >= self->starts)
			break;
		/* gone or hung: say which, with the end of its log */
		gone = waitpid(pid, &status, WNOHANG) == pid;
		if (gone || now_s() > end) {
			len = strlen(buf);
			TH_LOG("powerpind did not get ready (%s, status %#x); its log ends:\n%s",
			       gone ? "it exited" : "no ready line within the wait",
			       status, buf + (len > 2000 ? len - 2000 : 0));
			return -1;
		}
		usleep(50000);
	}
	return pid;
}

static int stop_daemon(pid_t pid, int sig)
{
	int status;

	if (pid <= 0)
		return -1;
	kill(pid, sig);
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return status;
}

FIXTURE_SETUP(ppd)
{
	char buf[256];

	NEED_MODULE_AND_GAUGE();
	strcpy(self->base, "/tmp/ppd.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->base));
	snprintf(self->spool, sizeof(self->spool), "%s/spool", self->base);
	snprintf(self->conf, sizeof(self->conf), "%s/powerpind.conf", self->base);
	snprintf(self->log, sizeof(self->log), "%s/log", self->base);
	snprintf(self->pinned, sizeof(self->pinned), "%s/data.bin", self->base);
	/* a file whose pages are all cached: its pinlist covers it whole */
	memset(buf, 'p', sizeof(buf));
	ASSERT_EQ(0, write_file(self->pinned, buf));
	/*
	 * The report set costs an emulated guest seconds of CPU per
	 * capture: only the test that checks it asks for it.
	 */
	snprintf(buf, sizeof(buf), "# daemon_test\nreport = %s\npin_file = %s\n",
		 strcmp(_metadata->name, "end_to_end") ? "no" : "yes", self->pinned);
	ASSERT_EQ(0, write_file(self->conf, buf));

	ASSERT_EQ(0, read_text("/sys/module/powerpin/parameters/period_us",
			       self->period, sizeof(self->period)));
	ASSERT_EQ(0, read_line(TRACING "/tracing_on", self->tracing_on,
			       sizeof(self->tracing_on)));
	ASSERT_EQ(0, write_file(TRACING "/tracing_on", "0"));
	ASSERT_EQ(0, write_file(EMU "/vcell_raw", PIN_VCELL));
	ASSERT_EQ(0, write_file(EMU "/current_raw", PIN_CURRENT));
	self->pid = start_daemon(_metadata, self);
	ASSERT_LT(0, self->pid);
	/* the daemon enabled the event, so the gate only waits for tracing_on */
	ASSERT_EQ(0, read_text(TRACING "/events/powerpin/powerpin_battery/enable", buf, sizeof(buf)));
	ASSERT_EQ('1', buf[0]);
}

FIXTURE_TEARDOWN(ppd)
{
	char cmd[256];

	write_file(TRACING "/tracing_on", "0");
	if (self->pid > 0)
		stop_daemon(self->pid, SIGTERM);
	/* a test that put the spool on a small tmpfs */
	if (self->spool[0])
		umount2(self->spool, MNT_DETACH);
	write_file(EMU "/vcell_raw", "-1");
	write_file(EMU "/current_raw", "-1");
	if (self->period[0])
		write_file("/sys/module/powerpin/parameters/period_us", self->period);
	if (self->tracing_on[0])
		write_file(TRACING "/tracing_on", self->tracing_on);
	if (self->base[0] && getenv("PPD_KEEP") == NULL) {
		snprintf(cmd, sizeof(cmd), "rm -rf %s", self->base);
		system(cmd);
	}
}

TEST_F_TIMEOUT(ppd, end_to_end, 300)
{
	struct battery_events ev;
	char sysfs[64], trace[1024], path[1024];
	long long period_us, samples, window_min, window_max, missed;
	struct pp_status st0, st1;
	struct pp_genl *g;
	double t_on, t_off, t_seen;
	struct stat st;
	char *dir;

	ASSERT_EQ(0, read_text("/sys/module/powerpin/parameters/period_us",
			       sysfs, sizeof(sysfs)));
	period_us = atoll(sysfs);
	ASSERT_EQ(0, read_text(SUPPLY "/voltage_now", sysfs, sizeof(sysfs)));
	ASSERT_EQ(EXPECT_VOLTAGE_UV, atoll(sysfs));

	g = pp_genl_open();
	ASSERT_NE(NULL, g);
	ASSERT_EQ(0, pp_genl_get_status(g, &st0));
	t_on = now_s();
	ASSERT_EQ(0, write_file(TRACING "/tracing_on", "1"));
	busy_for(2.0);
	ASSERT_EQ(0, write_file(TRACING "/tracing_on", "0"));
	t_off = now_s();

	dir = wait_capture(self->spool, "summary.txt", 0, HANG_S);
	t_seen = now_s();
	ASSERT_NE(NULL, dir) TH_LOG("no capture within %.0f s of tracing_on 0", HANG_S);
	TH_LOG("capture %s complete %.2f s after tracing_on 0", dir, t_seen - t_off);
	EXPECT_EQ(1, summary_value(dir, "complete"));
	samples = summary_value(dir, "samples");
	EXPECT_EQ(0, summary_value(dir, "lost_events"));

	snprintf(trace, sizeof(trace), "%s/trace.dat", dir);
	ASSERT_EQ(0, trace_dat_battery_events(trace, &ev));
	/* every sample the kernel counted is in the file, with the pinned values */
	EXPECT_EQ(samples, ev.count);
	EXPECT_EQ(0, ev.bad_voltage) TH_LOG("first voltage %lld", ev.first_voltage);
	EXPECT_EQ(0, ev.bad_current) TH_LOG("first current %lld", ev.first_current);
	EXPECT_EQ(0, ev.bad_seq);
	/*
	 * The gate was open between our two writes, give or take a period.
	 * Deadlines the loaded guest missed are skipped, not made up, and
	 * counted: samples plus missed deadlines cover the window.
	 */
	ASSERT_EQ(0, pp_genl_get_status(g, &st1));
	pp_genl_close(g);
	missed = (long long)(st1.missed - st0.missed);
	window_max = (long long)((t_off - t_on) * 1e6) / period_us + 2;
	window_min = 2000000 / period_us - 2;
	EXPECT_LE(window_min, ev.count + missed) TH_LOG("%ld samples, %lld missed", ev.count, missed);
	EXPECT_GE(window_max, ev.count);

	/* the report set follows: powerpin report's text and the pinlist */
	snprintf(path, sizeof(path), "%s/report.txt", dir);
	for (int i = 0; i < 1200 && access(path, F_OK); i++)
		usleep(100000);
	EXPECT_EQ(0, access(path, F_OK)) TH_LOG("no report.txt");
	snprintf(path, sizeof(path), "%s/data.bin.pinlist.meta", dir);
	for (int i = 0; i < 300 && access(path, F_OK); i++)
		usleep(100000);
	ASSERT_EQ(0, stat(path, &st)) TH_LOG("no pinlist for the configured file");
	/* one page, one (offset, length) pair of big-endian u32 */
	EXPECT_EQ(8, st.st_size);
	free(dir);
}

TEST_F_TIMEOUT(ppd, sigterm_mid_capture, 300)
{
	struct battery_events ev;
	char trace[1024], cmd[1200];
	int status;
	char *dir;

	ASSERT_EQ(0, write_file(TRACING "/tracing_on", "1"));
	usleep(1000000);
	status = stop_daemon(self->pid, SIGTERM);
	self->pid = 0;
	write_file(TRACING "/tracing_on", "0");
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));

	dir = find_capture(self->spool, "trace.dat", 0);
	ASSERT_NE(NULL, dir);
	EXPECT_EQ(0, summary_value(dir, "complete"));
	snprintf(trace, sizeof(trace), "%s/trace.dat", dir);
	snprintf(cmd, sizeof(cmd), "build/bin/powerpin report %s >/dev/null", trace);
	EXPECT_EQ(0, system(cmd));
	ASSERT_EQ(0, trace_dat_battery_events(trace, &ev));
	EXPECT_LT(0, ev.count);
	EXPECT_EQ(0, ev.bad_voltage);
	/* the daemon put the event back as it found it */
	EXPECT_TRUE(file_has(TRACING "/events/powerpin/powerpin_battery/enable", "0"));
	free(dir);
}

TEST_F_TIMEOUT(ppd, kill9_then_restart, 300)
{
	struct battery_events ev;
	char trace[1024];
	DIR *dp;
	struct dirent *de;
	char *dir, *first;
	int stale = 0;

	ASSERT_EQ(0, write_file(TRACING "/tracing_on", "1"));
	first = wait_capture(self->spool, "", 0, HANG_S);
	usleep(500000);
	stop_daemon(self->pid, SIGKILL);
	self->pid = 0;
	ASSERT_EQ(0, write_file(TRACING "/tracing_on", "0"));
	ASSERT_NE(NULL, first);

	self->pid = start_daemon(_metadata, self);
	ASSERT_LT(0, self->pid);
	/* the killed capture's temporary files are gone */
	dp = opendir(first);
	ASSERT_NE(NULL, dp);
	while ((de = readdir(dp)))
		if (strstr(de->d_name, ".tmp.") || strstr(de->d_name, ".cpu"))
			stale++;
	closedir(dp);
	EXPECT_EQ(0, stale);

	ASSERT_EQ(0, write_file(TRACING "/tracing_on", "1"));
	busy_for(1.0);
	ASSERT_EQ(0, write_file(TRACING "/tracing_on", "0"));
	dir = wait_capture(self->spool, "summary.txt", 0, HANG_S);
	ASSERT_NE(NULL, dir);
	EXPECT_EQ(1, summary_value(dir, "complete"));
	snprintf(trace, sizeof(trace), "%s/trace.dat", dir);
	ASSERT_EQ(0, trace_dat_battery_events(trace, &ev));
	EXPECT_LT(0, ev.count);
	EXPECT_EQ(summary_value(dir, "samples"), ev.count);
	free(dir);
	free(first);
}

TEST_F_TIMEOUT(ppd, module_reload_under_daemon, 300)
{
	struct battery_events ev;
	char cmd[512], trace[1024], buf[16];
	struct utsname u;
	double end;
	char *dir;

	ASSERT_EQ(0, uname(&u));
	snprintf(cmd, sizeof(cmd), "build/%s/powerpin.ko", u.release);
	if (access(cmd, R_OK))
		SKIP(return, "no %s to reload", cmd);
	ASSERT_EQ(0, system("rmmod powerpin"));
	snprintf(cmd, sizeof(cmd), "insmod build/%s/powerpin.ko", u.release);
	ASSERT_EQ(0, system(cmd));
	/* the daemon notices and enables the new module's events */
	end = now_s() + HANG_S;
	while (now_s() < end &&
	       (read_text(TRACING "/events/powerpin/powerpin_battery/enable", buf, sizeof(buf)) ||
		buf[0] != '1'))
		usleep(50000);
	ASSERT_EQ('1', buf[0]);
	EXPECT_TRUE(file_has(self->log, "loaded again"));

	ASSERT_EQ(0, write_file(TRACING "/tracing_on", "1"));
	busy_for(1.0);
	ASSERT_EQ(0, write_file(TRACING "/tracing_on", "0"));
	dir = wait_capture(self->spool, "summary.txt", 0, HANG_S);
	ASSERT_NE(NULL, dir);
	snprintf(trace, sizeof(trace), "%s/trace.dat", dir);
	ASSERT_EQ(0, trace_dat_battery_events(trace, &ev));
	EXPECT_LT(0, ev.count);
	EXPECT_EQ(summary_value(dir, "samples"), ev.count);
	EXPECT_EQ(0, ev.bad_voltage);
	free(dir);
}

TEST_F_TIMEOUT(ppd, sighup_rereads_config, 300)
{
	char buf[512];
	double end;

	snprintf(buf, sizeof(buf), "report = no\nperiod_ms = 20\n");
	ASSERT_EQ(0, write_file(self->conf, buf));
	kill(self->pid, SIGHUP);
	end = now_s() + HANG_S;
	while (now_s() < end &&
	       !file_has("/sys/module/powerpin/parameters/period_us", "20000"))
		usleep(50000);
	EXPECT_TRUE(file_has("/sys/module/powerpin/parameters/period_us", "20000"));
	EXPECT_TRUE(file_has(self->log, "configuration reread"));

	/* a broken file is refused and the daemon carries on */
	ASSERT_EQ(0, write_file(self->conf, "period_ms = 0.1\n"));
	kill(self->pid, SIGHUP);
	end = now_s() + HANG_S;
	while (now_s() < end && !file_has(self->log, "configuration not changed"))
		usleep(50000);
	EXPECT_TRUE(file_has(self->log, ":1: period_ms '0.1'"));
	EXPECT_TRUE(file_has("/sys/module/powerpin/parameters/period_us", "20000"));
	EXPECT_EQ(0, kill(self->pid, 0));
}

TEST_F_TIMEOUT(ppd, starts_with_gate_open, 300)
{
	struct battery_events ev;
	char trace[1024];
	char *dir;

	/* gate opened by hand before the daemon runs */
	ASSERT_EQ(0, stop_daemon(self->pid, SIGTERM));
	self->pid = 0;
	ASSERT_EQ(0, write_file(TRACING "/events/powerpin/powerpin_battery/enable", "1"));
	ASSERT_EQ(0, write_file(TRACING "/tracing_on", "1"));
	usleep(300000);
	self->pid = start_daemon(_metadata, self);
	ASSERT_LT(0, self->pid);
	usleep(1000000);
	ASSERT_EQ(0, write_file(TRACING "/tracing_on", "0"));
	dir = wait_capture(self->spool, "summary.txt", 0, HANG_S);
	ASSERT_NE(NULL, dir);
	EXPECT_EQ(1, summary_value(dir, "complete"));
	snprintf(trace, sizeof(trace), "%s/trace.dat", dir);
	ASSERT_EQ(0, trace_dat_battery_events(trace, &ev));
	EXPECT_LT(0, ev.count);
	EXPECT_EQ(summary_value(dir, "samples"), ev.count);
	free(dir);
}

/* powerpin record and powerpind never read the ring buffer at once */
TEST_F_TIMEOUT(ppd, one_capture_at_a_time, 300)
{
	struct battery_events ev;
	char cmd[1024], trace[256], *dir;

	snprintf(trace, sizeof(trace), "%s/rec.dat", self->base);
	/*
	 * Until the capture holds three samples (up to 60 s), not for a fixed
	 * second: a starved guest's sampler can take a second to its first
	 */
	snprintf(cmd, sizeof(cmd),
		 "build/bin/powerpin record -q -o %s -- sh -c '"
		 "s0=$(sed -n s/^samples.//p " PP_STATUS "); i=0; "
		 "while [ $i -lt 600 ]; do s=$(sed -n s/^samples.//p " PP_STATUS "); "
		 "[ $((s - s0)) -ge 3 ] && exit 0; sleep 0.1; i=$((i + 1)); done; exit 1'",
		 trace);
	ASSERT_EQ(0, system(cmd));
	ASSERT_EQ(0, trace_dat_battery_events(trace, &ev));
	EXPECT_LT(0, ev.count);
	EXPECT_EQ(0, ev.bad_seq);
	/* record's gate was seen by the daemon, which left it alone */
	usleep(500000);
	dir = find_capture(self->spool, "", 0);
	EXPECT_EQ(NULL, dir);
	free(dir);
	EXPECT_TRUE(file_has(self->log, "not capturing it"));

	/* while the daemon captures, record refuses */
	ASSERT_EQ(0, write_file(TRACING "/tracing_on", "1"));
	dir = wait_capture(self->spool, "", 0, HANG_S);
	ASSERT_NE(NULL, dir);
	free(dir);
	snprintf(cmd, sizeof(cmd), "build/bin/powerpin record -q -d 1 -o %s 2>%s/rec.err",
		 trace, self->base);
	EXPECT_EQ(1, WEXITSTATUS(system(cmd)));
	snprintf(cmd, sizeof(cmd), "%s/rec.err", self->base);
	EXPECT_TRUE(file_has(cmd, "another capture"));
	ASSERT_EQ(0, write_file(TRACING "/tracing_on", "0"));
	dir = wait_capture(self->spool, "summary.txt", 0, HANG_S);
	ASSERT_NE(NULL, dir);
	EXPECT_EQ(1, summary_value(dir, "complete"));
	free(dir);
}

/* Events that were on stay on, those that were off go back off. */
TEST_F_TIMEOUT(ppd, puts_each_event_back, 300)
{
	int status;

	ASSERT_EQ(0, stop_daemon(self->pid, SIGTERM));
	self->pid = 0;
	ASSERT_EQ(0, write_file(TRACING "/events/powerpin/enable", "0"));
	ASSERT_EQ(0, set_event("powerpin/powerpin_battery", "1"));
	ASSERT_EQ(0, set_event("sched/sched_process_fork", "1"));
	ASSERT_EQ(0, set_event("sched/sched_switch", "0"));
	self->pid = start_daemon(_metadata, self);
	ASSERT_LT(0, self->pid);
	EXPECT_EQ('1', event_state("powerpin/powerpin_counter"));
	EXPECT_EQ('1', event_state("sched/sched_switch"));

	status = stop_daemon(self->pid, SIGTERM);
	self->pid = 0;
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	EXPECT_EQ('1', event_state("powerpin/powerpin_battery"));
	EXPECT_EQ('0', event_state("powerpin/powerpin_counter"));
	EXPECT_EQ('1', event_state("sched/sched_process_fork"));
	EXPECT_EQ('0', event_state("sched/sched_switch"));
	set_event("powerpin/powerpin_battery", "0");
	set_event("sched/sched_process_fork", "0");
}

/*
 * The spool's file system fills up mid-capture: the capture fails loudly
 * (log, summary.txt with complete=0 and the reason, no trace.dat) instead
 * of ending as a silently truncated trace.dat once space is back, and the
 * next capture works.
 */
TEST_F_TIMEOUT(ppd, disk_full_fails_the_capture, 300)
{
	char fill[256], path[1024], *dir, *next;
	double end;
	int status;

	ASSERT_EQ(0, stop_daemon(self->pid, SIGTERM));
	self->pid = 0;
	ASSERT_EQ(0, mount("tmpfs", self->spool, "tmpfs", 0, "size=64m"));
	self->pid = start_daemon(_metadata, self);
	ASSERT_LT(0, self->pid);

	ASSERT_EQ(0, write_file(TRACING "/tracing_on", "1"));
	end = now_s() + HANG_S;
	while (now_s() < end && !file_has(self->log, "capture started"))
		usleep(20000);
	ASSERT_TRUE(file_has(self->log, "capture started"));
	snprintf(fill, sizeof(fill), "%s/fill", self->spool);
	ASSERT_TRUE(fill_fs(fill));
	end = now_s() + HANG_S;
	while (now_s() < end && !file_has(self->log, "failed: cannot write"))
		switch_for(0.1);
	/* space again: nothing may come back of the capture now */
	unlink(fill);
	ASSERT_EQ(0, write_file(TRACING "/tracing_on", "0"));
	EXPECT_TRUE(file_has(self->log, "No space left on device"));
	/* the sampler closes the gate at its next poll */
	ASSERT_EQ(0, wait_idle(HANG_S));

	dir = wait_capture(self->spool, "summary.txt", 0, HANG_S);
	ASSERT_NE(NULL, dir);
	EXPECT_EQ(0, summary_value(dir, "complete"));
	snprintf(path, sizeof(path), "%s/summary.txt", dir);
	EXPECT_TRUE(file_has(path, "\ntrace=\n"));
	EXPECT_TRUE(file_has(path, "\nerror=cannot write "));
	snprintf(path, sizeof(path), "%s/trace.dat", dir);
	EXPECT_NE(0, access(path, F_OK));
	EXPECT_TRUE(no_temp_files(dir));

	/* the daemon goes on: the next gate opening is a good capture */
	ASSERT_EQ(0, write_file(TRACING "/tracing_on", "1"));
	busy_for(1.0);
	ASSERT_EQ(0, write_file(TRACING "/tracing_on", "0"));
	next = wait_capture(self->spool, "trace.dat", 0, HANG_S);
	ASSERT_NE(NULL, next);
	EXPECT_NE(0, strcmp(dir, next));
	snprintf(path, sizeof(path), "%s/summary.txt", next);
	end = now_s() + HANG_S;
	while (now_s() < end && access(path, F_OK))
		usleep(50000);
	EXPECT_EQ(1, summary_value(next, "complete"));

	status = stop_daemon(self->pid, SIGTERM);
	self->pid = 0;
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	free(dir);
	free(next);
}

TEST(bad_arguments_and_config)
{
	char dir[] = "/tmp/ppdbad.XXXXXX", path[128], cmd[512];

	ASSERT_NE(NULL, mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/c.conf", dir);
	ASSERT_EQ(0, write_file(path, "# fine\nreport = yes\nbogus = 1\n"));
	snprintf(cmd, sizeof(cmd),
		 "build/bin/powerpind -f -c %s -s %s/spool 2>%s/err", path, dir, dir);
	EXPECT_EQ(1, WEXITSTATUS(system(cmd)));
	snprintf(path, sizeof(path), "%s/err", dir);
	EXPECT_TRUE(file_has(path, "c.conf:3: unknown key 'bogus'"));

	snprintf(cmd, sizeof(cmd),
		 "build/bin/powerpind -f -c %s/missing.conf 2>%s/err", dir, dir);
	EXPECT_EQ(1, WEXITSTATUS(system(cmd)));
	EXPECT_TRUE(file_has(path, "missing.conf: No such file"));

	snprintf(cmd, sizeof(cmd), "build/bin/powerpind --spool relative 2>%s/err", dir);
	EXPECT_EQ(2, WEXITSTATUS(system(cmd)));
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	system(cmd);
}

/* ---- powerpin record: the same capture without the daemon ------------- */

FIXTURE(rec) {
	char dir[64];
	char trace[128];
	char tracing_on[8];	/* as found, put back at the end */
};

FIXTURE_SETUP(rec)
{
	NEED_MODULE_AND_GAUGE();
	strcpy(self->dir, "/tmp/pprec.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	snprintf(self->trace, sizeof(self->trace), "%s/t.dat", self->dir);
	ASSERT_EQ(0, read_line(TRACING "/tracing_on", self->tracing_on,
			       sizeof(self->tracing_on)));
	ASSERT_EQ(0, write_file(TRACING "/tracing_on", "0"));
	ASSERT_EQ(0, write_file(TRACING "/events/powerpin/enable", "0"));
	ASSERT_EQ(0, write_file(EMU "/vcell_raw", PIN_VCELL));
	ASSERT_EQ(0, write_file(EMU "/current_raw", PIN_CURRENT));
}

FIXTURE_TEARDOWN(rec)
{
	char cmd[128];

	write_file(EMU "/vcell_raw", "-1");
	write_file(EMU "/current_raw", "-1");
	write_file(TRACING "/events/powerpin/enable", "0");
	if (self->tracing_on[0])
		write_file(TRACING "/tracing_on", self->tracing_on);
	if (self->dir[0]) {
		snprintf(cmd, sizeof(cmd), "%s/small", self->dir);
		umount2(cmd, MNT_DETACH);
		snprintf(cmd, sizeof(cmd), "rm -rf %s", self->dir);
		system(cmd);
	}
}

TEST_F_TIMEOUT(rec, duration_restores_state, 300)
{
	struct battery_events ev;
	char cmd[512];

	/* 3 s at 100 ms: samples even when the guest's vCPUs are starved */
	snprintf(cmd, sizeof(cmd), "build/bin/powerpin record -q -d 3 -o %s",
		 self->trace);
	ASSERT_EQ(0, system(cmd));
	ASSERT_EQ(0, trace_dat_battery_events(self->trace, &ev));
	EXPECT_LT(0, ev.count);
	EXPECT_EQ(0, ev.bad_voltage);
	EXPECT_EQ(0, ev.bad_current);
	EXPECT_EQ(0, ev.bad_seq);
	EXPECT_TRUE(no_temp_files(self->dir));
	/* tracing and the events are back as they were */
	EXPECT_TRUE(file_has(TRACING "/tracing_on", "0"));
	EXPECT_TRUE(file_has(TRACING "/events/powerpin/powerpin_battery/enable", "0"));
	/* and the capture says how many samples the kernel counted */
	snprintf(cmd, sizeof(cmd),
		 "trace-cmd report --stat -i %s 2>/dev/null | grep -q 'powerpin: lost_events=0 .* samples=%ld$'",
		 self->trace, ev.count);
	EXPECT_EQ(0, system(cmd)) TH_LOG("%s", cmd);
}

TEST_F_TIMEOUT(rec, command_and_trace_marker, 300)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd),
		 "build/bin/powerpin record -q -o %s -- sh -c 'echo B\\|$$\\|pp_slice > %s/trace_marker; sleep 0.5'",
		 self->trace, TRACING);
	ASSERT_EQ(0, system(cmd));
	snprintf(cmd, sizeof(cmd),
		 "trace-cmd report -i %s 2>/dev/null | grep -q 'print:.*B|[0-9]*|pp_slice'",
		 self->trace);
	EXPECT_EQ(0, system(cmd)) TH_LOG("no trace_marker line in the capture");
	snprintf(cmd, sizeof(cmd),
		 "trace-cmd report -i %s 2>/dev/null | grep -q 'sched_process_exit:.*comm=sleep'",
		 self->trace);
	EXPECT_EQ(0, system(cmd)) TH_LOG("no sched_process_exit of the command");
}

TEST_F_TIMEOUT(rec, sigint_leaves_valid_file, 300)
{
	struct battery_events ev;
	int status;
	pid_t pid;

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		execl("build/bin/powerpin", "powerpin", "record", "-q", "-o",
		      self->trace, NULL);
		_exit(127);
	}
	/* SIGINT once record has turned tracing on and sampled a while */
	for (int i = 0; i < 300 && !file_has(TRACING "/tracing_on", "1"); i++)
		usleep(50000);
	usleep(1000000);
	kill(pid, SIGINT);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	ASSERT_EQ(0, trace_dat_battery_events(self->trace, &ev));
	EXPECT_LT(0, ev.count);
	EXPECT_TRUE(no_temp_files(self->dir));
	EXPECT_TRUE(file_has(TRACING "/tracing_on", "0"));
}

/* record puts back each event as it was, not whole systems */
TEST_F_TIMEOUT(rec, puts_each_event_back, 300)
{
	char cmd[512];

	ASSERT_EQ(0, set_event("powerpin/powerpin_battery", "1"));
	ASSERT_EQ(0, set_event("sched/sched_process_fork", "1"));
	ASSERT_EQ(0, set_event("sched/sched_switch", "0"));
	snprintf(cmd, sizeof(cmd), "build/bin/powerpin record -q -d 0.5 -o %s",
		 self->trace);
	EXPECT_EQ(0, system(cmd));
	EXPECT_EQ('1', event_state("powerpin/powerpin_battery"));
	EXPECT_EQ('0', event_state("powerpin/powerpin_counter"));
	EXPECT_EQ('1', event_state("sched/sched_process_fork"));
	EXPECT_EQ('0', event_state("sched/sched_switch"));
	set_event("powerpin/powerpin_battery", "0");
	set_event("sched/sched_process_fork", "0");
}

/*
 * The output's file system fills up mid-capture and has room again before
 * the end: record must not write what is left as if it were the capture.
 * It exits 1, says why, and leaves no file behind.
 */
TEST_F_TIMEOUT(rec, disk_full_fails, 300)
{
	char small[128], out[160], fill[160], errf[160];
	double end;
	int status;
	pid_t pid;

	snprintf(small, sizeof(small), "%s/small", self->dir);
	snprintf(out, sizeof(out), "%s/t.dat", small);
	snprintf(fill, sizeof(fill), "%s/fill", small);
	snprintf(errf, sizeof(errf), "%s/err", self->dir);
	ASSERT_EQ(0, mkdir(small, 0755));
	ASSERT_EQ(0, mount("tmpfs", small, "tmpfs", 0, "size=64m"));

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		int fd = open(errf, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		dup2(fd, STDERR_FILENO);
		execl("build/bin/powerpin", "powerpin", "record", "-q", "-d", "8",
		      "-o", out, NULL);
		_exit(127);
	}
	/* tracing_on 1: record has written its headers and is capturing */
	end = now_s() + HANG_S;
	while (now_s() < end && !file_has(TRACING "/tracing_on", "1"))
		usleep(20000);
	ASSERT_TRUE(file_has(TRACING "/tracing_on", "1"));
	ASSERT_TRUE(fill_fs(fill));
	/* a page or more per CPU while the disk is full */
	switch_for(1.5);
	unlink(fill);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(1, WEXITSTATUS(status));
	EXPECT_TRUE(file_has(errf, "No space left on device"));
	EXPECT_TRUE(file_has(errf, "not written"));
	EXPECT_NE(0, access(out, F_OK));
	EXPECT_TRUE(no_temp_files(small));
	/* and it still put tracing back */
	EXPECT_TRUE(file_has(TRACING "/tracing_on", "0"));
	EXPECT_EQ('0', event_state("powerpin/powerpin_battery"));
	EXPECT_EQ(0, umount2(small, 0));
}

TEST_HARNESS_MAIN
