/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers of the guest tests that drive powerpin.ko's sampler: sysfs and
 * tracefs files, the sampler's debugfs status, the MAX17042 emulator, the
 * text trace, and modules of the guest kernel.  Header-only: each test
 * binary is one file.
 */
#ifndef POWERPIN_SAMPLER_HELPERS_H
#define POWERPIN_SAMPLER_HELPERS_H

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/utsname.h>

#include "cmd_helpers.h"
#include "trace_clock.h"

#define TRACING	"/sys/kernel/tracing"
#define EMU	"/sys/kernel/debug/max17042_emu"
#define PSY_DIR	"/sys/class/power_supply"
#define PSY	PSY_DIR "/max170xx_battery"
#define PARAMS	"/sys/module/powerpin/parameters"
#define STATUS	"/sys/kernel/debug/powerpin/status"

static inline int write_ll(const char *path, long long val)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%lld", val);
	return write_str(path, buf);
}

static inline long long read_ll(const char *path)
{
	char buf[64];

	if (read_line(path, buf, sizeof(buf)))
		return -999999999;
	return strtoll(buf, NULL, 0);
}

/* One "key value" line of the sampler's debugfs status file. */
static inline int status_str(const char *key, char *out, size_t len)
{
	char line[256];
	size_t klen = strlen(key), vlen;
	FILE *f = fopen(STATUS, "r");
	int ret = -ENOENT;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, key, klen) || line[klen] != ' ')
			continue;
		line[strcspn(line, "\n")] = '\0';
		vlen = strlen(line + klen + 1);
		if (vlen >= len)
			vlen = len - 1;
		memcpy(out, line + klen + 1, vlen);
		out[vlen] = '\0';
		ret = 0;
		break;
	}
	fclose(f);
	return ret;
}

static inline long long status_ll(const char *key)
{
	char buf[128];

	if (status_str(key, buf, sizeof(buf)))
		return -999999999;
	return strtoll(buf, NULL, 0);
}

/*
 * Whether the loaded powerpin.ko is a KMI build (GKI: kmod/README.md, "A
 * KMI build"): it cannot tell tracing_on, and its gate learns whether the
 * buffers take writes from trial samples, which read the gauge.
 */
static inline bool kmi_build(void)
{
	char v[16];

	return !status_str("tracing_on", v, sizeof(v)) && !strcmp(v, "unknown");
}

/* Context switches of a task so far, voluntary and not: its wake-ups. */
static inline long long ctxt_switches(int pid)
{
	char path[64], line[128];
	long long sum = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "voluntary_ctxt_switches:", 24) ||
		    !strncmp(line, "nonvoluntary_ctxt_switches:", 27))
			sum += strtoll(strchr(line, ':') + 1, NULL, 10);
	}
	fclose(f);
	return sum;
}

