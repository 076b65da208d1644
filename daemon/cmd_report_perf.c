// SPDX-License-Identifier: GPL-2.0
/*
 * powerpin report --perf: run `perf script` on a perf.data and feed its
 * samples to the report's energy-per-function pass (daemon/lib/report/report_perf.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "commands.h"
#include "report/report.h"

static const char *perf_binary(void)
{
	const char *p = getenv("POWERPIN_PERF");

	return p && *p ? p : "perf";
}

/* Lines of @fp into the parser; 0, or -1 with a message on stderr. */
static int feed(FILE *fp, struct report_perf *rp, const char *perfdata)
{
	struct perf_script ps;
	char err[256], *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int ret = 0;

	perf_script_init(&ps, report_perf_sample, rp);
	while ((n = getline(&line, &cap, fp)) > 0) {
		if (line[n - 1] == '\n')
			n--;
		ret = perf_script_line(&ps, line, (size_t)n, err, sizeof(err));
		if (ret)
			break;
	}
	if (!ret)
		ret = perf_script_finish(&ps);
	if (!ret && ps.samples && ps.flat == ps.samples)
		fprintf(stderr, "powerpin report: %s: no call chains (recorded without -g): each sample counts for the function it hit alone; perf record -g gives whole stacks\n",
			perfdata);
	if (ret < 0)
		fprintf(stderr, "powerpin report: %s: perf script output %s\n", perfdata, err);
	else if (ret > 0)
		fprintf(stderr, "powerpin report: %s: %s\n", perfdata, rp->err);
	free(line);
	perf_script_free(&ps);
	return ret ? -1 : 0;
}

/*
 * --perf FILE must be perf record's perf.data: its first 8 bytes are
 * "PERFILE2" (either byte order).  Anything else makes perf script say
 * "incompatible file format (rerun with -v to learn more)": name it here
 * instead.  0, or -1 with a message.
 */
static int perf_data_check(const char *perfdata)
{
	static const char trace_dat[] = "\027\010\104tracing";
	char magic[10] = "";
	ssize_t n;
	int fd;

	fd = open(perfdata, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "powerpin report: --perf %s: %s\n", perfdata, strerror(errno));
		return -1;
	}
	n = read(fd, magic, sizeof(magic));
	close(fd);
	if (n >= 8 && (!memcmp(magic, "PERFILE2", 8) || !memcmp(magic, "2ELIFREP", 8)))
		return 0;
	if (n >= 10 && !memcmp(magic, trace_dat, 10))
		fprintf(stderr, "powerpin report: --perf %s: a trace.dat (trace-cmd's), not perf record's perf.data: give it as the report's <input>\n",
			perfdata);
	else
		fprintf(stderr, "powerpin report: --perf %s: not a perf.data file (perf record -g writes one)\n",
			perfdata);
	return -1;
}

static int report_perf_from_perfdata(struct report_perf *rp, const char *perfdata)
{
	int pipefd[2], status, ret;
	pid_t pid;
	FILE *fp;

	if (perf_data_check(perfdata))
		return -1;
	if (pipe2(pipefd, O_CLOEXEC)) {
		fprintf(stderr, "powerpin report: %s\n", strerror(errno));
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "powerpin report: %s\n", strerror(errno));
		close(pipefd[0]);
		close(pipefd[1]);
		return -1;
	}
	if (!pid) {
		dup2(pipefd[1], STDOUT_FILENO);
		execlp(perf_binary(), perf_binary(), "script", "-i", perfdata,
		       "-F", "comm,pid,tid,time,period,event,ip,sym,dso", "--ns", (char *)NULL);
		fprintf(stderr, "powerpin report: cannot run %s: %s (install linux-perf, or set POWERPIN_PERF)\n",
			perf_binary(), strerror(errno));
		_exit(127);
	}
	close(pipefd[1]);
	fp = fdopen(pipefd[0], "r");
	if (!fp) {
		close(pipefd[0]);
		waitpid(pid, NULL, 0);
		return -1;
	}
	ret = feed(fp, rp, perfdata);
	fclose(fp);	/* a perf still writing gets EPIPE and ends */
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	if (!ret && (!WIFEXITED(status) || WEXITSTATUS(status))) {
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 127)
			fprintf(stderr, "powerpin report: %s: perf script failed (%s %d)\n", perfdata,
				WIFEXITED(status) ? "exit" : "signal",
				WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
		return -1;
	}
	return ret;
}

int report_add_perf(struct report *r, struct report_perf *rp, const char *input,
		    const char *name, const char *perfdata, const char *perf_map)
{
	char err[512];
	struct stat st;

	/* a map named on the command line that is not there names nothing */
	if (perf_map && stat(perf_map, &st)) {
		fprintf(stderr, "powerpin report: --perf-map %s: %s\n", perf_map, strerror(errno));
		return -1;
	}
	report_perf_init(rp, r, perf_map);
	if (report_perf_power(rp, input, err, sizeof(err))) {
		fprintf(stderr, "powerpin report: %s: %s\n", name, err);
		return -1;
	}
	if (report_perf_from_perfdata(rp, perfdata))
		return -1;
	if (report_perf_finish(rp, err, sizeof(err))) {
		fprintf(stderr, "powerpin report: %s: %s\n", perfdata, err);
		return -1;
	}
	r->perf = rp;
	return 0;
}

int report_write_flame(const struct report_perf *rp, const char *name, FILE *out)
{
	char title[512];

	snprintf(title, sizeof(title), "Energy: %s (%.4f J over %llu perf samples)", name,
		 rp->energy_j, (unsigned long long)rp->used);
	return flame_write_html(&rp->flame, title, out);
}
