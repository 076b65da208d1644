// SPDX-License-Identifier: GPL-2.0
/*
 * guest_capture: what libtracecmd's compression does to a capture, against
 * the same capture uncompressed and against `trace-cmd record` with zstd,
 * all of the same workload in the same guest run: powerpin at a 10 ms
 * period, two threads ping-ponging through a pipe (sched_switch) and
 * writing atrace slices to trace_marker, for SECONDS.
 *
 *   bench capture_size: bytes per second of capture, and the ratios
 *   bench capture_cpu: CPU seconds of the recorder (user + system, with
 *                      its children), and the ratios
 *   bench capture_report: CPU seconds of `powerpin report` on each file
 *
 * The three recordings see the same workload but not the same events (the
 * scheduler decides), so sizes are compared per second and per event.
 * trace_marker lines are in all three: ftrace:print cannot be switched off.
 * A benchmark reports; it never fails because of a ratio.
 *
 *   guest_capture [SECONDS]        default 20
 *   guest_capture --workload SECONDS
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>

#define DIR		"/mnt/disk"
#define MARKER		"/sys/kernel/tracing/trace_marker"
#define PERIOD		"/sys/module/powerpin/parameters/period_us"

static double mono_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/* ---- the workload --------------------------------------------------------- */

struct pong {
	int in, out, marker;
	double end;
};

static void *pong_thread(void *arg)
{
	struct pong *p = arg;
	char b = 0, slice[64];
	int n;

	while (mono_s() < p->end) {
		if (read(p->in, &b, 1) != 1)
			break;
		n = snprintf(slice, sizeof(slice), "B|%d|frame", getpid());
		if (write(p->marker, slice, n) < 0)
			break;
		usleep(500);
		if (write(p->marker, "E", 1) < 0 || write(p->out, &b, 1) != 1)
			break;
	}
	close(p->out);
	return NULL;
}

static int workload(double seconds)
{
	int ab[2], ba[2], marker = open(MARKER, O_WRONLY);
	struct pong a, b;
	pthread_t ta, tb;
	char c = 1;

	if (marker < 0 || pipe(ab) || pipe(ba))
		return 1;
	a = (struct pong){ ba[0], ab[1], marker, mono_s() + seconds };
	b = (struct pong){ ab[0], ba[1], marker, a.end };
	if (pthread_create(&ta, NULL, pong_thread, &a) ||
	    pthread_create(&tb, NULL, pong_thread, &b))
		return 1;
	if (write(ba[1], &c, 1) != 1)
		return 1;
	pthread_join(ta, NULL);
	pthread_join(tb, NULL);
	return 0;
}

/* ---- running a recorder ----------------------------------------------------- */

struct run {
	const char *name;
	char file[128];
	double cpu_s, wall_s;
	long long bytes;
	long long events;
	double report_cpu_s;
	long report_rss_kb;
};

/* Run @argv to the end; its CPU time (with its children) into *cpu_s. */
static long last_maxrss_kb;

