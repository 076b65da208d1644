// SPDX-License-Identifier: GPL-2.0
/*
 * powerpin status, powerpin config, powerpin record: the generic netlink
 * control of powerpin.ko and a one-shot capture without the daemon.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>
#include <tracefs.h>
#include <linux/powerpin.h>

#include "commands.h"
#include "base/base.h"
#include "capture/capture.h"

/* Open the family or say why not. */
static struct pp_genl *open_family(const char *cmd, bool quiet_absent)
{
	struct pp_genl *g = pp_genl_open();

	if (g)
		return g;
	if (errno == ENOENT) {
		if (!quiet_absent)
			fprintf(stderr,
				"powerpin %s: powerpin.ko is not loaded (no generic netlink family \"powerpin\"); load it with modprobe powerpin or insmod powerpin.ko\n",
				cmd);
	} else {
		fprintf(stderr, "powerpin %s: cannot talk to the kernel over generic netlink: %s\n",
			cmd, strerror(errno));
	}
	return NULL;
}

static void report_failure(const char *cmd, const char *what,
			   struct pp_genl *g, int err)
{
	const char *msg = pp_genl_error(g);

	if (err == EPERM)
		fprintf(stderr,
			"powerpin %s: permission denied: %s needs CAP_NET_ADMIN (run as root)\n",
			cmd, what);
	else
		fprintf(stderr, "powerpin %s: %s failed: %s%s%s\n", cmd, what,
			strerror(err), msg ? ": " : "", msg ? msg : "");
}

/* ---- status ------------------------------------------------------------ */

static void status_usage(FILE *out)
{
	fprintf(out,
		"usage: powerpin status [--json [FILE]]\n\n"
		"Show the sampler's state and counters (powerpin.ko over generic netlink),\n"
		"and the versions of powerpin and of the loaded powerpin.ko: a warning on\n"
		"stderr says when they differ.\n\n"
		"  -j, --json [FILE]  the same as one JSON object into FILE (\"-\" or none:\n"
		"                     standard output, instead of the text)\n"
		"  -h, --help         this help\n");
}

/* The loaded module's version, or NULL (not loaded, or built without one). */
static const char *module_version(char *buf, size_t len)
{
	return powerpin_module_version(buf, len) ? NULL : buf;
}

static void print_status_json(FILE *out, const struct pp_status *st,
			      const char *modver)
{
	fprintf(out, "{\"state\":\"%s\",\"event_enabled\":%s,\"tracing_on\":%s,\"supply\":",
		pp_state_name(st->state), st->event_enabled ? "true" : "false",
		st->tracing_on < 0 ? "null" : st->tracing_on ? "true" : "false");
	json_string(out, st->supply, SIZE_MAX);
	fprintf(out, ",\"supply_bound\":");
	json_string(out, st->supply_bound, SIZE_MAX);
	fprintf(out,
		",\"supply_present\":%s,\"period_us\":%u,\"samples\":%llu,\"read_errors\":%llu,"
		"\"missed\":%llu,\"supply_lost\":%llu,\"supply_found\":%llu,"
		"\"last\":{\"seq\":%u,\"time_ns\":%llu,\"voltage_uv\":%lld,\"current_ua\":%lld,"
		"\"charge_uah\":%lld,\"power_uw\":%lld,\"flags\":%u},",
		st->supply_present ? "true" : "false", st->period_us,
		(unsigned long long)st->samples,
		(unsigned long long)st->read_errors,
		(unsigned long long)st->missed,
		(unsigned long long)st->supply_lost,
		(unsigned long long)st->supply_found, st->last_seq,
		(unsigned long long)st->last_time_ns,
		(long long)st->last_voltage_uv, (long long)st->last_current_ua,
		(long long)st->last_charge_uah, (long long)st->last_power_uw,
		st->last_flags);
	fputs("\"version\":", out);
	json_string(out, powerpin_version(), SIZE_MAX);
	fputs(",\"module_version\":", out);
	if (modver)
		json_string(out, modver, SIZE_MAX);
	else
		fputs("null", out);
	fprintf(out, ",\"versions_match\":%s}\n",
		modver && !strcmp(modver, powerpin_version()) ? "true" : "false");
}

