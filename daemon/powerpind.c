// SPDX-License-Identifier: GPL-2.0
/*
 * powerpind: turns `echo 1 > tracing_on ... echo 0 > tracing_on` into a
 * capture and a report with nobody typing anything else.
 *
 * At start it enables the capture events (powerpin, sched_switch,
 * sched_process_fork/exit), so that tracing_on alone opens the sampler's
 * gate, and joins the powerpin "events" netlink group.  CAPTURE_STARTED
 * opens SPOOL/capture-<UTC>/trace.dat and drains the ring buffers into it;
 * CAPTURE_STOPPED closes it, writes summary.txt, then (in a child) the
 * `powerpin report` outputs and pinlists for the configured files.
 * SIGTERM/SIGINT finish an open capture and put the events back; SIGHUP
 * rereads the configuration; powerpin.ko going away and coming back is
 * followed through the netlink controller.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <tracefs.h>
#include <linux/powerpin.h>

#include "capture/capture.h"
#include "base/base.h"

/* where messages go: chosen once, before the daemon leaves the terminal */
enum ppd_log {
	PPD_LOG_STDERR,		/* --foreground, or no logger to reach */
	PPD_LOG_SYSLOG,		/* Linux with a syslog socket */
	PPD_LOG_LOGD,		/* Android: logcat */
};

struct ppd {
	bool foreground;
	enum ppd_log log;
	struct pp_logd logd;
	char logd_keep[PATH_MAX];
	bool check_config;
	const char *config_path;
	char *config_abs;	/* --config made absolute (config_path then) */
	bool config_explicit;
	const char *spool_arg;
	struct ppd_config cfg;
	const char *spool;

	struct pp_genl *nl;
	bool loaded;
	struct pp_events_saved *saved;
	bool powerpin_enabled_later;

	int spool_lock;		/* one daemon per spool: held for our lifetime */
	struct pp_capture *cap;
	int cap_lock;
	char *cap_dir;
	uint64_t cap_start_ns;
	int nr_post;		/* report/pinlist children running */
	bool stopping;
};

static int logd_prio(int prio)
{
	if (prio <= LOG_ERR)
		return PP_LOGD_ERROR;
	if (prio == LOG_WARNING)
		return PP_LOGD_WARN;
	return prio == LOG_DEBUG ? PP_LOGD_DEBUG : PP_LOGD_INFO;
}

static void logmsg(struct ppd *d, int prio, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (d->log == PPD_LOG_SYSLOG)
		syslog(prio, "%s", msg);
	else if (d->log != PPD_LOG_LOGD ||
		 pp_logd_send(&d->logd, logd_prio(prio), "powerpind", msg) < 0)
		fprintf(stderr, "powerpind: %s\n", msg);
}

/*
 * Never silently nowhere: logcat on Android, syslog on Linux, and stderr
 * (kept open by daemon()) where the logger's socket is missing.  Lines
 * logd does not take once it is gone (restarting, full) go to
 * powerpind.log in the run directory (pp_logd_send()).
 */
static void choose_log(struct ppd *d)
{
	d->log = PPD_LOG_STDERR;
	if (d->foreground)
		return;
	if (pp_on_android()) {
		/*
		 * logd, or while it is not there (not started yet, restarting)
		 * the file in the run directory; each line tries logd again.
		 * Only with neither does the log stay on stderr.
		 */
		d->logd.path = PP_LOGD_SOCKET;
		d->logd.fd = pp_logd_open(PP_LOGD_SOCKET);
		if (!pp_mkdirs(pp_run_dir(), 0755) &&
		    snprintf(d->logd_keep, sizeof(d->logd_keep), "%s/powerpind.log",
			     pp_run_dir()) < (int)sizeof(d->logd_keep))
			d->logd.keep = d->logd_keep;
		if (d->logd.fd >= 0 || d->logd.keep)
			d->log = PPD_LOG_LOGD;
	} else if (!access("/dev/log", W_OK)) {
		openlog("powerpind", LOG_PID, LOG_DAEMON);
		d->log = PPD_LOG_SYSLOG;
	}
}

/* daemon(3), but stderr stays where it was when it is the log */
static int detach(const struct ppd *d)
{
	int fd;

	if (daemon(0, d->log == PPD_LOG_STDERR))
		return -1;
	if (d->log != PPD_LOG_STDERR)
		return 0;
	fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -1;
	dup2(fd, STDIN_FILENO);
	dup2(fd, STDOUT_FILENO);
	close(fd);
	return 0;
}

