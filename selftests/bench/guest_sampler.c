// SPDX-License-Identifier: GPL-2.0
/*
 * guest_sampler: what the in-kernel sampler costs against the route the seed
 * report's Android app took, in the same guest run, on the same supply
 * (max170xx_battery on the emulated gauge).
 *
 *  1. CPU time per sample at a 1 ms period: the powerpin kthread (its
 *     /proc/PID/schedstat run time over the samples it emitted) against a
 *     userspace loop that, at the same absolute 1 ms deadlines, opens and
 *     reads voltage_now, current_now and charge_counter from sysfs and
 *     writes one line to trace_marker (this process's CPU time over its
 *     iterations).  Also the same loop keeping the sysfs files open and
 *     re-reading them with pread(), userspace's best case, and the loop
 *     doing nothing but wake up (the share of the timer wake-up).
 *       bench sampler_cpu: speedup X (userspace/kthread), target >= 10: met|missed
 *       bench sampler_cpu: speedup X (userspace-pread/kthread), target >= 10: met|missed
 *     When the kthread's run time cannot be measured (no schedstat, or no
 *     samples) the ratio is printed as n/a and the target as not measured.
 *
 *  2. Period error over DRIFT seconds at 10 ms: the kthread (absolute
 *     deadlines; interval per deadline from the trace timestamps) against a
 *     relative loop that does the same reads and then sleeps 10 ms, as the
 *     seed's msleep(80) loop did.  Both also get their mean interval between
 *     two samples, (last - first) / (n - 1), against the period: skipped
 *     deadlines make the kthread's longer, the relative loop's is longer by
 *     its own work.
 *       bench sampler_drift: kthread ... relative loop ...
 *       bench sampler_interval: kthread mean X ms, relative loop mean Y ms (period 10 ms)
 *
 *  3. An enabled event with tracing off (a consumer that records nothing,
 *     the state the idle back-off is for): wake-ups per second of the
 *     powerpin-sample thread once IDLE seconds have passed in that state
 *     (its context switches over the next IDLE seconds), and the start
 *     latency then: from tracing_on 1 to the first sample counted.
 *       bench sampler_idle: X wake-ups/s ..., target <= 2: met|missed
 *       bench sampler_start_latency: first sample X ms after tracing_on 1
 *
 *  4. The same consumer in an ftrace instance whose tracing_on is 0 (the
 *     gate then asks the other CPUs with an IPI when its own takes no
 *     write; so does every look on 3.10 to 5.4, where the top-level file
 *     is not known): the IPIs the gate sent per second (its gate_ipis
 *     count: the guest's own function-call IPIs, also printed from
 *     /proc/interrupts, are many more) beside the thread's own wake-ups,
 *     and the start latency from the instance's tracing_on 1.
 *       bench sampler_idle_ipis: X function-call IPIs/s, Y wake-ups/s ...,
 *         target IPIs <= wake-ups: met|missed
 *       bench sampler_instance_start_latency: first sample X ms after ...
 *
 * A benchmark reports; it never fails because a target was missed.
 *
 *   guest_sampler [CPU_SECONDS [DRIFT_SECONDS [IDLE_SECONDS]]]
 *                 defaults 10, 60 and 10; 0 skips that part
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sampler_helpers.h"


static const char * const psy_files[] = {
	PSY "/voltage_now", PSY "/current_now", PSY "/charge_counter",
};

static void die(const char *what)
{
	fprintf(stderr, "guest_sampler: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* write_or_die(), and the bench ends where the write fails */
static void write_or_die(const char *path, const char *val)
{
	int err = write_str(path, val);

	if (err) {
		errno = -err;
		die(path);
	}
}

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Run time of a task in ns, first field of /proc/PID/schedstat. */
static long long task_runtime_ns(int pid)
{
	char path[64];
	long long ns = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/schedstat", pid);
	f = fopen(path, "r");
	if (!f)
		die(path);
	if (fscanf(f, "%lld", &ns) != 1)
		ns = -1;
	fclose(f);
	return ns;
}

