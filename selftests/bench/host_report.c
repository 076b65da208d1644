// SPDX-License-Identifier: GPL-2.0
/*
 * bench report: a generated one-hour capture (100 Hz powerpin:battery, 2
 * CPUs switching 400 times a second between a few tasks, atrace slices) in
 * trace.dat form, reported to JSON by `powerpin report`, against the usual
 * ad-hoc route: `trace-cmd report` of the same file piped into awk summing
 * voltage x current over the timestamps.  Wall time and peak RSS of each.
 *
 *   bench report: speedup X (adhoc/powerpin)
 *   bench report: target speedup >= 5: met|missed
 *   bench report: target peak RSS < 64 MiB: met|missed
 *   bench report: energy check: ...
 *   bench report outputs: text / html / perfetto / chrome-json: time, size, ratios
 *   bench report html: load and redraw in headless chromium (when installed)
 *
 * The targets are reported, not enforced: timings on a shared machine
 * vary.  The two energies must agree within 0.1%, or the benchmark fails:
 * that is a correctness check of the report against an independent sum.
 *
 * POWERPIN_BENCH_SECONDS shortens the capture (default 3600);
 * POWERPIN_BENCH_KEEP=1 keeps the capture and the outputs (the directory
 * is printed).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "report_tracedat.h"

#define POWERPIN	"build/bin/powerpin"
#define SWITCH_HZ	200	/* per CPU */
#define TARGET_SPEEDUP	5.0
#define TARGET_RSS_MIB	64.0
#define ENERGY_TOL	0.001	/* relative */

static unsigned long samples_written;

static const char *const tasks[] = { "swapper", "surfaceflinger", "RenderThread", "kworker/0:1",
				     "binder:501_2", "app_main", "audio_hal" };

static int generate(const char *path, unsigned int seconds)
{
	uint64_t t0 = 100ULL * 1000000000ULL, ns_end = t0 + (uint64_t)seconds * 1000000000ULL;
	uint64_t next_power = t0, next_switch[2] = { t0, t0 + 1234567 }, next_slice = t0;
	int64_t charge_nah = 3000000000LL;
	uint64_t seq = 0;
	int cur[2] = { 0, 0 }, slice_open = 0;
	unsigned int rnd = 12345;
	struct tdat w;
	int i;

	if (tdat_open(&w, 2))
		return -1;
	for (i = 1; i < (int)(sizeof(tasks) / sizeof(tasks[0])); i++)
		tdat_comm(&w, 1000 + i, tasks[i]);
	tdat_comm(&w, 77, "powerpin-sample");
	for (;;) {
		uint64_t t = next_power;
		int kind = 0, cpu = 0;

		for (i = 0; i < 2; i++)
			if (next_switch[i] < t) {
				t = next_switch[i];
				kind = 1;
				cpu = i;
			}
		if (next_slice < t) {
			t = next_slice;
			kind = 2;
			cpu = 1;
		}
		if (t >= ns_end)
			break;
		rnd = rnd * 1103515245 + 12345;
		if (kind == 0) {
			/* current follows how many CPUs are busy */
			int64_t ua = -150000 - 600000 * (!!cur[0] + !!cur[1]) -
				     (int64_t)((rnd >> 16) % 20000);
			int64_t uv = 4100000 + ua / 10;

			charge_nah += ua / 360;		/* 10 ms of it */
			tdat_battery(&w, 0, t, 77, (uint32_t)seq++, uv, ua, charge_nah / 1000, 0);
			samples_written++;
			next_power += 10000000;
		} else if (kind == 1) {
			int next = (rnd >> 16) % (sizeof(tasks) / sizeof(tasks[0]));

			if (next == cur[cpu])
				next = (next + 1) % (sizeof(tasks) / sizeof(tasks[0]));
			tdat_switch(&w, cpu, t, tasks[cur[cpu]], cur[cpu] ? 1000 + cur[cpu] : 0,
				    tasks[next], next ? 1000 + next : 0);
			cur[cpu] = next;
			next_switch[cpu] += 1000000000 / SWITCH_HZ / 2 + (rnd >> 8) % (1000000000 / SWITCH_HZ);
		} else {
			tdat_print(&w, 1, t, 1005, slice_open ? "E|1005" : "B|1005|frame");
			slice_open = !slice_open;
			next_slice += slice_open ? 8000000 : 8666667;
		}
	}
	return tdat_close(&w, path);
}