static uint64_t boottime_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_BOOTTIME, &t);
	return t.tv_sec * 1000000000ULL + t.tv_nsec;
}

static void usage(FILE *out)
{
	fprintf(out,
		"usage: powerpind [--foreground] [--config FILE] [--spool DIR] [--check-config]\n\n"
		"Capture power samples whenever tracing_on opens the powerpin sampler's gate.\n\n"
		"  -f, --foreground   stay in the foreground and log to stderr (else syslog,\n"
		"                     on Android logcat; stderr when neither is there)\n"
		"  -c, --config FILE  configuration (default %s,\n"
		"                     optional when not given explicitly)\n"
		"  -s, --spool DIR    where captures go (default: the config's spool, else\n"
		"                     %s)\n"
		"      --check-config read the configuration, print what would be used and\n"
		"                     exit: 0 if powerpind would start with it, else 1\n"
		"  -V, --version      print the version and exit\n"
		"  -h, --help         this help\n\n"
		"Signals: SIGTERM/SIGINT finish an open capture and exit, SIGHUP rereads\n"
		"the configuration.  Capture layout: docs/capture-format.md.\n",
		pp_default_config(), pp_default_spool());
}

/* Apply the configured period and supply, if any. */
static void apply_config(struct ppd *d)
{
	struct pp_genl *g;

	if (!d->cfg.have_period && !d->cfg.supply)
		return;
	g = pp_genl_open();
	if (!g) {
		logmsg(d, LOG_WARNING, "cannot configure the sampler: %s",
		       errno == ENOENT ? "powerpin.ko not loaded" : strerror(errno));
		return;
	}
	if (pp_genl_set_config(g, d->cfg.have_period ? &d->cfg.period_us : NULL,
			       d->cfg.supply))
		logmsg(d, LOG_WARNING, "sampler refused the configuration: %s%s%s",
		       strerror(errno), pp_genl_error(g) ? ": " : "",
		       pp_genl_error(g) ? pp_genl_error(g) : "");
	pp_genl_close(g);
}

static void enable_powerpin_events(struct ppd *d)
{
	if (tracefs_event_enable(NULL, "powerpin", NULL))
		logmsg(d, LOG_WARNING, "cannot enable the powerpin events");
	else
		d->powerpin_enabled_later = true;
}

static void capture_start(struct ppd *d, uint64_t start_ns)
{
	char err[512], *path;

	if (d->cap)
		return;
	d->cap_lock = pp_capture_lock();
	if (d->cap_lock < 0 && errno == EWOULDBLOCK) {
		logmsg(d, LOG_INFO, "gate opened by another capture (powerpin record?); not capturing it");
		return;
	}
	d->cap_dir = ppd_new_capture_dir(d->spool);
	if (!d->cap_dir) {
		logmsg(d, LOG_ERR, "cannot create a capture directory in %s: %s",
		       d->spool, strerror(errno));
		goto unlock;
	}
	if (asprintf(&path, "%s/trace.dat", d->cap_dir) < 0) {
		free(d->cap_dir);
		d->cap_dir = NULL;
		goto unlock;
	}
	d->cap = pp_capture_start(path, PP_CAPTURE_COMPRESSION, err, sizeof(err));
	free(path);
	if (!d->cap) {
		logmsg(d, LOG_ERR, "capture not started: %s", err);
		rmdir(d->cap_dir);
		free(d->cap_dir);
		d->cap_dir = NULL;
		goto unlock;
	}
	d->cap_start_ns = start_ns;
	logmsg(d, LOG_INFO, "capture started: %s", d->cap_dir);
	return;
unlock:
	pp_capture_unlock(d->cap_lock);
	d->cap_lock = -1;
}

static int run_wait(char *const argv[], const char *out_path)
{
	int status, fd;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		fd = open(out_path ? out_path : "/dev/null",
			  O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd >= 0) {
			dup2(fd, STDOUT_FILENO);
			close(fd);
		}
		exec_command("powerpind", argv);
	}
	while (waitpid(pid, &status, 0) != pid)
		if (errno != EINTR)
			return -1;
	return wait_exit_status(status);
}

static char *self_dir_file(const char *name)
{
	char exe[PATH_MAX], *slash, *p;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n <= 0)
		return NULL;
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (!slash)
		return NULL;
	*slash = '\0';
	if (asprintf(&p, "%s/%s", exe, name) < 0)
		return NULL;
	return p;
}