/* Context switches of a task so far (voluntary and not): its wake-ups. */
static long long task_switches(int pid)
{
	char path[64], line[128];
	long long n = 0, v;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "r");
	if (!f)
		die(path);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "voluntary_ctxt_switches: %lld", &v) == 1 ||
		    sscanf(line, "nonvoluntary_ctxt_switches: %lld", &v) == 1)
			n += v;
	fclose(f);
	return n;
}

static void trace_reset(void)
{
	write_or_die(TRACING "/tracing_on", "0");
	write_or_die(TRACING "/events/powerpin/enable", "0");
	write_or_die(TRACING "/trace_clock", "mono");
	write_or_die(TRACING "/trace", "");
}

/* One iteration of the userspace sampler: 3 sysfs reads, one marker line. */
static void user_sample(int marker, const int *fds)
{
	char val[3][32], line[160];
	int i, len;

	for (i = 0; i < 3; i++) {
		int fd = fds ? fds[i] : open(psy_files[i], O_RDONLY);
		ssize_t n;

		if (fd < 0)
			die(psy_files[i]);
		n = fds ? pread(fd, val[i], sizeof(val[i]) - 1, 0) :
			  read(fd, val[i], sizeof(val[i]) - 1);
		if (!fds)
			close(fd);
		if (n < 0)
			n = 0;
		val[i][n] = '\0';
		val[i][strcspn(val[i], "\n")] = '\0';
	}
	len = snprintf(line, sizeof(line),
		       "powerpin: voltage_uv=%s current_ua=%s charge_uah=%s\n",
		       val[0], val[1], val[2]);
	if (write(marker, line, len) < 0)
		die("trace_marker");
}

/*
 * Userspace loop at absolute deadlines; returns CPU seconds per iteration.
 * @keep_open: 0 open+read+close each file, 1 pread on open files, -1 no
 * work at all (what the timer wake-up alone costs).
 */
static double user_loop_abs(double seconds, double period, int keep_open,
			    long *iterations)
{
	int marker = open(TRACING "/trace_marker", O_WRONLY);
	int fds[3], i;
	struct timespec next;
	double end, c0;
	long n = 0;

	if (marker < 0)
		die("trace_marker");
	for (i = 0; i < 3 && keep_open > 0; i++) {
		fds[i] = open(psy_files[i], O_RDONLY);
		if (fds[i] < 0)
			die(psy_files[i]);
	}
	c0 = cpu_s();
	clock_gettime(CLOCK_MONOTONIC, &next);
	end = mono_s() + seconds;
	while (mono_s() < end) {
		if (keep_open >= 0)
			user_sample(marker, keep_open ? fds : NULL);
		n++;
		next.tv_nsec += (long)(period * 1e9);
		while (next.tv_nsec >= 1000000000L) {
			next.tv_nsec -= 1000000000L;
			next.tv_sec++;
		}
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
	}
	c0 = cpu_s() - c0;
	for (i = 0; i < 3 && keep_open > 0; i++)
		close(fds[i]);
	close(marker);
	*iterations = n;
	return n ? c0 / n : 0;
}

/* Kthread at @period_us for @seconds: CPU seconds per sample. */
static double kthread_run(double seconds, const char *period_us, long *samples)
{
	int pid = (int)status_ll("kthread_pid");
	long long r0, r1, s0, s1;

	if (pid <= 0) {
		errno = ENOENT;
		die("kthread_pid");
	}
	trace_reset();
	write_or_die(PARAMS "/period_us", period_us);
	write_or_die(TRACING "/events/powerpin/powerpin_battery/enable", "1");
	s0 = status_ll("samples");
	r0 = task_runtime_ns(pid);
	write_or_die(TRACING "/tracing_on", "1");
	sleep_s(seconds);
	write_or_die(TRACING "/tracing_on", "0");
	sleep_s(0.05);
	r1 = task_runtime_ns(pid);
	s1 = status_ll("samples");
	write_or_die(TRACING "/events/powerpin/powerpin_battery/enable", "0");
	*samples = s1 - s0;
	return s1 > s0 ? (r1 - r0) / 1e9 / (s1 - s0) : 0;
}