struct run {
	double wall_s;
	long maxrss_kb;
	int status;
};

static int timed(const char *cmd, struct run *out)
{
	struct timespec a, b;
	struct rusage ru;
	pid_t pid;

	clock_gettime(CLOCK_MONOTONIC, &a);
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	if (wait4(pid, &out->status, 0, &ru) != pid)
		return -1;
	clock_gettime(CLOCK_MONOTONIC, &b);
	out->wall_s = (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9;
	/* the shell's figure covers the children it waited for: max over the pipeline */
	out->maxrss_kb = ru.ru_maxrss;
	return 0;
}

static double json_energy(const char *path)
{
	char line[512];
	double e = NAN;
	FILE *f = fopen(path, "r");

	if (!f)
		return NAN;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "  \"energy_j\": %lf", &e) == 1)
			break;
	fclose(f);
	return e;
}

static long file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) ? -1 : (long)st.st_size;
}

/*
 * Each output on its own, against the text report of the same capture (the
 * text summary is printed by every run; the others add the second pass).
 */
static int bench_outputs(const char *dat, const char *dir)
{
	static const struct { const char *name, *opt, *file; } outs[] = {
		{ "html", "--html", "report.html" },
		{ "perfetto", "--perfetto", "trace.pftrace" },
		{ "chrome-json", "--chrome-json", "trace.json" },
	};
	char cmd[1024], path[160], text[160];
	struct run base, r;
	size_t k;

	snprintf(text, sizeof(text), "%s/report.txt", dir);
	snprintf(cmd, sizeof(cmd), "%s report %s > %s", POWERPIN, dat, text);
	if (timed(cmd, &base) || !WIFEXITED(base.status) || WEXITSTATUS(base.status))
		return -1;
	printf("bench report outputs: text %.2f s, peak %.1f MiB, %ld bytes\n", base.wall_s,
	       base.maxrss_kb / 1024.0, file_size(text));
	for (k = 0; k < sizeof(outs) / sizeof(outs[0]); k++) {
		snprintf(path, sizeof(path), "%s/%s", dir, outs[k].file);
		snprintf(cmd, sizeof(cmd), "%s report %s %s %s >/dev/null", POWERPIN, dat, outs[k].opt,
			 path);
		if (timed(cmd, &r) || !WIFEXITED(r.status) || WEXITSTATUS(r.status))
			return -1;
		printf("bench report outputs: %s %.2f s (%.1fx the text report), peak %.1f MiB, %.1f MiB (%.1f bytes per sample)\n",
		       outs[k].name, r.wall_s, r.wall_s / base.wall_s, r.maxrss_kb / 1024.0,
		       file_size(path) / 1048576.0, file_size(path) / (double)samples_written);
	}
	/* the page in a browser: load with the first drawing, and one redraw */
	if (!system("command -v chromium >/dev/null && command -v python3 >/dev/null")) {
		char out[160], line[512];
		double load = NAN, redraw = NAN;
		int errors = -1;
		FILE *f;

		snprintf(out, sizeof(out), "%s/probe.txt", dir);
		snprintf(cmd, sizeof(cmd), "mkdir -p %s/probe && timeout 600 python3 selftests/host/html_probe.py %s/report.html %s/probe > %s 2>/dev/null",
			 dir, dir, dir, out);
		if (system(cmd) || !(f = fopen(out, "r"))) {
			printf("bench report html: the chromium run failed\n");
			return 0;
		}
		while (fgets(line, sizeof(line), f)) {
			sscanf(line, "load_ms=%lf", &load);
			sscanf(line, "redraw_ms=%lf", &redraw);
			sscanf(line, "console_errors=%d", &errors);
		}
		fclose(f);
		printf("bench report html: headless chromium loads and draws the page in %.0f ms, redraws every plot in %.1f ms, %d console errors\n",
		       load, redraw, errors);
	}
	return 0;
}