/*
 * The report set, in a child so that a slow report never holds up the next
 * capture: `powerpin report` (text, JSON, HTML, CSV) and one pinlist per
 * configured file.  Failures are logged by the parent from the exit code.
 */
static void post_process(struct ppd *d, const char *dir)
{
	char *powerpin = self_dir_file("powerpin");
	char *trace = NULL, *json = NULL, *html = NULL, *csv = NULL, *txt = NULL;
	char *tmp = NULL;
	int i, bad = 0;
	sigset_t none;

	/* the daemon's blocked signals would outlive exec in the tools */
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);

	/* beside us (build tree), PREFIX/bin for PREFIX/sbin, else $PATH */
	if (!powerpin || access(powerpin, X_OK)) {
		free(powerpin);
		powerpin = self_dir_file("../bin/powerpin");
		if (!powerpin || access(powerpin, X_OK)) {
			free(powerpin);
			powerpin = strdup("powerpin");
		}
	}
	if (d->cfg.report &&
	    asprintf(&trace, "%s/trace.dat", dir) >= 0 &&
	    asprintf(&json, "%s/report.json", dir) >= 0 &&
	    asprintf(&html, "%s/report.html", dir) >= 0 &&
	    asprintf(&csv, "%s/report.csv", dir) >= 0 &&
	    asprintf(&txt, "%s/report.txt", dir) >= 0 &&
	    asprintf(&tmp, "%s/.report.txt.tmp", dir) >= 0) {
		char *argv[] = { powerpin, "report", trace, "--json", json,
				 "--html", html, "--csv", csv, NULL };

		if (run_wait(argv, tmp) == 0)
			rename(tmp, txt);
		else
			bad |= 1;
		unlink(tmp);
	}
	for (i = 0; i < d->cfg.nr_pin_files; i++) {
		const char *f = d->cfg.pin_files[i];
		const char *base = strrchr(f, '/') ? strrchr(f, '/') + 1 : f;
		size_t len = strlen(f);
		bool zip = len > 4 && (!strcmp(f + len - 4, ".apk") ||
				       !strcmp(f + len - 4, ".zip"));
		char *out;

		if (asprintf(&out, "%s/%s.pinlist.meta", dir, base) < 0)
			continue;
		if (zip) {
			char *argv[] = { powerpin, "file", (char *)f, "--zip",
					 "--gen-probe", "-o", out, NULL };

			if (run_wait(argv, NULL))
				bad |= 2;
		} else {
			char *argv[] = { powerpin, "file", (char *)f,
					 "--gen-probe", "-o", out, NULL };

			if (run_wait(argv, NULL))
				bad |= 2;
		}
		free(out);
	}
	_exit(bad);
}

/*
 * Finish the open capture, if any.  Returns -1 if it failed: then there is
 * no trace.dat, and summary.txt says complete=0 and why.
 */
static int capture_stop(struct ppd *d, uint64_t stop_ns, int64_t samples,
			bool complete)
{
	struct pp_capture_stats st = { 0 };
	struct ppd_summary sum;
	char err[512];
	pid_t pid;
	int ret;

	if (!d->cap)
		return 0;
	err[0] = '\0';
	ret = pp_capture_finish(d->cap, samples, &st, err, sizeof(err));
	d->cap = NULL;
	pp_capture_unlock(d->cap_lock);
	d->cap_lock = -1;
	sum = (struct ppd_summary){
		.start_ns = d->cap_start_ns,
		.stop_ns = stop_ns,
		.samples = samples,
		.lost_events = st.lost_events,
		.bytes = st.bytes,
		.complete = complete && !ret,
		.error = ret ? err : NULL,
	};
	if (ret) {
		logmsg(d, LOG_ERR, "capture %s failed: %s", d->cap_dir, err);
		if (ppd_write_summary(d->cap_dir, &sum))
			logmsg(d, LOG_ERR, "cannot write %s/summary.txt: %s",
			       d->cap_dir, strerror(errno));
		ret = -1;
		goto out;
	}
	if (ppd_write_summary(d->cap_dir, &sum))
		logmsg(d, LOG_ERR, "cannot write %s/summary.txt: %s", d->cap_dir,
		       strerror(errno));
	logmsg(d, LOG_INFO,
	       "capture %s: %lld samples, %llu lost events, %llu bytes%s",
	       d->cap_dir, (long long)samples,
	       (unsigned long long)st.lost_events,
	       (unsigned long long)st.bytes, complete ? "" : " (interrupted)");

	if (!complete || d->stopping)
		goto out;
	if (!d->cfg.report && !d->cfg.nr_pin_files)
		goto out;
	pid = fork();
	if (pid == 0) {
		/*
		 * A report is no daemon: the spool's lock stays with the
		 * daemon alone, or a daemon killed with -9 could not be
		 * started again until its last report ends.
		 */
		close(d->spool_lock);
		post_process(d, d->cap_dir);
	}
	if (pid < 0)
		logmsg(d, LOG_ERR, "cannot fork the report: %s", strerror(errno));
	else
		d->nr_post++;
out:
	free(d->cap_dir);
	d->cap_dir = NULL;
	return ret;
}