static int run_cpu(char *const argv[], double *cpu_s, const char *out)
{
	struct rusage ru;
	int st, fd;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (!pid) {
		fd = open(out ? out : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		execvp(argv[0], argv);
		_exit(127);
	}
	if (wait4(pid, &st, 0, &ru) != pid)
		return -1;
	*cpu_s = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
		 ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
	last_maxrss_kb = ru.ru_maxrss;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Events in a capture, as `trace-cmd report` counts them. */
static long long count_events(const char *file)
{
	char cmd[256];
	long long n = -1;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "trace-cmd report %s 2>/dev/null | grep -c ': '", file);
	p = popen(cmd, "r");
	if (p) {
		if (fscanf(p, "%lld", &n) != 1)
			n = -1;
		pclose(p);
	}
	return n;
}

static void measure(struct run *r, char *const argv[])
{
	char *report[] = { (char *)"build/bin/powerpin", (char *)"report", r->file, NULL };
	struct stat st;
	double t0 = mono_s();
	double cpu;

	unlink(r->file);
	if (run_cpu(argv, &r->cpu_s, DIR "/recorder.log")) {
		fprintf(stderr, "guest_capture: %s exited non-zero:\n", r->name);
		system("tail -n 5 " DIR "/recorder.log >&2");
	}
	r->wall_s = mono_s() - t0;
	r->bytes = stat(r->file, &st) ? -1 : st.st_size;
	r->events = count_events(r->file);
	r->report_cpu_s = run_cpu(report, &cpu, NULL) ? -1 : cpu;
	r->report_rss_kb = last_maxrss_kb;
	printf("# %s: %lld bytes, %lld events, recorder %.2f s CPU in %.1f s, report %.2f s CPU, %ld KiB peak\n",
	       r->name, r->bytes, r->events, r->cpu_s, r->wall_s, r->report_cpu_s,
	       r->report_rss_kb);
}

static double per_event(const struct run *r)
{
	return r->events > 0 ? (double)r->bytes / r->events : 0;
}

int main(int argc, char **argv)
{
	struct run any = { .name = "powerpin record (libtracecmd any)", .file = DIR "/cap-any.dat" };
	struct run none = { .name = "powerpin record --compression none", .file = DIR "/cap-none.dat" };
	struct run tc = { .name = "trace-cmd record --compression zstd", .file = DIR "/cap-tc.dat" };
	char self[512], secs[32];
	double seconds = 20;
	ssize_t n;

	if (argc == 3 && !strcmp(argv[1], "--workload"))
		return workload(atof(argv[2]));
	if (argc > 1)
		seconds = atof(argv[1]);
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return 1;
	self[n] = '\0';
	snprintf(secs, sizeof(secs), "%g", seconds);
	{
		int fd = open(PERIOD, O_WRONLY);

		if (fd < 0 || write(fd, "10000", 5) != 5)
			fprintf(stderr, "guest_capture: cannot set the period: %s\n", strerror(errno));
		if (fd >= 0)
			close(fd);
	}
	{
		char *a[] = { "build/bin/powerpin", "record", "-q", "-o", any.file, "--",
			      self, "--workload", secs, NULL };
		char *b[] = { "build/bin/powerpin", "record", "-q", "--compression", "none", "-o",
			      none.file, "--", self, "--workload", secs, NULL };
		char *c[] = { "trace-cmd", "record", "-q", "--compression", "zstd", "-e", "powerpin",
			      "-e", "sched:sched_switch", "-e", "sched:sched_process_fork",
			      "-e", "sched:sched_process_exit", "-o", tc.file,
			      self, "--workload", secs, NULL };

		measure(&any, a);
		measure(&none, b);
		measure(&tc, c);
	}
	printf("bench capture_size: %.0f bytes/s compressed, %.0f uncompressed (%.1fx smaller), trace-cmd zstd %.0f (compressed/trace-cmd %.2f)\n",
	       any.bytes / seconds, none.bytes / seconds,
	       any.bytes > 0 ? (double)none.bytes / any.bytes : 0, tc.bytes / seconds,
	       tc.bytes > 0 ? (double)any.bytes / tc.bytes : 0);
	printf("bench capture_size_per_event: %.1f bytes compressed, %.1f uncompressed, %.1f trace-cmd zstd (compressed/trace-cmd %.2f)\n",
	       per_event(&any), per_event(&none), per_event(&tc),
	       per_event(&tc) > 0 ? per_event(&any) / per_event(&tc) : 0);
	printf("bench capture_cpu: recorder %.2f s compressed, %.2f uncompressed (%.2fx), trace-cmd zstd %.2f (compressed/trace-cmd %.2f)\n",
	       any.cpu_s, none.cpu_s, none.cpu_s > 0 ? any.cpu_s / none.cpu_s : 0, tc.cpu_s,
	       tc.cpu_s > 0 ? any.cpu_s / tc.cpu_s : 0);
	printf("bench capture_report: powerpin report %.2f s CPU, %ld KiB peak on the compressed capture, %.2f s, %ld KiB on the uncompressed (%.2fx CPU)\n",
	       any.report_cpu_s, any.report_rss_kb, none.report_cpu_s, none.report_rss_kb,
	       none.report_cpu_s > 0 ? any.report_cpu_s / none.report_cpu_s : 0);
	return 0;
}
