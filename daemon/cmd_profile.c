// SPDX-License-Identifier: GPL-2.0
/*
 * powerpin profile: calibrate the device's CPU power profile against its own
 * fuel gauge (docs/profile.md).  Runs the plan of profile.h's steps while
 * capturing the way `powerpin record` does, then fits the currents and
 * writes power_profile.xml.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <tracefs.h>

#include "commands.h"
#include "capture/capture.h"
#include "base/base.h"
#include "profile/profile.h"

/*
 * Where /sys, /proc and /system are: "/", or for the tests a fake tree
 * named by POWERPIN_PROFILE_SYSROOT (docs/profile.md).
 */
#define SYSROOT		profile_sysroot()
/* the measured part of a step holds at least this many gauge refreshes */
#define MIN_REFRESHES	5
/* "re-measuring step 4 of 9 (residual +23.5 mA)" */
#define LABEL_LEN	128

static const char *profile_sysroot(void)
{
	const char *root = getenv("POWERPIN_PROFILE_SYSROOT");

	return root && *root ? root : "/";
}

struct profile_opts {
	int rounds;
	double duration_s;
	double settle_s;		/* < 0: the default for duration_s */
	bool dry_run;
	bool quiet;
	const char *output;
	const char *json;
	enum profile_xml_format format;
};

static void profile_usage(FILE *out)
{
	fprintf(out,
		"usage: powerpin profile [--steps N] [--duration SECONDS] [--settle SECONDS]\n"
		"                        [-o FILE] [--json [FILE]] [--format auto|5|6|9|14]\n"
		"                        [--dry-run] [-q]\n\n"
		"Measure the CPU power profile from the fuel gauge: all CPUs idle, then 1..N\n"
		"CPUs spinning (each thread pinned to its CPU), for every cpufreq policy at\n"
		"every available frequency (pinned through the userspace governor or\n"
		"min = max, put back at the end, on Ctrl-C, SIGTERM and SIGHUP too).  Captures\n"
		"through powerpin.ko as `powerpin record` does, fits the currents by least\n"
		"squares with a 95%% interval each (Student's t), prints a table and writes\n"
		"Android's power_profile.xml (mA).  Needs root.  docs/profile.md\n\n"
		"  -n, --steps N           rounds of the plan (default 2); each round moves\n"
		"                          the busy CPUs one CPU on; more rounds, narrower\n"
		"                          intervals\n"
		"  -d, --duration SECONDS  length of each step (default 5)\n"
		"  -s, --settle SECONDS    discarded at the start of each step (default the\n"
		"                          larger of 0.6 s and a fifth of the step); the rest\n"
		"                          must hold %d gauge refreshes (%.2f s)\n"
		"  -o, --output FILE       power_profile.xml (default); \"-\" is stdout, the\n"
		"                          table then goes to stderr\n"
		"  -j, --json [FILE]       also the steps and the fit as JSON (\"-\" or none:\n"
		"                          stdout)\n"
		"  -f, --format auto|5|6|9|14\n"
		"                          the power_profile.xml keys of Android 5 (5.1 and\n"
		"                          earlier), 6 (6.0-8.1), 9 (9-13) or 14 (14 and later);\n"
		"                          auto (default): from ro.build.version.sdk in\n"
		"                          /system/build.prop, 9 where there is none\n"
		"      --dry-run           print the plan and its total time; touch nothing\n"
		"  -q, --quiet             no progress line (it is shown only when stderr is a\n"
		"                          terminal)\n"
		"  -h, --help              this help\n",
		MIN_REFRESHES, MIN_REFRESHES * PROFILE_GAUGE_REFRESH_S);
}

static int parse_seconds(const char *opt, const char *s, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(*v) || *v < 0 || *v > 86400) {
		fprintf(stderr, "powerpin profile: invalid %s '%s': expected seconds, 0 to 86400\n",
			opt, s);
		return -1;
	}
	return 0;
}

static int parse_rounds(const char *s, int *rounds)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 1 || v > 1000) {
		fprintf(stderr, "powerpin profile: invalid --steps '%s': expected 1 to 1000 rounds\n",
			s);
		return -1;
	}
	*rounds = v;
	return 0;
}