static void on_event(const struct pp_event *ev, void *arg)
{
	struct ppd *d = arg;

	switch (ev->kind) {
	case PP_EVENT_CAPTURE_STARTED:
		capture_start(d, ev->time_ns);
		break;
	case PP_EVENT_CAPTURE_STOPPED:
		capture_stop(d, ev->time_ns, (int64_t)ev->capture_samples, true);
		break;
	case PP_EVENT_SUPPLY_FOUND:
		logmsg(d, LOG_INFO, "supply %s found", ev->supply);
		break;
	case PP_EVENT_SUPPLY_LOST:
		logmsg(d, LOG_WARNING, "supply %s lost", ev->supply);
		break;
	case PP_EVENT_FAMILY_GONE:
		logmsg(d, LOG_WARNING, "powerpin.ko unloaded; waiting for it to come back");
		d->loaded = false;
		capture_stop(d, boottime_ns(), -1, false);
		break;
	case PP_EVENT_FAMILY_BACK:
		logmsg(d, LOG_INFO, "powerpin.ko loaded again; events re-enabled");
		d->loaded = true;
		apply_config(d);
		enable_powerpin_events(d);
		break;
	}
}

/*
 * Events were lost (socket overrun): ask the sampler where the gate is and
 * open or close the capture to match.
 */
static void resync(struct ppd *d)
{
	struct pp_status st;
	struct pp_genl *g = pp_genl_open();
	bool open_gate;

	if (!g) {
		capture_stop(d, boottime_ns(), -1, false);
		return;
	}
	if (pp_genl_get_status(g, &st)) {
		pp_genl_close(g);
		return;
	}
	pp_genl_close(g);
	open_gate = st.state != POWERPIN_STATE_IDLE;
	if (d->cap && !open_gate)
		capture_stop(d, boottime_ns(), -1, true);
	else if (!d->cap && open_gate)
		capture_start(d, boottime_ns());
}

static int reload_config(struct ppd *d)
{
	struct ppd_config c = { .report = true };
	char err[512];

	if (ppd_config_load(d->config_path, d->config_explicit, &c, err,
			    sizeof(err))) {
		logmsg(d, LOG_ERR, "configuration not changed: %s", err);
		ppd_config_free(&c);
		return -1;
	}
	ppd_config_free(&d->cfg);
	d->cfg = c;
	return 0;
}

static int setup_spool(struct ppd *d)
{
	char *p, *s;
	int fd;

	d->spool = d->spool_arg ? d->spool_arg :
		   d->cfg.spool ? d->cfg.spool : pp_default_spool();
	s = strdup(d->spool);
	if (!s)
		return -1;
	for (p = s + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		mkdir(s, 0755);
		*p = '/';
	}
	free(s);
	if (mkdir(d->spool, 0755) && errno != EEXIST) {
		fprintf(stderr, "powerpind: cannot create the spool %s: %s\n",
			d->spool, strerror(errno));
		return -1;
	}
	/* one daemon per spool; the lock goes with the process, even on -9 */
	if (asprintf(&s, "%s/.lock", d->spool) < 0)
		return -1;
	fd = open(s, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	free(s);
	if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB)) {
		fprintf(stderr, "powerpind: %s is in use by another powerpind\n",
			d->spool);
		return -1;
	}
	d->spool_lock = fd;
	pp_capture_clean_dir(d->spool);
	return 0;
}