int main(void)
{
	char dir[] = "/tmp/powerpin-bench-XXXXXX", dat[96], json[96], adhoc[96], cmd[1024];
	const char *env = getenv("POWERPIN_BENCH_SECONDS");
	unsigned int seconds = env ? (unsigned int)atoi(env) : 3600;
	struct run pp, ah;
	struct stat st;
	double e_adhoc = NAN, e_pp, speedup, rss_mib;
	FILE *f;
	int ret = 1;

	if (access(POWERPIN, X_OK)) {
		fprintf(stderr, "bench report: %s not built (make userspace)\n", POWERPIN);
		return 1;
	}
	if (system("command -v trace-cmd >/dev/null")) {
		fprintf(stderr, "bench report: trace-cmd missing\n");
		return 1;
	}
	if (!mkdtemp(dir))
		return 1;
	snprintf(dat, sizeof(dat), "%s/capture.dat", dir);
	snprintf(json, sizeof(json), "%s/report.json", dir);
	snprintf(adhoc, sizeof(adhoc), "%s/adhoc.txt", dir);
	if (generate(dat, seconds) || stat(dat, &st)) {
		fprintf(stderr, "bench report: cannot write %s: %s\n", dat, strerror(errno));
		goto out;
	}
	printf("bench report: capture %u s, %.1f MiB trace.dat\n", seconds,
	       st.st_size / 1048576.0);

	snprintf(cmd, sizeof(cmd), "%s report %s --json %s >/dev/null", POWERPIN, dat, json);
	if (timed(cmd, &pp) || !WIFEXITED(pp.status) || WEXITSTATUS(pp.status)) {
		fprintf(stderr, "bench report: powerpin report failed\n");
		goto out;
	}
	/* the ad-hoc route: trapezoid of voltage x current over report's timestamps */
	snprintf(cmd, sizeof(cmd),
		 "trace-cmd report -i %s 2>/dev/null | awk '/ battery: / {"
		 " t = $3; sub(/:$/, \"\", t); v = 0; c = 0;"
		 " for (i = 4; i <= NF; i++) { if ($i ~ /^voltage_uv=/) v = substr($i, 12);"
		 " else if ($i ~ /^current_ua=/) c = substr($i, 12) }"
		 " p = -v * c / 1e12; if (n++) e += (p + lp) / 2 * (t - lt); lp = p; lt = t }"
		 " END { printf \"%%.6f\\n\", e }' > %s", dat, adhoc);
	if (timed(cmd, &ah) || !WIFEXITED(ah.status) || WEXITSTATUS(ah.status)) {
		fprintf(stderr, "bench report: trace-cmd report | awk failed\n");
		goto out;
	}
	f = fopen(adhoc, "r");
	if (!f || fscanf(f, "%lf", &e_adhoc) != 1)
		e_adhoc = NAN;
	if (f)
		fclose(f);
	e_pp = json_energy(json);

	printf("bench report: powerpin report %.2f s, peak %.1f MiB; trace-cmd report | awk %.2f s, peak %.1f MiB\n",
	       pp.wall_s, pp.maxrss_kb / 1024.0, ah.wall_s, ah.maxrss_kb / 1024.0);
	printf("bench report: energy %.3f J (powerpin), %.3f J (awk)\n", e_pp, e_adhoc);
	speedup = ah.wall_s / pp.wall_s;
	rss_mib = pp.maxrss_kb / 1024.0;
	printf("bench report: speedup %.1f (adhoc/powerpin)\n", speedup);
	printf("bench report: target speedup >= %.0f: %s (%.1f)\n", TARGET_SPEEDUP,
	       speedup >= TARGET_SPEEDUP ? "met" : "missed", speedup);
	printf("bench report: target peak RSS < %.0f MiB: %s (%.1f MiB)\n", TARGET_RSS_MIB,
	       rss_mib < TARGET_RSS_MIB ? "met" : "missed", rss_mib);
	if (!isfinite(e_pp) || !isfinite(e_adhoc) ||
	    fabs(e_pp - e_adhoc) > ENERGY_TOL * fabs(e_adhoc)) {
		printf("bench report: energy check: FAILED, powerpin %.6f J and awk %.6f J differ by more than %.1f%%\n",
		       e_pp, e_adhoc, ENERGY_TOL * 100);
		goto out;
	}
	printf("bench report: energy check: agree within %.1f%% (difference %.2g%%)\n",
	       ENERGY_TOL * 100, fabs(e_pp - e_adhoc) / fabs(e_adhoc) * 100);
	if (bench_outputs(dat, dir)) {
		fprintf(stderr, "bench report: an output run failed\n");
		goto out;
	}
	ret = 0;
out:
	if (getenv("POWERPIN_BENCH_KEEP")) {
		printf("bench report: kept %s\n", dir);
		return ret;
	}
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		fprintf(stderr, "bench report: could not remove %s\n", dir);
	return ret;
}