static void print_status_text(FILE *out, const struct pp_status *st,
			      const char *modver)
{
	fprintf(out, "state:        %s\n", pp_state_name(st->state));
	fprintf(out, "version:      powerpin %s, powerpin.ko %s\n",
		powerpin_version(), modver ? modver : "(no version)");
	fprintf(out, "gate:         event %s, tracing %s\n",
		st->event_enabled ? "enabled" : "disabled",
		st->tracing_on < 0 ? "not known to the module (a KMI build)" :
		st->tracing_on ? "on" : "off");
	fprintf(out, "supply:       %s (%s%s%s)\n",
		st->supply[0] ? st->supply : "(first battery)",
		st->supply_present ? "present" : "absent",
		st->supply_bound[0] ? ", bound to " : "", st->supply_bound);
	fprintf(out, "period:       %u us\n", st->period_us);
	fprintf(out, "samples:      %llu\n", (unsigned long long)st->samples);
	fprintf(out, "read errors:  %llu\n", (unsigned long long)st->read_errors);
	fprintf(out, "missed:       %llu deadlines\n", (unsigned long long)st->missed);
	fprintf(out, "supply lost:  %llu, found: %llu\n",
		(unsigned long long)st->supply_lost,
		(unsigned long long)st->supply_found);
	if (st->samples && !st->has_readings)
		fprintf(out,
			"last sample:  seq %u at %llu.%06llu s, flags 0x%x (readings need CAP_SYS_ADMIN or CAP_PERFMON)\n",
			st->last_seq,
			(unsigned long long)(st->last_time_ns / 1000000000ULL),
			(unsigned long long)(st->last_time_ns % 1000000000ULL / 1000),
			st->last_flags);
	else if (st->samples)
		fprintf(out,
			"last sample:  seq %u at %llu.%06llu s: %lld uV, %lld uA, %lld uAh, %lld uW, flags 0x%x\n",
			st->last_seq,
			(unsigned long long)(st->last_time_ns / 1000000000ULL),
			(unsigned long long)(st->last_time_ns % 1000000000ULL / 1000),
			(long long)st->last_voltage_uv,
			(long long)st->last_current_ua,
			(long long)st->last_charge_uah,
			(long long)st->last_power_uw, st->last_flags);
	else
		fprintf(out, "last sample:  none yet\n");
}

int cmd_status(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", required_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct output_file jf;
	const char *modver, *json = NULL;
	struct pp_status st;
	struct pp_genl *g;
	char buf[128];
	int c, ret;

	json_option_normalize(argc, argv, true);
	while ((c = getopt_long(argc, argv, "j:h", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = optarg;
			break;
		case 'h':
			status_usage(stdout);
			return 0;
		default:
			return usage_error("powerpin status");
		}
	}
	if (optind < argc) {
		fprintf(stderr, "powerpin status: unexpected argument '%s'\n",
			argv[optind]);
		return usage_error("powerpin status");
	}
	if (json && (ret = json_output_check("powerpin status", json)))
		return ret;
	g = open_family("status", false);
	if (!g)
		return 1;
	if (pp_genl_get_status(g, &st)) {
		report_failure("status", "GET_STATUS", g, errno);
		pp_genl_close(g);
		return 1;
	}
	pp_genl_close(g);
	modver = module_version(buf, sizeof(buf));
	if (json) {
		if (json_output_open("powerpin status", json, &jf))
			return 1;
		print_status_json(jf.fp, &st, modver);
		/* the text still on stdout unless the JSON took its place */
		if (!jf.is_stdout)
			print_status_text(stdout, &st, modver);
		if (json_output_commit("powerpin status", &jf))
			return 1;
	} else {
		print_status_text(stdout, &st, modver);
	}
	if (!modver || strcmp(modver, powerpin_version()))
		fprintf(stderr,
			"powerpin status: warning: powerpin.ko is %s%s but powerpin is %s: install a module and tools of the same version\n",
			modver ? "version " : "", modver ? modver : "built without a version",
			powerpin_version());
	return flush_stdout() ? 1 : 0;
}

/* ---- config ------------------------------------------------------------ */

static void config_usage(FILE *out)
{
	fprintf(out,
		"usage: powerpin config [--period-ms N] [--supply NAME]\n\n"
		"Change the sampler's configuration (needs CAP_NET_ADMIN).\n\n"
		"  -p, --period-ms N   sampling period in milliseconds, 1 to 60000;\n"
		"                      fractions down to 0.001 are allowed (1.5)\n"
		"  -s, --supply NAME   power_supply to sample; \"\" = first battery\n"
		"  -h, --help          this help\n");
}

/* milliseconds, possibly fractional, to microseconds */
static int parse_period_ms(const char *s, uint32_t *us)
{
	double ms, v;
	char *end;

	errno = 0;
	ms = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(ms))
		return -1;
	v = ms * 1000.0;
	if (v < POWERPIN_PERIOD_US_MIN || v > POWERPIN_PERIOD_US_MAX || v != floor(v))
		return -1;
	*us = (uint32_t)v;
	return 0;
}