/*
 * First and last powerpin:powerpin_battery timestamps in the trace, the mean read_ns,
 * and the count.
 */
static long trace_span(double *first, double *last, double *read_ns)
{
	double read_sum = 0;
	FILE *f = fopen(TRACING "/trace", "r");
	char line[1024];
	long n = 0;

	if (!f)
		die("trace");
	while (fgets(line, sizeof(line), f)) {
		char *p = strstr(line, ": powerpin_battery: "), *q;

		if (!p)
			continue;
		q = p;
		while (q > line && ((q[-1] >= '0' && q[-1] <= '9') || q[-1] == '.'))
			q--;
		*last = strtod(q, NULL);
		if (!n)
			*first = *last;
		q = strstr(p, " read_ns=");
		if (q)
			read_sum += strtod(q + 9, NULL);
		n++;
	}
	fclose(f);
	*read_ns = n ? read_sum / n : 0;
	return n;
}

#define SPEEDUP_TARGET 10.0

/* One speedup line, whatever the numbers: a bench reports, never fails. */
static void print_speedup(const char *what, double user, double kthread)
{
	if (kthread > 0 && user > 0) {
		double x = user / kthread;

		printf("bench sampler_cpu: speedup %.1f (%s), target >= %.0f: %s\n",
		       x, what, SPEEDUP_TARGET,
		       x >= SPEEDUP_TARGET ? "target met" : "target missed");
	} else {
		printf("bench sampler_cpu: speedup n/a (%s): %s time not measured (%.3f us vs %.3f us), target >= %.0f: not measured\n",
		       what, kthread > 0 ? "userspace" : "kthread", user * 1e6,
		       kthread * 1e6, SPEEDUP_TARGET);
	}
}

/* 1. CPU per sample at 1 ms */
static void cpu_bench(double cpu_secs)
{
	double k_cpu, u_cpu, p_cpu, w_cpu, first = 0, last = 0, k_read_ns = 0;
	long k_n, u_n, p_n, w_n;

	k_cpu = kthread_run(cpu_secs, "1000", &k_n);
	trace_span(&first, &last, &k_read_ns);
	trace_reset();
	write_or_die(TRACING "/tracing_on", "1");
	u_cpu = user_loop_abs(cpu_secs, 0.001, 0, &u_n);
	p_cpu = user_loop_abs(cpu_secs, 0.001, 1, &p_n);
	w_cpu = user_loop_abs(cpu_secs, 0.001, -1, &w_n);
	write_or_die(TRACING "/tracing_on", "0");
	printf("bench sampler_cpu_kthread: %.1f us/sample (%ld samples in %.0f s), of which %.1f us reading the supply (6 properties, wall time)\n",
	       k_cpu * 1e6, k_n, cpu_secs, k_read_ns / 1e3);
	printf("bench sampler_cpu_userspace: %.1f us/sample open+read (%ld), %.1f us/sample pread (%ld)\n",
	       u_cpu * 1e6, u_n, p_cpu * 1e6, p_n);
	printf("bench sampler_cpu_wakeup: %.1f us/iteration for a userspace 1 ms timer wake-up alone (%ld)\n",
	       w_cpu * 1e6, w_n);
	print_speedup("userspace/kthread", u_cpu, k_cpu);
	print_speedup("userspace-pread/kthread", p_cpu, k_cpu);

}