/* The step's length and settling against each other and the gauge. */
static int check_times(struct profile_opts *o)
{
	double need = MIN_REFRESHES * PROFILE_GAUGE_REFRESH_S;

	if (o->settle_s < 0)
		o->settle_s = fmax(0.6, o->duration_s / 5);
	if (o->duration_s - o->settle_s < need) {
		fprintf(stderr,
			"powerpin profile: a step of %.2f s less %.2f s settling leaves under %.2f s (%d gauge refreshes) to measure\n",
			o->duration_s, o->settle_s, need, MIN_REFRESHES);
		return -1;
	}
	if (o->output && o->json && output_is_stdout(o->output) && output_is_stdout(o->json)) {
		fprintf(stderr, "powerpin profile: --output and --json cannot both be stdout\n");
		return -1;
	}
	if (o->json && !strcmp(o->output, o->json)) {
		fprintf(stderr, "powerpin profile: --output and --json name the same file\n");
		return -1;
	}
	return 0;
}

/* Returns -1 to go on, else the exit status. */
static int profile_parse(int argc, char **argv, struct profile_opts *o)
{
	static const struct option opts[] = {
		{ "steps", required_argument, NULL, 'n' },
		{ "duration", required_argument, NULL, 'd' },
		{ "settle", required_argument, NULL, 's' },
		{ "output", required_argument, NULL, 'o' },
		{ "json", required_argument, NULL, 'j' },
		{ "format", required_argument, NULL, 'f' },
		{ "dry-run", no_argument, NULL, 'D' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	int c, bad = 0;

	*o = (struct profile_opts){ .rounds = 2, .duration_s = 5, .settle_s = -1,
				    .output = "power_profile.xml" };
	opterr = 0;
	json_option_normalize(argc, argv, true);
	while (!bad && (c = getopt_long(argc, argv, ":n:d:s:o:j:f:qh", opts, NULL)) != -1) {
		switch (c) {
		case 'n':
			bad = parse_rounds(optarg, &o->rounds);
			break;
		case 'd':
			bad = parse_seconds("--duration", optarg, &o->duration_s);
			break;
		case 's':
			bad = parse_seconds("--settle", optarg, &o->settle_s);
			break;
		case 'o':
		case 'j':
			if (!*optarg) {
				fprintf(stderr, "powerpin profile: empty %s\n",
					c == 'o' ? "--output" : "--json");
				return 2;
			}
			*(c == 'o' ? &o->output : &o->json) = optarg;
			break;
		case 'f':
			if (profile_format_parse(optarg, &o->format)) {
				fprintf(stderr, "powerpin profile: invalid --format '%s': expected 5, 6, 9, 14 or auto\n",
					optarg);
				return 2;
			}
			break;
		case 'D':
			o->dry_run = true;
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'h':
			profile_usage(stdout);
			return 0;
		case ':':
			fprintf(stderr, "powerpin profile: %s needs a value (try --help)\n",
				argv[optind - 1]);
			return 2;
		default:
			if (optopt)
				fprintf(stderr, "powerpin profile: unknown option '-%c' (try --help)\n",
					optopt);
			else
				fprintf(stderr, "powerpin profile: unknown option '%s' (try --help)\n",
					argv[optind - 1]);
			return 2;
		}
	}
	if (bad)
		return 2;
	if (optind < argc) {
		fprintf(stderr, "powerpin profile: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	return check_times(o) ? 2 : -1;
}

/* ---- running the plan ---------------------------------------------------- */

static volatile sig_atomic_t profile_stop;
#define NSTOPS	4		/* the stop signals: stop_signals[] */
static atomic_int spin_stop;

static void on_stop_signal(int sig)
{
	profile_stop = sig;
}

struct spinner {
	pthread_t thread;
	int cpu;
	int error;		/* sched_setaffinity's errno */
	bool started;
};

/* The fixed load: an LCG step, over and over, on one CPU. */
static void *spin(void *arg)
{
	struct spinner *s = arg;
	volatile unsigned int x = 1;
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(s->cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		s->error = errno;
	while (!atomic_load_explicit(&spin_stop, memory_order_relaxed))
		x = x * 1664525u + 1013904223u;
	return NULL;
}

struct run {
	const struct profile_opts *o;
	const struct profile_topology *topo;
	const struct profile_plan *plan;
	struct profile_measure *m;
	struct pp_capture *cap;
	int marker_fd;
	bool progress;
	char (*labels)[LABEL_LEN];	/* the steps' progress labels, NULL: "step i/n" */
	double t_end;			/* when the last step ends (CLOCK_MONOTONIC) */
	/* the load of the CPU-time window, in intervals of a gauge refresh */
	bool measuring;
	double stat_t;			/* when busy/total were read */
	uint64_t busy[PROFILE_MAX_CPUS], total[PROFILE_MAX_CPUS];
	double load_sum[PROFILE_MAX_CLUSTERS];	/* busy CPU-equivalents x seconds */
	double load_s;
	struct spinner spinners[PROFILE_MAX_CPUS];
};

static double mono_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static void progress(struct run *run, int i, double now)
{
	char desc[256];

	profile_step_describe(run->topo, &run->plan->steps[i], desc, sizeof(desc));
	if (run->labels)
		fprintf(stderr, "\r\033[Kprofile: %s: %s; %.0f s left", run->labels[i], desc,
			fmax(0, run->t_end - now));
	else
		fprintf(stderr, "\r\033[Kprofile: step %d/%d: %s; %.0f s left", i + 1,
			run->plan->nsteps, desc, fmax(0, run->t_end - now));
}

static int load_sample(struct run *run, double now);

/* Sleep until @until, draining the capture; -1 on a stop signal or a drain error. */
static int wait_until(struct run *run, int step, double until)
{
	double now, last = 0;

	while (!profile_stop && (now = mono_s()) < until) {
		double nap = fmin(0.1, until - now);
		struct timespec ts = { 0, (long)(nap * 1e9) };

		if (pp_capture_drain(run->cap) < 0) {
			fprintf(stderr, "\npowerpin profile: writing the capture failed: %s\n",
				strerror(errno));
			return -1;
		}
		if (run->measuring && now - run->stat_t >= PROFILE_GAUGE_REFRESH_S &&
		    load_sample(run, now))
			return -1;
		if (run->progress && now - last >= 0.5) {
			progress(run, step, now);
			last = now;
		}
		nanosleep(&ts, NULL);
	}
	return profile_stop ? -1 : 0;
}

static int start_spinners(struct run *run, const struct profile_step *s)
{
	sigset_t all, old;
	int j, ret = 0;

	atomic_store(&spin_stop, 0);
	sigfillset(&all);
	/* signals go to the main thread, which sleeps and can act on them */
	pthread_sigmask(SIG_BLOCK, &all, &old);
	for (j = 0; j < s->nbusy && !ret; j++) {
		struct spinner *sp = &run->spinners[j];

		*sp = (struct spinner){ .cpu = profile_step_cpu(run->topo, s, j) };
		ret = pthread_create(&sp->thread, NULL, spin, sp);
		sp->started = !ret;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret)
		fprintf(stderr, "\npowerpin profile: cannot start a busy thread: %s\n",
			strerror(ret));
	return ret ? -1 : 0;
}

/* Stop and join the spinners; -1 if one could not be pinned to its CPU. */
static int stop_spinners(struct run *run, const struct profile_step *s)
{
	int j, ret = 0;

	atomic_store(&spin_stop, 1);
	for (j = 0; j < s->nbusy; j++) {
		struct spinner *sp = &run->spinners[j];

		if (!sp->started)
			continue;
		pthread_join(sp->thread, NULL);
		sp->started = false;
		if (sp->error && !ret) {
			fprintf(stderr, "\npowerpin profile: cannot pin a thread to CPU %d: %s\n",
				sp->cpu, strerror(sp->error));
			ret = -1;
		}
	}
	return ret;
}

static int pin_frequencies(struct run *run, const struct profile_step *s)
{
	int c;

	for (c = 0; c < run->topo->nclusters; c++)
		if (profile_freq_set(SYSROOT, run->topo, c, profile_step_freq(s, c))) {
			fprintf(stderr, "\npowerpin profile: cannot pin %s to %u kHz: %s\n",
				run->topo->cluster[c].policy,
				run->topo->cluster[c].freqs_khz[profile_step_freq(s, c)],
				strerror(errno));
			return -1;
		}
	return 0;
}

/*
 * Add the load since the last reading, weighted by wall time.  Each
 * interval's load is its busy time over its accounted time, so time a
 * hypervisor (or a lost tick) took from a CPU counts for neither; the
 * intervals are a gauge refresh long, the emulator's windows.
 */
static int load_sample(struct run *run, double now)
{
	static uint64_t busy[PROFILE_MAX_CPUS], total[PROFILE_MAX_CPUS];
	double load[PROFILE_MAX_CLUSTERS];
	int c;

	if (profile_cpu_times(SYSROOT, busy, total)) {
		fprintf(stderr, "\npowerpin profile: cannot read /proc/stat: %s\n",
			strerror(errno));
		return -1;
	}
	if (run->measuring) {
		profile_cluster_busy(run->topo, run->busy, run->total, busy, total, load);
		for (c = 0; c < run->topo->nclusters; c++)
			run->load_sum[c] += load[c] * (now - run->stat_t);
		run->load_s += now - run->stat_t;
	}
	memcpy(run->busy, busy, sizeof(busy));
	memcpy(run->total, total, sizeof(total));
	run->stat_t = now;
	return 0;
}

static int load_start(struct run *run)
{
	memset(run->load_sum, 0, sizeof(run->load_sum));
	run->load_s = 0;
	run->measuring = false;
	if (load_sample(run, mono_s()))
		return -1;
	run->measuring = true;
	return 0;
}

static int load_finish(struct run *run, double *busy)
{
	int c;

	if (load_sample(run, mono_s()))
		return -1;
	run->measuring = false;
	for (c = 0; c < run->topo->nclusters; c++)
		busy[c] = run->load_s > 0 ? run->load_sum[c] / run->load_s : 0;
	return 0;
}

/* Mark one end of step @i's gauge window in the capture. */
static int mark(struct run *run, const char *what, int i)
{
	if (dprintf(run->marker_fd, "%s%d\n", what, i + 1) >= 0)
		return 0;
	fprintf(stderr, "\npowerpin profile: cannot write trace_marker: %s\n", strerror(errno));
	return -1;
}

/* How long the device has been suspended since boot, in s. */
static double suspended_s(void)
{
	struct timespec b, m;

	clock_gettime(CLOCK_BOOTTIME, &b);
	clock_gettime(CLOCK_MONOTONIC, &m);
	return (b.tv_sec - m.tv_sec) + (b.tv_nsec - m.tv_nsec) / 1e9;
}

static int run_step(struct run *run, int i)
{
	const struct profile_step *s = &run->plan->steps[i];
	double t0 = mono_s(), settle = run->plan->settle_s, end = run->plan->duration_s;
	double asleep0 = suspended_s();
	double lag = fmin(PROFILE_GAUGE_REFRESH_S, settle);
	int ret = -1;

	if (pin_frequencies(run, s) || start_spinners(run, s))
		goto out;
	/*
	 * A gauge reading averages the refresh period before the refresh that
	 * made it: on average it is one period late.  The gauge's window
	 * (between the markers) trails the CPU-time window by that much.
	 */
	if (wait_until(run, i, t0 + settle - lag) ||
	    load_start(run) ||
	    wait_until(run, i, t0 + settle) ||
	    mark(run, PROFILE_MARK_BEGIN, i) ||
	    wait_until(run, i, t0 + end - lag) ||
	    load_finish(run, run->m[i].busy) ||
	    wait_until(run, i, t0 + end) ||
	    mark(run, PROFILE_MARK_END, i))
		goto out;
	/* profile_read_capture() fills the rest of m[i] later, not this */
	run->m[i].suspended_s = suspended_s() - asleep0;
	ret = 0;
out:
	if (stop_spinners(run, s))
		ret = -1;
	return ret;
}

static int run_plan(struct run *run)
{
	int i;

	run->t_end = mono_s() + run->plan->nsteps * run->plan->duration_s;
	for (i = 0; i < run->plan->nsteps; i++)
		if (run_step(run, i))
			break;
	if (run->progress)
		fputs("\r\033[K", stderr);
	return i == run->plan->nsteps ? 0 : -1;
}

/* ---- the capture around the plan ---------------------------------------- */

struct session {
	int lock;
	struct pp_genl *g;
	struct pp_events_saved *events;
	int was_on;
	struct profile_freq_saved *freq;
	struct sigaction old_int, old_term;
	char dir[256];			/* temporary directory of the capture */
	char path[300];			/* the capture in it */
};

static int check_access(void)
{
	if (!tracefs_tracing_dir()) {
		fprintf(stderr, "powerpin profile: tracefs is not mounted (mount -t tracefs nodev /sys/kernel/tracing)\n");
		return -1;
	}
	if (access(tracefs_tracing_dir(), W_OK)) {
		fprintf(stderr, "powerpin profile: no write access to %s: %s (run as root)\n",
			tracefs_tracing_dir(), strerror(errno));
		return -1;
	}
	return 0;
}

/* The module, its supply, the capture lock, a temporary directory. */
static int session_open(struct session *ss)
{
	struct pp_status st;

	ss->lock = pp_capture_lock();
	if (ss->lock < 0) {
		if (errno == EWOULDBLOCK)
			fprintf(stderr, "powerpin profile: another capture (powerpind or powerpin record) is reading the ring buffer; try again when it ends\n");
		else
			fprintf(stderr, "powerpin profile: cannot take the capture lock in %s: %s\n",
				pp_run_dir(), strerror(errno));
		return -1;
	}
	ss->g = pp_genl_open();
	if (!ss->g || pp_genl_get_status(ss->g, &st)) {
		fprintf(stderr, "powerpin profile: powerpin.ko is not loaded or does not answer: %s\n",
			strerror(errno));
		return -1;
	}
	snprintf(ss->dir, sizeof(ss->dir), "%s/powerpin-profile.XXXXXX", pp_tmp_dir());
	if (!mkdtemp(ss->dir)) {
		fprintf(stderr, "powerpin profile: cannot make a temporary directory %s: %s\n",
			ss->dir, strerror(errno));
		ss->dir[0] = '\0';
		return -1;
	}
	snprintf(ss->path, sizeof(ss->path), "%s/capture.dat", ss->dir);
	return 0;
}

/* Everything session_open and capture_plan changed, back as it was. */
static void session_close(struct session *ss)
{
	if (ss->freq && profile_freq_restore(SYSROOT, ss->freq))
		fprintf(stderr, "powerpin profile: warning: cannot restore every cpufreq policy: %s\n",
			strerror(errno));
	profile_freq_free(ss->freq);
	if (ss->events) {
		if (ss->was_on > 0)
			tracefs_trace_on(NULL);
		else
			tracefs_trace_off(NULL);
		pp_events_restore(ss->events);
	}
	if (ss->dir[0]) {
		unlink(ss->path);
		rmdir(ss->dir);
	}
	pp_genl_close(ss->g);
	pp_capture_unlock(ss->lock);
	sigaction(SIGINT, &ss->old_int, NULL);
	sigaction(SIGTERM, &ss->old_term, NULL);
}

/* Events on, cpufreq saved, the ring buffer cleared and a capture started. */
static struct pp_capture *capture_start(struct session *ss, const struct profile_topology *t)
{
	struct pp_capture *cap;
	bool missing;
	char err[512];

	ss->events = pp_events_enable(&missing);
	if (!ss->events || missing) {
		fprintf(stderr, "powerpin profile: cannot enable the powerpin events: %s\n",
			missing ? "no powerpin events in tracefs" : strerror(errno));
		return NULL;
	}
	ss->freq = profile_freq_save(SYSROOT, t);
	if (!ss->freq) {
		fprintf(stderr, "powerpin profile: cannot read the cpufreq policies: %s\n",
			strerror(errno));
		return NULL;
	}
	ss->was_on = tracefs_trace_is_on(NULL);
	tracefs_trace_off(NULL);
	pp_trace_clear();
	cap = pp_capture_start(ss->path, "none", err, sizeof(err));
	if (!cap)
		fprintf(stderr, "powerpin profile: %s\n", err);
	else
		tracefs_trace_on(NULL);
	return cap;
}

/*
 * Run the plan under a capture and read the gauge's steps back into @m.
 * Returns 0, -1 after a message, or 128 + N when signal N stopped it.
 */
static int measure(const struct profile_opts *o, const struct profile_topology *t,
		   const struct profile_plan *plan, struct profile_measure *m,
		   char *supply, size_t supply_len, char (*labels)[LABEL_LEN])
{
	struct sigaction sa = { .sa_handler = on_stop_signal };
	struct session ss = { .lock = -1 };
	struct run run = { .o = o, .topo = t, .plan = plan, .m = m, .marker_fd = -1,
			   .labels = labels };
	struct pp_capture_stats cst;
	struct pp_status st;
	char err[512];
	int ret = -1;

	if (profile_stop)	/* stopped before this capture began */
		return 128 + profile_stop;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &ss.old_int);
	sigaction(SIGTERM, &sa, &ss.old_term);
	pp_tracing_mounts_note();	/* what libtracefs mounts goes at the end */
	if (check_access() || session_open(&ss))
		goto out;
	run.cap = capture_start(&ss, t);
	if (!run.cap)
		goto out;
	run.marker_fd = tracefs_instance_file_open(NULL, "trace_marker", O_WRONLY);
	run.progress = !o->quiet && isatty(STDERR_FILENO);
	if (run.marker_fd < 0)
		fprintf(stderr, "powerpin profile: cannot open trace_marker: %s\n", strerror(errno));
	else if (!run_plan(&run))
		ret = 0;
	tracefs_trace_off(NULL);
	/* the sampler binds its supply once it samples: ask now */
	if (!pp_genl_get_status(ss.g, &st))
		snprintf(supply, supply_len, "%s", st.supply_bound[0] ? st.supply_bound : st.supply);
	if (ret) {
		pp_capture_abort(run.cap);
	} else if (pp_capture_finish(run.cap, -1, &cst, err, sizeof(err)) ||
		   profile_read_capture(ss.path, plan->nsteps, m, err, sizeof(err))) {
		fprintf(stderr, "powerpin profile: %s\n", err);
		ret = -1;
	}
out:
	if (run.marker_fd >= 0)
		close(run.marker_fd);
	session_close(&ss);
	pp_tracing_mounts_undo();
	if (profile_stop) {
		fprintf(stderr, "powerpin profile: stopped by signal %d; cpufreq and tracing put back, nothing written\n",
			(int)profile_stop);
		return 128 + profile_stop;
	}
	return ret;
}

/* ---- fit and outputs ----------------------------------------------------- */

static int fit(const struct profile_plan *plan, const struct profile_measure *m,
	       const struct profile_column *cols, int ncols, struct profile_fit *f)
{
	int n = plan->nsteps, i, bad, ret;
	double *x = malloc((size_t)n * ncols * sizeof(*x));
	double *y = malloc(n * sizeof(*y));
	char name[64];

	if (!x || !y) {
		free(x);
		free(y);
		fprintf(stderr, "powerpin profile: out of memory\n");
		return -1;
	}
	for (i = 0; i < n; i++) {
		profile_design_row(cols, ncols, &plan->steps[i], &m[i], x + (size_t)i * ncols);
		y[i] = m[i].current_ua;
	}
	ret = profile_lsq(x, y, n, ncols, f, &bad);
	if (ret && bad >= 0) {
		profile_column_name(&cols[bad], name, sizeof(name));
		fprintf(stderr, "powerpin profile: the steps cannot tell %s from the other terms (did the busy threads run?)\n",
			name);
	} else if (ret) {
		fprintf(stderr, "powerpin profile: the fit failed: %s\n", strerror(errno));
	}
	free(x);
	free(y);
	return ret;
}

/* Discharge is positive in the profile: flip when the driver counts it negative. */
static double driver_sign(const struct profile_plan *plan, const struct profile_measure *m)
{
	double sum = 0;
	int i;

	for (i = 0; i < plan->nsteps; i++)
		sum += m[i].current_ua;
	return sum < 0 ? -1 : 1;
}

static int write_outputs(const struct profile_opts *o, const struct profile_result *r)
{
	struct output_file xml = { 0 }, json = { 0 };
	const char *failed = o->output;
	bool to_stdout = output_is_stdout(o->output) || (o->json && output_is_stdout(o->json));

	profile_write_table(to_stdout ? stderr : stdout, r);
	if (output_open(&xml, o->output))
		goto fail;
	failed = o->json;
	if (o->json && output_open(&json, o->json)) {
		output_abort(&xml);
		goto fail;
	}
	profile_write_xml(xml.fp, r);
	if (o->json)
		profile_write_json(json.fp, r);
	failed = o->output;
	if (output_commit(&xml)) {
		if (o->json)
			output_abort(&json);
		goto fail;
	}
	failed = o->json;
	if (o->json && output_commit(&json))
		goto fail;
	return fflush(stdout) ? -1 : 0;
fail:
	fprintf(stderr, "powerpin profile: cannot write %s: %s\n", failed, strerror(errno));
	return -1;
}

/* Why step @i is measured again, in words, into @buf. */
static void recheck_reason(const struct profile_result *r, int i, unsigned int why, char *buf,
			   size_t len)
{
	if (why & PROFILE_RECHECK_SUSPEND)
		snprintf(buf, len, "suspended %.1f s", r->measures[i].suspended_s);
	else if (why & PROFILE_RECHECK_RESIDUAL)
		snprintf(buf, len, "residual %+.1f mA", profile_step_residual_ma(r, i));
	else
		snprintf(buf, len, "spread %.1f mA", r->measures[i].spread_ua / 1000);
}

/*
 * The plan of the steps @why names, their labels, and what their first
 * measurement said into @rc.  0, or -1 when out of memory.
 */
static int recheck_plan(const struct profile_opts *o, const struct profile_result *r,
			const unsigned int *why, int n, struct profile_recheck *rc,
			struct profile_plan *sub, char (**labels)[LABEL_LEN])
{
	const struct profile_measure *m = r->measures;
	char reason[64];
	int i, k;

	*sub = *r->plan;
	sub->nsteps = n;
	sub->steps = calloc(n, sizeof(*sub->steps));
	*labels = calloc(n, sizeof(**labels));
	if (!sub->steps || !*labels)
		return -1;
	for (i = k = 0; i < r->plan->nsteps; i++) {
		if (!why[i])
			continue;
		rc[i] = (struct profile_recheck){
			.why = why[i], .first_current_ma = m[i].current_ua * r->sign / 1000,
			.first_residual_ma = profile_step_residual_ma(r, i),
			.first_spread_ma = m[i].spread_ua / 1000,
		};
		sub->steps[k] = r->plan->steps[i];
		recheck_reason(r, i, why[i], reason, sizeof(reason));
		snprintf((*labels)[k], LABEL_LEN, "re-measuring step %d of %d (%s)", i + 1,
			 r->plan->nsteps, reason);
		if (!o->quiet)
			fprintf(stderr, "powerpin profile: re-measuring step %d of %d: %s (bounds %.0f mA residual, %.0f mA spread)\n",
				i + 1, r->plan->nsteps, reason, PROFILE_MAX_RESIDUAL_MA,
				PROFILE_MAX_SPREAD_MA);
		k++;
	}
	return 0;
}

/*
 * Measure the steps out of bounds once more (profile_steps_to_remeasure),
 * put the new measurements in @m and fit again.  Returns 0, -1 after a
 * message, or 128 + N when signal N stopped it.
 */
static int remeasure(const struct profile_opts *o, struct profile_result *r,
		     struct profile_measure *m, struct profile_recheck *rc, struct profile_fit *f,
		     char *supply, size_t supply_len)
{
	unsigned int *why = calloc(r->plan->nsteps, sizeof(*why));
	struct profile_plan sub = { 0 };
	struct profile_measure *sm = NULL;
	char (*labels)[LABEL_LEN] = NULL;
	int i, k, n, ret = -1;

	n = why ? profile_steps_to_remeasure(r, why) : -1;
	if (n > 0 && !recheck_plan(o, r, why, n, rc, &sub, &labels))
		sm = calloc(n, sizeof(*sm));
	if (n < 0 || (n > 0 && !sm)) {
		fprintf(stderr, "powerpin profile: out of memory\n");
		goto out;
	}
	ret = 0;
	if (!n)
		goto out;
	r->first_residual_rms_ma = r->fit->residual_rms / 1000;
	ret = measure(o, r->topo, &sub, sm, supply, supply_len, labels);
	if (ret)
		goto out;
	for (i = k = 0; i < r->plan->nsteps; i++)
		if (why[i])
			m[i] = sm[k++];
	profile_fit_free(f);
	ret = fit(r->plan, m, r->cols, r->ncols, f);
out:
	free(why);
	free(sub.steps);
	free(sm);
	free(labels);
	return ret;
}

/* Fit, re-measure what is out of bounds, write.  0, -1, or 128 + a signal. */
static int analyse(const struct profile_opts *o, const struct profile_topology *t,
		   const struct profile_plan *plan, struct profile_measure *m,
		   char *supply, size_t supply_len)
{
	static struct profile_column cols[PROFILE_MAX_COLUMNS];
	struct profile_recheck *rc = calloc(plan->nsteps, sizeof(*rc));
	struct profile_fit f = { 0 };
	struct profile_result r = {
		.topo = t, .plan = plan, .measures = m, .cols = cols, .fit = &f,
		.supply = supply, .rechecks = rc, .format = o->format,
	};
	int ret = -1;

	r.ncols = profile_columns(t, cols);
	if (!rc)
		fprintf(stderr, "powerpin profile: out of memory\n");
	else if (!fit(plan, m, cols, r.ncols, &f))
		ret = 0;
	if (ret)
		goto out;
	r.sign = driver_sign(plan, m);
	ret = remeasure(o, &r, m, rc, &f, supply, supply_len);
	if (ret)
		goto out;
	r.capacity_mah = profile_capacity_mah(SYSROOT, supply);
	ret = write_outputs(o, &r);
out:
	profile_fit_free(&f);
	free(rc);
	return ret;
}

/*
 * --format auto: the device's Android from ro.build.version.sdk, 9 off
 * Android; then whether the topology fits the format.  0, or -1 after a
 * message.
 */
static int resolve_format(struct profile_opts *o, const struct profile_topology *t)
{
	char err[256];
	int sdk;

	if (o->format == PROFILE_XML_AUTO) {
		sdk = profile_android_sdk(SYSROOT);
		if (sdk < 0) {
			fprintf(stderr, "powerpin profile: cannot read ro.build.version.sdk from /system/build.prop: %s (choose with --format)\n",
				strerror(errno));
			return -1;
		}
		o->format = sdk ? profile_format_for_sdk(sdk) : PROFILE_XML_9;
	}
	if (profile_format_check(t, o->format, err, sizeof(err))) {
		fprintf(stderr, "powerpin profile: %s\n", err);
		return -1;
	}
	return 0;
}

/*
 * Keep the device awake for the run where the kernel has wakelocks, for
 * at most twice the plan (steps measured again) and five minutes more.
 * 1 held, 0 none to hold, -1 after a message.
 */
static int hold_wakelock(const struct profile_plan *plan)
{
	int held = profile_wakelock_hold(SYSROOT, 2 * plan->nsteps * plan->duration_s + 300);

	if (held < 0)
		fprintf(stderr, "powerpin profile: cannot hold the wakelock " PROFILE_WAKELOCK
			" (/sys/power/wake_lock): %s\n", strerror(errno));
	return held;
}

/*
 * From the wakelock to its release, a stop signal (Ctrl-C, kill, the adb
 * shell's hangup, Ctrl-\) ends the run through the same path as an error,
 * so cpufreq, tracing and the wakelock are put back; measure() notices it
 * during a capture, before one it starts none.
 */
static const int stop_signals[NSTOPS] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };

static void stop_signals_catch(struct sigaction *old)
{
	struct sigaction sa = { .sa_handler = on_stop_signal };
	int i;

	profile_stop = 0;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < NSTOPS; i++)
		sigaction(stop_signals[i], &sa, &old[i]);
}

static void stop_signals_restore(const struct sigaction *old)
{
	int i;

	for (i = 0; i < NSTOPS; i++)
		sigaction(stop_signals[i], &old[i], NULL);
}

/* The outputs, checked before minutes of measuring; 0, or -1 with a message. */
static int outputs_check(const struct profile_opts *o)
{
	const char *const out[] = { o->output, o->json };
	size_t i;

	for (i = 0; i < sizeof(out) / sizeof(out[0]); i++)
		if (out[i] && output_check(out[i])) {
			fprintf(stderr, "powerpin profile: %s: %s\n", out[i],
				output_strerror(errno));
			return -1;
		}
	return 0;
}

int cmd_profile(int argc, char **argv)
{
	static struct profile_topology topo;
	char supply[PP_SUPPLY_NAME_MAX] = "";
	struct profile_measure *m;
	struct profile_opts o;
	struct profile_plan plan;
	struct sigaction old[NSTOPS];
	int ret, held;

	ret = profile_parse(argc, argv, &o);
	if (ret >= 0)
		return ret;
	if (profile_topology_read(SYSROOT, &topo)) {
		fprintf(stderr, "powerpin profile: cannot read the CPUs under %s/sys/devices/system/cpu: %s\n",
			strcmp(SYSROOT, "/") ? SYSROOT : "", strerror(errno));
		return 1;
	}
	if (resolve_format(&o, &topo))
		return 1;
	if (profile_plan_build(&topo, o.rounds, o.duration_s, o.settle_s, &plan)) {
		fprintf(stderr, "powerpin profile: out of memory\n");
		return 1;
	}
	if (o.dry_run) {
		profile_plan_print(stdout, &topo, &plan);
		printf("writes power_profile.xml with the keys of %s\n",
		       profile_format_describe(o.format));
		profile_plan_free(&plan);
		return fflush(stdout) ? 1 : 0;
	}
	if (outputs_check(&o)) {
		profile_plan_free(&plan);
		return 1;
	}
	m = calloc(plan.nsteps, sizeof(*m));
	stop_signals_catch(old);
	held = m ? hold_wakelock(&plan) : 0;
	if (!m || held < 0) {
		if (!m)
			fprintf(stderr, "powerpin profile: out of memory\n");
		stop_signals_restore(old);
		free(m);
		profile_plan_free(&plan);
		return 1;
	}
	ret = measure(&o, &topo, &plan, m, supply, sizeof(supply), NULL);
	if (!ret)
		ret = analyse(&o, &topo, &plan, m, supply, sizeof(supply));
	if (ret < 0)
		ret = 1;
	if (profile_stop && ret < 128)
		ret = 128 + profile_stop;
	/* every way out of the run comes here, signals included */
	if (held && profile_wakelock_release(SYSROOT)) {
		fprintf(stderr, "powerpin profile: cannot release the wakelock " PROFILE_WAKELOCK ": %s\n",
			strerror(errno));
		ret = ret ? ret : 1;
	}
	stop_signals_restore(old);
	free(m);
	profile_plan_free(&plan);
	return ret;
}