static inline double now_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static inline void sleep_s(double s)
{
	struct timespec ts;

	if (s <= 0)
		return;
	ts.tv_sec = (time_t)s;
	ts.tv_nsec = (long)((s - (time_t)s) * 1e9);
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* Poll until status @key >= @want; false after @timeout_s. */
static inline int wait_status_ge(const char *key, long long want, double timeout_s)
{
	double end = now_mono() + timeout_s;

	while (now_mono() < end) {
		if (status_ll(key) >= want)
			return 1;
		sleep_s(0.005);
	}
	return status_ll(key) >= want;
}

/* Poll until status @key reads @want; false after @timeout_s. */
static inline int wait_status_is(const char *key, const char *want, double timeout_s)
{
	double end = now_mono() + timeout_s;
	char buf[128];

	do {
		if (!status_str(key, buf, sizeof(buf)) && !strcmp(buf, want))
			return 1;
		sleep_s(0.005);
	} while (now_mono() < end);
	return 0;
}

static inline long long emu_transfers(void)
{
	return read_ll(EMU "/transfers");
}

static inline void emu_reset(void)
{
	static const char * const pins[] = {
		"vcell_raw", "current_raw", "avgcurrent_raw", "qh_raw",
		"repsoc_raw", "repcap_raw", "fullcap_raw", "temp_raw",
	};
	char path[128];

	write_str(EMU "/fail_every", "0");
	write_str(EMU "/latency_us", "0");
	write_str(EMU "/mode", "constant");
	write_str(EMU "/refresh_us", "175800");
	for (size_t i = 0; i < sizeof(pins) / sizeof(pins[0]); i++) {
		snprintf(path, sizeof(path), EMU "/%s", pins[i]);
		write_str(path, "-1");
	}
}

/* The emulated gauge is bound and max170xx_battery reads. */
static inline int emu_ensure_bound(void)
{
	double end = now_mono() + 10;

	if (access(PSY, F_OK))
		write_str(EMU "/bind", "1");
	while (access(PSY "/voltage_now", F_OK) && now_mono() < end)
		sleep_s(0.01);
	return access(PSY "/voltage_now", F_OK) ? -1 : 0;
}

/* One powerpin:powerpin_battery event of a text trace. */
struct battery_ev {
	double ts;		/* when it was written (trace clock) */
	double start;		/* ts - read_ns: when the read began */
	unsigned int seq;
	long long voltage_uv, current_ua, charge_uah, power_uw, current_avg_ua;
	int capacity, temp_dc;
	unsigned long long read_ns;
	unsigned int flags;
};

/* Timestamp of a trace line, written just before ": <event>: ". */
static inline double trace_line_ts(const char *line, const char *at)
{
	const char *p = at;

	while (p > line && (isdigit((unsigned char)p[-1]) || p[-1] == '.'))
		p--;
	return trace_ts_mono(strtod(p, NULL));
}

/*
 * All powerpin:powerpin_battery events of a text trace stream (trace file, trace-cmd
 * report); returns the count or -1 on a line that does not parse.
 */
static inline int read_battery_events(FILE *f, struct battery_ev **out)
{
	struct battery_ev *evs = NULL, *e;
	size_t n = 0, cap = 0;
	char line[1024];

	while (fgets(line, sizeof(line), f)) {
		char *p = strstr(line, ": powerpin_battery:"), *fields;

		if (!p)
			p = strstr(line, "powerpin:powerpin_battery:");
		if (!p)
			continue;
		fields = strstr(p, "seq=");
		if (n == cap) {
			cap = cap ? cap * 2 : 256;
			e = realloc(evs, cap * sizeof(*evs));
			if (!e) {
				free(evs);
				return -1;
			}
			evs = e;
		}
		e = &evs[n];
		if (!fields ||
		    sscanf(fields, "seq=%u voltage_uv=%lld current_ua=%lld charge_uah=%lld power_uw=%lld current_avg_ua=%lld capacity=%d temp_dc=%d read_ns=%llu flags=%x",
			   &e->seq, &e->voltage_uv, &e->current_ua, &e->charge_uah,
			   &e->power_uw, &e->current_avg_ua, &e->capacity,
			   &e->temp_dc, &e->read_ns, &e->flags) != 10) {
			fprintf(stderr, "# unparsed: %s", line);
			free(evs);
			return -1;
		}
		e->ts = trace_line_ts(line, p);
		e->start = e->ts - e->read_ns / 1e9;
		n++;
	}
	*out = evs;
	return n;
}

/* Battery events in a tracefs trace file (top level or an instance's). */
static inline int trace_file_events(const char *path, struct battery_ev **out)
{
	FILE *f = fopen(path, "r");
	int n;

	*out = NULL;
	if (!f)
		return -1;
	n = read_battery_events(f, out);
	fclose(f);
	return n;
}

/* Battery events of a command's output (trace-cmd report, perf script). */
static inline int command_events(const char *cmd, struct battery_ev **out)
{
	FILE *f = popen(cmd, "r");
	int n, rc;

	*out = NULL;
	if (!f)
		return -1;
	n = read_battery_events(f, out);
	rc = pclose(f);
	return rc ? -1 : n;
}

/* Lines of a command's output that contain @needle; -1 if it failed. */
static inline int command_count(const char *cmd, const char *needle)
{
	FILE *f = popen(cmd, "r");
	char line[1024];
	int n = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, needle))
			n++;
	return pclose(f) ? -1 : n;
}

/*
 * Top-level tracing as every sampler test starts it: off, empty, on a clock
 * whose timestamps trace_line_ts() gives on CLOCK_MONOTONIC (trace_clock.h).
 */
static inline int tracing_reset(void)
{
	return write_str(TRACING "/tracing_on", "0") ||
	       write_str(TRACING "/events/enable", "0") ||
	       trace_clock_use_mono(TRACING) ||
	       write_str(TRACING "/trace", "");
}

/*
 * Why perf cannot record powerpin:powerpin_battery here (NULL: it can).  perf 6.x
 * records with a "dummy" software event that 3.10 does not have.
 */
static inline const char *perf_cannot_record(void)
{
	if (system("perf version >/dev/null 2>&1"))
		return "perf is not installed (linux-perf)";
	if (system("perf record -q -a -e powerpin:powerpin_battery -o /dev/null -- true 2>&1 |"
		   " grep -q 'event is not supported'") == 0)
		return "this perf cannot record on this kernel";
	return NULL;
}

/*
 * modprobe @name from the guest kernel's own module tree (vm-run keeps it
 * in the cache, as scripts/guest-init does).  0, or the exit status.
 */
static inline int guest_modprobe(const char *args)
{
	const char *cache = getenv("PP_CACHE"), *kver = getenv("PP_KVER");
	char cmd[512];

	if (!cache || !kver)
		return -1;
	snprintf(cmd, sizeof(cmd), "modprobe -d %s/kernel-%s/root %s 2>&1",
		 cache, kver, args);
	return system(cmd);
}

/* Whether module @name is built into the guest kernel (cannot be removed). */
static inline int guest_module_builtin(const char *name)
{
	const char *cache = getenv("PP_CACHE"), *kver = getenv("PP_KVER");
	char path[512], line[512], want[128];
	int found = 0;
	FILE *f;

	if (!cache || !kver)
		return 0;
	snprintf(path, sizeof(path), "%s/kernel-%s/root/lib/modules/%s/modules.builtin",
		 cache, kver, kver);
	f = fopen(path, "r");
	if (!f)
		return 0;
	/* module names have '_' where their files may have '-' (hid-generic) */
	snprintf(want, sizeof(want), "/%s.ko", name);
	for (char *c = want; *c; c++)
		*c = *c == '-' ? '_' : *c;
	while (!found && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		for (char *c = line; *c; c++)
			*c = *c == '-' ? '_' : *c;
		found = strlen(line) >= strlen(want) &&
			!strcmp(line + strlen(line) - strlen(want), want);
	}
	fclose(f);
	return found;
}

#endif /* POWERPIN_SAMPLER_HELPERS_H */