/* 2. period error at 10 ms */
static void drift_bench(double drift_secs)
{
	double first = 0, last = 0, t0, rel_period, read_ns;
	double rel_first = 0, rel_last = 0;
	long k_n, n, rel_n = 0;
	long long m0, m1;
	int marker;

	m0 = status_ll("missed");
	kthread_run(drift_secs, "10000", &k_n);
	m1 = status_ll("missed");
	n = trace_span(&first, &last, &read_ns);

	trace_reset();
	write_or_die(TRACING "/tracing_on", "1");
	marker = open(TRACING "/trace_marker", O_WRONLY);
	if (marker < 0)
		die("trace_marker");
	t0 = mono_s();
	while (mono_s() - t0 < drift_secs) {
		rel_last = mono_s();
		if (!rel_n)
			rel_first = rel_last;
		user_sample(marker, NULL);
		usleep(10000);
		rel_n++;
	}
	rel_period = (mono_s() - t0) / rel_n;
	close(marker);
	write_or_die(TRACING "/tracing_on", "0");
	write_or_die(PARAMS "/period_us", "100000");
	write_or_die(TRACING "/trace_clock", "local");

	if (n > 1) {
		/* interval per deadline, skipped deadlines included */
		double per = (last - first) / (n - 1 + (m1 - m0));

		printf("bench sampler_drift: kthread period error %+.1f us (%ld samples + %lld missed in %.0f s, expected %.0f)\n",
		       (per - 0.010) * 1e6, n, m1 - m0, drift_secs, drift_secs / 0.010);
	} else {
		printf("bench sampler_drift: kthread period error n/a (%ld samples in %.0f s)\n",
		       n, drift_secs);
	}
	printf("bench sampler_drift: relative loop period error %+.1f us (%ld iterations in %.0f s, expected %.0f)\n",
	       (rel_period - 0.010) * 1e6, rel_n, drift_secs, drift_secs / 0.010);
	/* what a reader of either trace sees between two samples */
	printf("bench sampler_interval: kthread mean ");
	if (n > 1)
		printf("%.4f ms", (last - first) / (n - 1) * 1e3);
	else
		printf("n/a (%ld samples)", n);
	printf(", relative loop mean ");
	if (rel_n > 1)
		printf("%.4f ms", (rel_last - rel_first) / (rel_n - 1) * 1e3);
	else
		printf("n/a (%ld iterations)", rel_n);
	printf(" (period 10 ms)\n");
}

/* 3. wake-ups with the event enabled and tracing off, then start latency */
static void idle_bench(double idle_secs)
{
	long long pid, s0, w0, w1, r0, r1;
	double t0, rate, latency;

	trace_reset();
	write_or_die(PARAMS "/period_us", "10000");
	write_or_die(TRACING "/events/powerpin/powerpin_battery/enable", "1");
	sleep_s(idle_secs);
	pid = status_ll("kthread_pid");
	if (pid <= 0)
		die("kthread_pid");
	w0 = task_switches(pid);
	r0 = status_ll("gate_trials");
	t0 = mono_s();
	sleep_s(idle_secs);
	w1 = task_switches(pid);
	r1 = status_ll("gate_trials");
	rate = (w1 - w0) / (mono_s() - t0);
	printf("bench sampler_idle: %.2f wake-ups/s of powerpin-sample after %.0f s with the event enabled and tracing_on 0 (%lld in %.0f s, period 10 ms), target <= 2: %s\n",
	       rate, idle_secs, w1 - w0, idle_secs, rate <= 2 ? "met" : "missed");
	/* a KMI build reads the gauge for its trial samples; the full build never */
	printf("bench sampler_idle_reads: %.2f gauge reads/s in that state (%s: %lld trial samples in %.0f s)\n",
	       (r1 - r0) / (mono_s() - t0), kmi_build() ? "a KMI build" : "a full build",
	       r1 - r0, idle_secs);

	s0 = status_ll("samples");
	t0 = mono_s();
	write_or_die(TRACING "/tracing_on", "1");
	while (status_ll("samples") == s0 && mono_s() - t0 < 5)
		usleep(1000);
	latency = mono_s() - t0;
	printf("bench sampler_start_latency: first sample %.0f ms after tracing_on 1, from that idle state (kmod/README.md: within about 1.1 s)\n",
	       latency * 1e3);
	trace_reset();
	write_or_die(PARAMS "/period_us", "100000");
	write_or_die(TRACING "/trace_clock", "local");
}