int cmd_config(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "period-ms", required_argument, NULL, 'p' },
		{ "supply", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	const char *supply = NULL;
	bool have_period = false;
	struct pp_genl *g;
	uint32_t period_us = 0;
	int c, ret = 0;

	while ((c = getopt_long(argc, argv, "p:s:h", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			if (parse_period_ms(optarg, &period_us)) {
				fprintf(stderr,
					"powerpin config: invalid --period-ms '%s': expected 1 to 60000 ms in steps of 0.001\n",
					optarg);
				return usage_error("powerpin config");
			}
			have_period = true;
			break;
		case 's':
			if (strlen(optarg) >= PP_SUPPLY_NAME_MAX) {
				fprintf(stderr,
					"powerpin config: supply name too long (at most %d bytes)\n",
					PP_SUPPLY_NAME_MAX - 1);
				return usage_error("powerpin config");
			}
			supply = optarg;
			break;
		case 'h':
			config_usage(stdout);
			return 0;
		default:
			return usage_error("powerpin config");
		}
	}
	if (optind < argc) {
		fprintf(stderr, "powerpin config: unexpected argument '%s'\n",
			argv[optind]);
		return usage_error("powerpin config");
	}
	if (!have_period && !supply) {
		fprintf(stderr, "powerpin config: nothing to change (give --period-ms and/or --supply)\n");
		return usage_error("powerpin config");
	}
	g = open_family("config", false);
	if (!g)
		return 1;
	if (pp_genl_set_config(g, have_period ? &period_us : NULL, supply)) {
		report_failure("config", "changing the configuration", g, errno);
		ret = 1;
	}
	pp_genl_close(g);
	return ret;
}

/* ---- record ------------------------------------------------------------ */

static volatile sig_atomic_t record_stop;

static void on_stop_signal(int sig)
{
	record_stop = sig;
}

static void record_usage(FILE *out)
{
	fprintf(out,
		"usage: powerpin record [-d SECONDS] [-o FILE] [-- CMD [ARGS...]]\n\n"
		"Capture power samples with scheduler events and trace_marker lines into a\n"
		"trace-cmd trace.dat (docs/capture-format.md), without powerpind.\n"
		"Enables the powerpin events, sched_switch, sched_process_fork/exit, turns\n"
		"tracing on, and puts all of it back as it was at the end (tracefs too:\n"
		"unmounted again if it was mounted for the capture).\n\n"
		"  -d, --duration SECONDS  stop after this long (fractions allowed)\n"
		"  -o, --output FILE       capture file (default trace.dat); \"-\" is stdout,\n"
		"                          a FIFO or device is written through, a file is\n"
		"                          replaced whole at the end (a symlink's target)\n"
		"      --compression any|none|zstd|zlib\n"
		"                          libtracecmd's compression of the capture (default\n"
		"                          any: the best it has; readers decompress on their own)\n"
		"  -B, --instance NAME     record into ftrace instance NAME (made if needed,\n"
		"                          removed at the end if made), as trace-cmd record -B;\n"
		"                          the capture holds its events as its top buffer\n"
		"  -q, --quiet             no progress line\n"
		"  -h, --help              this help\n"
		"  -- CMD [ARGS...]        run CMD and stop when it exits\n\n"
		"Without -d or CMD, the capture runs until Ctrl-C.  Ctrl-C or SIGTERM\n"
		"always end with a complete file.  CMD still running at the end of -d\n"
		"gets SIGTERM.  With CMD, the exit status is CMD's (128 + N if signal N\n"
		"ended it, 127 if it was not found, 126 if it could not be run), and the\n"
		"capture is written all the same; 1 if the capture failed.  With -o -,\n"
		"CMD's standard output goes to standard error.\n");
}

static double mono_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

struct record_opts {
	double duration;
	const char *output;
	const char *compression;
	const char *instance;	/* -B NAME, NULL: the top-level buffer */
	bool quiet;
	char **cmd;		/* NULL: no command */
};

/* Returns -1 to go on, else the exit status. */
static int record_parse(int argc, char **argv, struct record_opts *o)
{
	static const struct option opts[] = {
		{ "duration", required_argument, NULL, 'd' },
		{ "output", required_argument, NULL, 'o' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "compression", required_argument, NULL, 'Z' },
		{ "instance", required_argument, NULL, 'B' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	char *end;
	int c;

	memset(o, 0, sizeof(*o));
	o->output = "trace.dat";
	o->compression = PP_CAPTURE_COMPRESSION;
	while ((c = getopt_long(argc, argv, "+d:o:B:qh", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			errno = 0;
			o->duration = strtod(optarg, &end);
			if (errno || end == optarg || *end || !isfinite(o->duration) ||
			    o->duration <= 0) {
				fprintf(stderr,
					"powerpin record: invalid --duration '%s': expected seconds > 0\n",
					optarg);
				return usage_error("powerpin record");
			}
			break;
		case 'o':
			if (!*optarg) {
				fprintf(stderr, "powerpin record: empty --output\n");
				return usage_error("powerpin record");
			}
			o->output = optarg;
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'Z':
			if (strcmp(optarg, "any") && strcmp(optarg, "none") &&
			    strcmp(optarg, "zstd") && strcmp(optarg, "zlib")) {
				fprintf(stderr,
					"powerpin record: --compression wants any, none, zstd or zlib, not '%s'\n",
					optarg);
				return usage_error("powerpin record");
			}
			o->compression = optarg;
			break;
		case 'B':
			o->instance = optarg;
			break;
		case 'h':
			record_usage(stdout);
			return 0;
		default:
			return usage_error("powerpin record");
		}
	}
	if (optind < argc)
		o->cmd = argv + optind;
	return -1;
}

/*
 * Start CMD with the caller's signal dispositions; when the capture itself
 * goes to standard output, CMD's output goes to standard error instead.
 */
static pid_t record_spawn(const struct record_opts *o, const struct sigaction *old_int,
			  const struct sigaction *old_term)
{
	bool capture_on_stdout = output_is_stdout(o->output);
	pid_t child;

	fflush(NULL);
	child = fork();
	if (child < 0) {
		fprintf(stderr, "powerpin record: fork: %s\n", strerror(errno));
		return -1;
	}
	if (child == 0) {
		sigaction(SIGINT, old_int, NULL);
		sigaction(SIGTERM, old_term, NULL);
		if (capture_on_stdout && dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
			_exit(EXIT_NOT_EXECUTABLE);
		exec_command("powerpin record", o->cmd);
	}
	return child;
}

/* Drain until -d, CMD's end or a stop signal; returns CMD's wait status. */
static int record_loop(const struct record_opts *o, struct pp_capture *cap, struct pp_genl *g,
		       uint64_t samples0, pid_t child)
{
	bool progress = !o->quiet && isatty(STDERR_FILENO);
	double t0 = mono_s(), last_progress = 0, now;
	struct pp_status st;
	int child_status = 0;

	while (!record_stop) {
		struct timespec nap = { 0, 100 * 1000 * 1000 };

		if (pp_capture_drain(cap) < 0)
			break;
		if (child > 0 && waitpid(child, &child_status, WNOHANG) == child) {
			child = -1;
			break;
		}
		now = mono_s();
		if (o->duration > 0 && now - t0 >= o->duration)
			break;
		if (progress && now - last_progress >= 0.5) {
			char n[32] = "no";

			if (g && !pp_genl_get_status(g, &st))
				snprintf(n, sizeof(n), "%llu",
					 (unsigned long long)(st.samples - samples0));
			fprintf(stderr, "\rrecording: %.1f s, %s samples, %llu lost events, %llu KiB   ",
				now - t0, n,
				(unsigned long long)pp_capture_lost(cap),
				(unsigned long long)(pp_capture_bytes(cap) / 1024));
			last_progress = now;
		}
		nanosleep(&nap, NULL);
	}
	tracefs_trace_off(pp_record_tracefs_instance());
	if (progress)
		fputc('\n', stderr);
	if (child > 0) {
		kill(child, SIGTERM);
		while (waitpid(child, &child_status, 0) < 0 && errno == EINTR)
			;
	}
	return child_status;
}

/* Finish the file and say what went into it; 0 or -1. */
static int record_finish(const struct record_opts *o, struct pp_capture *cap,
			 struct pp_genl *g, uint64_t samples0)
{
	struct pp_capture_stats cst;
	int64_t samples = -1;
	struct pp_status st;
	char err[512];

	if (g && !pp_genl_get_status(g, &st))
		samples = (int64_t)(st.samples - samples0);
	if (pp_capture_finish(cap, samples, &cst, err, sizeof(err))) {
		fprintf(stderr, "powerpin record: %s\n", err);
		return -1;
	}
	if (samples >= 0)
		snprintf(err, sizeof(err), "%lld", (long long)samples);
	else
		snprintf(err, sizeof(err), "unknown");
	fprintf(stderr, "powerpin record: wrote %s: %s samples, %llu lost events, %llu bytes of events, %.1f s\n",
		strcmp(o->output, "-") ? o->output : "<stdout>", err,
		(unsigned long long)cst.lost_events,
		(unsigned long long)cst.bytes, cst.duration_ns / 1e9);
	return 0;
}

/* Say how CMD ended when that was not a success. */
static void record_say_status(const struct record_opts *o, int child_status)
{
	if (WIFEXITED(child_status) && WEXITSTATUS(child_status))
		fprintf(stderr, "powerpin record: %s exited with status %d\n",
			o->cmd[0], WEXITSTATUS(child_status));
	else if (WIFSIGNALED(child_status))
		fprintf(stderr, "powerpin record: %s was killed by signal %d (%s)\n",
			o->cmd[0], WTERMSIG(child_status), strsignal(WTERMSIG(child_status)));
}

static int record_check_tracefs(void)
{
	if (!tracefs_tracing_dir()) {
		fprintf(stderr, "powerpin record: tracefs is not mounted (mount -t tracefs nodev /sys/kernel/tracing)\n");
		return -1;
	}
	if (access(tracefs_tracing_dir(), W_OK)) {
		fprintf(stderr, "powerpin record: no write access to %s: %s (run as root)\n",
			tracefs_tracing_dir(), strerror(errno));
		return -1;
	}
	return 0;
}

/* -B NAME: capture in that ftrace instance; 0, or -1 with a message. */
static int record_instance(const struct record_opts *o)
{
	if (!o->instance)
		return 0;
	if (pp_record_instance(o->instance)) {
		fprintf(stderr, "powerpin record: cannot make ftrace instance %s: %s\n", o->instance,
			strerror(errno));
		return -1;
	}
	/* the sampler runs while the top-level tracing_on is 1, whatever the instance's */
	if (tracefs_trace_is_on(NULL) == 0)
		fprintf(stderr, "powerpin record: warning: the top-level tracing_on is 0: powerpin.ko samples only while it is 1\n");
	return 0;
}

/*
 * The events enabled (their state saved, returned; NULL after a message),
 * tracing off with its state in @was_on, the buffer cleared, and the
 * capture started into *@cap (NULL after a message).
 */
static struct pp_events_saved *record_setup(const struct record_opts *o, struct pp_genl *g,
					    int *was_on, struct pp_capture **cap)
{
	struct tracefs_instance *inst = pp_record_tracefs_instance();
	struct pp_events_saved *saved;
	bool missing_powerpin;
	char err[512];

	saved = pp_events_enable(&missing_powerpin);
	if (!saved) {
		fprintf(stderr, "powerpin record: cannot enable the capture events: %s\n",
			strerror(errno));
		return NULL;
	}
	if (missing_powerpin && g)
		fprintf(stderr, "powerpin record: warning: no powerpin events in tracefs\n");
	*was_on = tracefs_trace_is_on(inst);
	tracefs_trace_off(inst);
	pp_trace_clear();
	*cap = pp_capture_start(o->output, o->compression, err, sizeof(err));
	if (!*cap)
		fprintf(stderr, "powerpin record: %s\n", err);
	return saved;
}

/*
 * tracefs, the instance (-B) and the capture lock: the lock's descriptor
 * (-1 where locks do not work), or -2 after a message with everything
 * put back.  A tracefs that libtracefs mounts for the capture is
 * unmounted at its end.
 */
static int record_begin(const struct record_opts *o)
{
	int lock;

	pp_tracing_mounts_note();
	if (record_check_tracefs() || record_instance(o))
		goto undo;
	lock = pp_capture_lock();
	if (lock >= 0 || errno != EWOULDBLOCK)
		return lock;
	fprintf(stderr, "powerpin record: another capture (powerpind or powerpin record) is reading the ring buffer; try again when it ends\n");
undo:
	pp_record_instance_end();
	pp_tracing_mounts_undo();
	return -2;
}

int cmd_record(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_stop_signal };
	struct sigaction old_int, old_term;
	struct pp_events_saved *saved = NULL;
	struct pp_capture *cap = NULL;
	struct record_opts o;
	struct pp_status st;
	struct pp_genl *g;
	uint64_t samples0 = 0;
	int was_on, ret, child_status = 0, lock;
	pid_t child = -1;

	ret = record_parse(argc, argv, &o);
	if (ret >= 0)
		return ret;
	ret = 1;
	lock = record_begin(&o);
	if (lock == -2)
		return 1;

	/* from here on Ctrl-C means "finish the file", even during setup */
	record_stop = 0;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);

	g = open_family("record", true);
	if (!g)
		fprintf(stderr, "powerpin record: warning: powerpin.ko is not loaded: the capture has no power samples\n");
	else if (!pp_genl_get_status(g, &st))
		samples0 = st.samples;

	saved = record_setup(&o, g, &was_on, &cap);
	if (!saved)
		goto out;
	if (!cap)
		goto restore;
	tracefs_trace_on(pp_record_tracefs_instance());
	if (o.cmd && !record_stop) {
		child = record_spawn(&o, &old_int, &old_term);
		if (child < 0)
			record_stop = -1;
	}
	child_status = record_loop(&o, cap, g, samples0, child);
	if (record_finish(&o, cap, g, samples0))
		goto restore;
	/* the capture is written; the status is the command's, as with time(1) */
	ret = 0;
	if (child > 0) {
		record_say_status(&o, child_status);
		ret = wait_exit_status(child_status);
	} else if (o.cmd && record_stop < 0) {
		ret = 1;	/* CMD could not be started */
	}
restore:
	if (was_on > 0)
		tracefs_trace_on(pp_record_tracefs_instance());
	else
		tracefs_trace_off(pp_record_tracefs_instance());
	pp_events_restore(saved);
out:
	pp_record_instance_end();
	pp_genl_close(g);
	pp_capture_unlock(lock);
	pp_tracing_mounts_undo();
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	return ret;
}