static int parse_args(struct ppd *d, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "foreground", no_argument, NULL, 'f' },
		{ "config", required_argument, NULL, 'c' },
		{ "spool", required_argument, NULL, 's' },
		{ "check-config", no_argument, NULL, 'C' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ 0 }
	};
	int c;

	d->config_path = pp_default_config();
	argv[0] = (char *)"powerpind";	/* getopt's messages start with it */
	while ((c = getopt_long(argc, argv, "fc:s:hV", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			d->foreground = true;
			break;
		case 'c':
			/* absolute, so that SIGHUP finds it after daemon() */
			free(d->config_abs);
			d->config_abs = realpath(optarg, NULL);
			d->config_path = d->config_abs;
			if (!d->config_path) {
				fprintf(stderr, "powerpind: %s: %s\n", optarg,
					strerror(errno));
				return 1;
			}
			d->config_explicit = true;
			break;
		case 's':
			if (optarg[0] != '/') {
				fprintf(stderr, "powerpind: --spool wants an absolute path\n");
				return 2;
			}
			d->spool_arg = optarg;
			break;
		case 'C':
			d->check_config = true;
			break;
		case 'h':
			usage(stdout);
			exit(close_stdout("powerpind", 0));
		case 'V':
			printf("powerpind %s\n", powerpin_version());
			exit(close_stdout("powerpind", 0));
		default:
			return usage_error("powerpind");
		}
	}
	if (optind < argc) {
		fprintf(stderr, "powerpind: unexpected argument '%s'\n", argv[optind]);
		return usage_error("powerpind");
	}
	return 0;
}