/* Function-call IPIs so far, summed over CPUs ("Function call interrupts"). */
static long long function_call_ipis(void)
{
	char line[4096];
	long long sum = 0;
	FILE *f = fopen("/proc/interrupts", "r");

	if (!f)
		die("/proc/interrupts");
	while (fgets(line, sizeof(line), f)) {
		char *p = strchr(line, ':');

		if (!p || !strstr(line, "unction call interrupts"))
			continue;
		for (p++;;) {
			char *end;
			long long v = strtoll(p, &end, 10);

			if (end == p)
				break;
			sum += v;
			p = end;
		}
	}
	fclose(f);
	return sum;
}

/* 4. an instance's consumer with its tracing_on 0: IPIs beside wake-ups */
#define BENCH_INST	TRACING "/instances/powerpin-bench"
static void instance_idle_bench(double idle_secs)
{
	long long pid, s0, w0, w1, i0, i1, g0, g1;
	double t0, secs, latency;

	trace_reset();
	write_or_die(PARAMS "/period_us", "10000");
	if (mkdir(BENCH_INST, 0755) && errno != EEXIST)
		die(BENCH_INST);
	write_or_die(BENCH_INST "/tracing_on", "0");
	write_or_die(BENCH_INST "/events/powerpin/powerpin_battery/enable", "1");
	sleep_s(idle_secs);
	pid = status_ll("kthread_pid");
	if (pid <= 0)
		die("kthread_pid");
	w0 = task_switches(pid);
	i0 = function_call_ipis();
	g0 = status_ll("gate_ipis");
	t0 = mono_s();
	sleep_s(idle_secs);
	w1 = task_switches(pid);
	i1 = function_call_ipis();
	g1 = status_ll("gate_ipis");
	secs = mono_s() - t0;
	/* the guest's own background IPIs swamp /proc/interrupts: the gate counts its own */
	printf("bench sampler_idle_ipis: %.2f IPIs/s sent by the gate, %.2f wake-ups/s of powerpin-sample, %ld CPUs, after %.0f s with the event enabled in an instance whose tracing_on is 0 (%lld IPIs, %lld wake-ups in %.0f s; every function-call IPI of the guest: %.2f/s), target gate IPIs <= wake-ups: %s\n",
	       (g1 - g0) / secs, (w1 - w0) / secs, sysconf(_SC_NPROCESSORS_ONLN), idle_secs,
	       g1 - g0, w1 - w0, secs, (i1 - i0) / secs, g1 - g0 <= w1 - w0 ? "met" : "missed");

	s0 = status_ll("samples");
	t0 = mono_s();
	write_or_die(BENCH_INST "/tracing_on", "1");
	while (status_ll("samples") == s0 && mono_s() - t0 < 10)
		usleep(1000);
	latency = mono_s() - t0;
	printf("bench sampler_instance_start_latency: first sample %.0f ms after the instance's tracing_on 1, from that idle state\n",
	       latency * 1e3);
	write_or_die(BENCH_INST "/tracing_on", "0");
	write_or_die(BENCH_INST "/events/powerpin/powerpin_battery/enable", "0");
	if (rmdir(BENCH_INST))
		die("rmdir " BENCH_INST);
	write_or_die(PARAMS "/period_us", "100000");
}

int main(int argc, char **argv)
{
	double cpu_secs = argc > 1 ? atof(argv[1]) : 10;
	double drift_secs = argc > 2 ? atof(argv[2]) : 60;
	double idle_secs = argc > 3 ? atof(argv[3]) : 10;

	if (cpu_secs < 0 || drift_secs < 0 || idle_secs < 0) {
		fprintf(stderr, "usage: guest_sampler [CPU_SECONDS [DRIFT_SECONDS [IDLE_SECONDS]]]\n");
		return 2;
	}
	if (access(STATUS, R_OK) || access(PSY, R_OK)) {
		fprintf(stderr, "guest_sampler: needs powerpin.ko and the gauge emulator (run under scripts/vm-run)\n");
		return 1;
	}
	write_or_die(TRACING "/buffer_size_kb", "8192");
	if (cpu_secs)
		cpu_bench(cpu_secs);
	if (drift_secs)
		drift_bench(drift_secs);
	if (idle_secs) {
		idle_bench(idle_secs);
		instance_idle_bench(idle_secs);
	}
	return 0;
}