static void reap(struct ppd *d, bool block)
{
	int status;
	pid_t pid;

	while (d->nr_post > 0 &&
	       (pid = waitpid(-1, &status, block ? 0 : WNOHANG)) > 0) {
		d->nr_post--;
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			logmsg(d, LOG_WARNING, "report set incomplete (status %d)",
			       WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	}
}

/* "period_ms: 12.5": whole microseconds, without trailing zeros. */
static void print_period_ms(uint32_t us)
{
	char frac[8];
	int n;

	n = snprintf(frac, sizeof(frac), "%03u", us % 1000);
	while (n > 0 && frac[n - 1] == '0')
		frac[--n] = '\0';
	printf("period_ms: %u%s%s\n", us / 1000, n ? "." : "", frac);
}

/* --check-config: what the daemon would run with, on stdout. */
static int print_config(const struct ppd *d)
{
	int i;

	printf("config: %s%s\n", d->config_path,
	       access(d->config_path, F_OK) ? " (not present: defaults)" : "");
	printf("spool: %s\n", d->spool_arg ? d->spool_arg :
	       d->cfg.spool ? d->cfg.spool : pp_default_spool());
	/* in the configuration's own terms: period_ms, as it was written */
	if (d->cfg.have_period)
		print_period_ms(d->cfg.period_us);
	else
		printf("period_ms: the module's own\n");
	if (d->cfg.supply)
		printf("supply: \"%s\"\n", d->cfg.supply);
	else
		printf("supply: the module's own\n");
	printf("report: %s\n", d->cfg.report ? "yes" : "no");
	for (i = 0; i < d->cfg.nr_pin_files; i++)
		printf("pin_file: %s\n", d->cfg.pin_files[i]);
	return close_stdout("powerpind", 0);
}

/* Everything but the release of what parse_args() allocated. */
/*
 * Before the daemon listens: the options, the configuration (printed and
 * done with --check-config), tracefs, the spool, and detaching.  -1 to go
 * on, else the exit status.
 */
static int daemon_start(struct ppd *d, int argc, char **argv)
{
	char err[512];
	int ret;

	ret = parse_args(d, argc, argv);
	if (ret)
		return ret;
	/* the defaults live in pp_android_dir(): say so when that too is a file */
	if (pp_on_android() && (!d->config_explicit || !d->spool_arg) &&
	    pp_dir_check(pp_android_dir(), err, sizeof(err))) {
		fprintf(stderr, "powerpind: %s\n", err);
		return 1;
	}
	if (ppd_config_load(d->config_path, d->config_explicit, &d->cfg, err,
			    sizeof(err))) {
		fprintf(stderr, "powerpind: %s\n", err);
		return 1;
	}
	if (d->check_config) {
		ret = print_config(d);
		ppd_config_free(&d->cfg);
		return ret;
	}
	if (!tracefs_tracing_dir() || access(tracefs_tracing_dir(), W_OK)) {
		fprintf(stderr, "powerpind: no write access to tracefs (mounted? root?)\n");
		return 1;
	}
	if (setup_spool(d))
		return 1;
	if (!d->foreground) {
		choose_log(d);
		if (detach(d)) {
			fprintf(stderr, "powerpind: daemon: %s\n", strerror(errno));
			return 1;
		}
	}
	return -1;
}

/*
 * Listen to the module (@pfd[0]) and to the signals of @mask (@pfd[1]),
 * apply the configuration to a loaded module and enable the capture
 * events.  0, or -1 logged.
 */
static int daemon_listen(struct ppd *d, struct pollfd *pfd, const sigset_t *mask)
{
	bool missing;

	pfd[1].fd = signalfd(-1, mask, SFD_CLOEXEC);
	pfd[1].events = POLLIN;

	d->nl = pp_genl_listen(&d->loaded);
	if (!d->nl || pfd[1].fd < 0) {
		logmsg(d, LOG_ERR, "cannot listen to generic netlink: %s",
		       strerror(errno));
		return -1;
	}
	pfd[0].fd = pp_genl_fd(d->nl);
	pfd[0].events = POLLIN;
	if (!d->loaded)
		logmsg(d, LOG_WARNING, "powerpin.ko not loaded; waiting for it");
	else
		apply_config(d);

	/* stale data from before is no part of any capture */
	if (!tracefs_trace_is_on(NULL))
		pp_trace_clear();
	d->saved = pp_events_enable(&missing);
	if (!d->saved) {
		logmsg(d, LOG_ERR, "cannot enable the capture events: %s",
		       strerror(errno));
		return -1;
	}
	/* a gate that was already open when we came gets its capture too */
	if (d->loaded)
		resync(d);
	logmsg(d, LOG_INFO, "ready: spool %s, %s", d->spool,
	       d->loaded ? "powerpin.ko loaded" : "waiting for powerpin.ko");
	return 0;
}

/* SIGHUP rereads the configuration, SIGCHLD reaps, the others stop. */
static void daemon_on_signal(struct ppd *d, int signo)
{
	switch (signo) {
	case SIGHUP:
		if (!reload_config(d)) {
			logmsg(d, LOG_INFO, "configuration reread");
			if (d->loaded)
				apply_config(d);
		}
		break;
	case SIGCHLD:
		reap(d, false);
		break;
	default:
		logmsg(d, LOG_INFO, "signal %d: finishing", signo);
		d->stopping = true;
		break;
	}
}

/* Module events, the capture's drain and signals, until a signal stops it. */
static int daemon_loop(struct ppd *d, struct pollfd *pfd)
{
	struct signalfd_siginfo si;

	while (!d->stopping) {
		int n = poll(pfd, 2, d->cap ? 100 : -1);

		if (n < 0 && errno != EINTR) {
			logmsg(d, LOG_ERR, "poll: %s", strerror(errno));
			return 1;
		}
		if (pfd[0].revents & POLLIN) {
			if (pp_genl_read_events(d->nl, on_event, d) < 0) {
				logmsg(d, LOG_WARNING, "netlink events lost (%s); resyncing",
				       strerror(errno));
				resync(d);
			}
		}
		/* a capture that cannot be written is over: say so, free its space */
		if (d->cap && pp_capture_drain(d->cap) < 0)
			capture_stop(d, boottime_ns(), -1, false);
		if (pfd[1].revents & POLLIN &&
		    read(pfd[1].fd, &si, sizeof(si)) == sizeof(si))
			daemon_on_signal(d, si.ssi_signo);
	}
	return 0;
}

/* The capture stopped, the events as they were, the workers reaped. */
static int daemon_finish(struct ppd *d, int status)
{
	if (capture_stop(d, boottime_ns(), -1, false))
		status = 1;
	pp_events_restore(d->saved);
	if (d->powerpin_enabled_later)
		tracefs_event_disable(NULL, "powerpin", NULL);
	reap(d, true);
	pp_genl_close(d->nl);
	ppd_config_free(&d->cfg);
	logmsg(d, status ? LOG_ERR : LOG_INFO, "exiting%s",
	       status ? " with status 1" : "");
	return status;
}

static int daemon_main(struct ppd *d, int argc, char **argv)
{
	struct pollfd pfd[2];
	sigset_t mask;
	int ret;

	/* signals wait in the signalfd, even those that come during setup */
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGCHLD);
	sigprocmask(SIG_BLOCK, &mask, NULL);

	ret = daemon_start(d, argc, argv);
	if (ret >= 0)
		return ret;
	if (daemon_listen(d, pfd, &mask))
		return 1;
	return daemon_finish(d, daemon_loop(d, pfd));
}

int main(int argc, char **argv)
{
	struct ppd d = { .cfg = { .report = true }, .spool_lock = -1, .cap_lock = -1,
			 .logd = { .fd = -1 } };
	int ret = daemon_main(&d, argc, argv);

	free(d.config_abs);
	if (d.logd.fd >= 0)
		close(d.logd.fd);
	return ret;
}
