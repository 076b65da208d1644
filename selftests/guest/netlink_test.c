// SPDX-License-Identifier: GPL-2.0
/*
 * The "powerpin" generic netlink family in the guest: status, config, every
 * malformed request, permissions, the events group and module reload.
 * Runs as root from the repo root with powerpin.ko loaded.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <linux/powerpin.h>
#include <netlink/netlink.h>
#include <netlink/attr.h>
#include <netlink/msg.h>

#include "guest_harness.h"

#include "cmd_helpers.h"
#include "capture/capture.h"

#define TRACING "/sys/kernel/tracing"
#define PARAMS "/sys/module/powerpin/parameters"
#define EMU "/sys/kernel/debug/max17042_emu"
#define SUPPLY "max170xx_battery"
#define DEBUG_STATUS "/sys/kernel/debug/powerpin/status"

static int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_TRUNC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, s, strlen(s));
	close(fd);
	return n == (ssize_t)strlen(s) ? 0 : -1;
}

/*
 * Whether the kernel carries an error message in its netlink acks (extended
 * ack, 4.12): 3.10 answers a refused request with the errno alone.
 */
static int kernel_has_ext_ack(void)
{
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	int one = 1, ok;

	if (fd < 0)
		return 1;
	ok = !setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	close(fd);
	return ok;
}

/* The refused request's message, where the kernel can send one. */
#define EXPECT_ERROR_MESSAGE(g, text)					\
	do {								\
		if (kernel_has_ext_ack()) {				\
			ASSERT_NE(NULL, pp_genl_error(g));		\
			EXPECT_NE(NULL, strstr(pp_genl_error(g), text));\
		}							\
	} while (0)

/* Send @cmd with one raw attribute (type < 0: none); return the errno. */
static int raw_request(struct pp_genl *g, int cmd, int type, const void *data,
		       int len)
{
	struct nl_msg *msg = pp_genl_msg(g, cmd, POWERPIN_GENL_VERSION);
	int ret;

	if (!msg)
		return -1;
	if (type >= 0 && nla_put(msg, type, len, data)) {
		nlmsg_free(msg);
		return -1;
	}
	ret = pp_genl_transact(g, msg, NULL);
	nlmsg_free(msg);
	return ret;
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

FIXTURE(nl) {
	struct pp_genl *g;
	struct pp_status before;
	char tracing_on[8];
};

FIXTURE_SETUP(nl)
{
	self->g = pp_genl_open();
	ASSERT_NE(NULL, self->g) TH_LOG("powerpin family: %s", strerror(errno));
	ASSERT_EQ(0, pp_genl_get_status(self->g, &self->before));
	ASSERT_EQ(0, read_line(TRACING "/tracing_on", self->tracing_on,
			       sizeof(self->tracing_on)));
}

FIXTURE_TEARDOWN(nl)
{
	char bound[8];

	/* whatever a test left half done: gate, gauge, configuration */
	write_file(TRACING "/tracing_on", "0");
	write_file(TRACING "/events/powerpin/powerpin_battery/enable", "0");
	if (!read_line(EMU "/bind", bound, sizeof(bound)) && bound[0] == '0')
		write_file(EMU "/bind", "1");
	pp_genl_set_config(self->g, &self->before.period_us, self->before.supply);
	write_file(TRACING "/tracing_on", self->tracing_on[0] ? self->tracing_on : "1");
	pp_genl_close(self->g);
}

TEST_F(nl, status_matches_module_parameters)
{
	char buf[128];

	ASSERT_EQ(0, read_line(PARAMS "/period_us", buf, sizeof(buf)));
	EXPECT_EQ(strtoul(buf, NULL, 10), self->before.period_us);
	ASSERT_EQ(0, read_line(PARAMS "/supply", buf, sizeof(buf)));
	EXPECT_STREQ(buf, self->before.supply);
	EXPECT_LE(self->before.state, (uint32_t)POWERPIN_STATE_SAMPLING);
}

TEST_F(nl, get_status_refuses_attributes)
{
	uint32_t v = 100000;

	EXPECT_EQ(EINVAL, raw_request(self->g, POWERPIN_CMD_GET_STATUS,
				      POWERPIN_ATTR_PERIOD_US, &v, sizeof(v)));
	EXPECT_ERROR_MESSAGE(self->g, "");
}

TEST_F(nl, unknown_commands)
{
	EXPECT_EQ(EOPNOTSUPP, raw_request(self->g, 0, -1, NULL, 0));
	EXPECT_EQ(EOPNOTSUPP, raw_request(self->g, 99, -1, NULL, 0));
	EXPECT_EQ(EOPNOTSUPP, raw_request(self->g, POWERPIN_CMD_MAX + 1, -1, NULL, 0));
	/* events are kernel-to-user only */
	EXPECT_EQ(EOPNOTSUPP, raw_request(self->g, POWERPIN_CMD_CAPTURE_STARTED, -1, NULL, 0));
	EXPECT_EQ(EOPNOTSUPP, raw_request(self->g, POWERPIN_CMD_SUPPLY_LOST, -1, NULL, 0));
}

TEST_F(nl, set_config_missing_attributes)
{
	EXPECT_EQ(EINVAL, raw_request(self->g, POWERPIN_CMD_SET_CONFIG, -1, NULL, 0));
	EXPECT_ERROR_MESSAGE(self->g, "PERIOD_US or SUPPLY");
}

TEST_F(nl, set_config_unknown_attributes)
{
	uint32_t v = 100000;

	/* past the highest attribute, UNSPEC, and a status-only attribute */
	EXPECT_EQ(EINVAL, raw_request(self->g, POWERPIN_CMD_SET_CONFIG,
				      POWERPIN_ATTR_MAX + 1, &v, sizeof(v)));
	EXPECT_ERROR_MESSAGE(self->g, "");
	EXPECT_EQ(EINVAL, raw_request(self->g, POWERPIN_CMD_SET_CONFIG,
				      POWERPIN_ATTR_UNSPEC, &v, sizeof(v)));
	EXPECT_EQ(EINVAL, raw_request(self->g, POWERPIN_CMD_SET_CONFIG,
				      POWERPIN_ATTR_SAMPLES, &v, sizeof(v)));
}

TEST_F(nl, set_config_wrong_types)
{
	uint8_t v8 = 10;
	uint64_t v64 = 100000;
	char name[PP_SUPPLY_NAME_MAX + 8];

	EXPECT_EQ(EINVAL, raw_request(self->g, POWERPIN_CMD_SET_CONFIG,
				      POWERPIN_ATTR_PERIOD_US, &v8, sizeof(v8)));
	EXPECT_ERROR_MESSAGE(self->g, "");
	EXPECT_EQ(EINVAL, raw_request(self->g, POWERPIN_CMD_SET_CONFIG,
				      POWERPIN_ATTR_PERIOD_US, &v64, sizeof(v64)));
	/* supply: not NUL-terminated, empty payload, too long */
	EXPECT_EQ(EINVAL, raw_request(self->g, POWERPIN_CMD_SET_CONFIG,
				      POWERPIN_ATTR_SUPPLY, "abc", 3));
	EXPECT_EQ(EINVAL, raw_request(self->g, POWERPIN_CMD_SET_CONFIG,
				      POWERPIN_ATTR_SUPPLY, "", 0));
	memset(name, 'x', sizeof(name));
	name[PP_SUPPLY_NAME_MAX] = '\0';	/* 64 characters */
	EXPECT_EQ(EINVAL, raw_request(self->g, POWERPIN_CMD_SET_CONFIG,
				      POWERPIN_ATTR_SUPPLY, name,
				      PP_SUPPLY_NAME_MAX + 1));
	/*
	 * A short name NUL-padded past the policy's length: the strict
	 * core counts the bytes, not the string (-ERANGE), on every kernel
	 */
	memset(name, '\0', sizeof(name));
	strcpy(name, "max170xx_battery");
	EXPECT_EQ(ERANGE, raw_request(self->g, POWERPIN_CMD_SET_CONFIG,
				      POWERPIN_ATTR_SUPPLY, name, sizeof(name)));
	/* the nested flag on a plain attribute */
	EXPECT_EQ(EINVAL, raw_request(self->g, POWERPIN_CMD_SET_CONFIG,
				      POWERPIN_ATTR_SUPPLY | NLA_F_NESTED, name,
				      strlen(name) + 1));
	EXPECT_EQ(EINVAL, raw_request(self->g, POWERPIN_CMD_SET_CONFIG,
				      POWERPIN_ATTR_PERIOD_US | NLA_F_NESTED, &v64, 4));
}

TEST_F(nl, set_config_out_of_range)
{
	static const uint32_t bad[] = {
		0, POWERPIN_PERIOD_US_MIN - 1, POWERPIN_PERIOD_US_MAX + 1, 0xffffffffu
	};
	struct pp_status after;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		EXPECT_EQ(ERANGE, pp_genl_set_config(self->g, &bad[i], NULL) ? errno : 0)
			TH_LOG("period_us %u", bad[i]);
		EXPECT_ERROR_MESSAGE(self->g, "");
	}
	/* a good supply with a bad period changes nothing */
	EXPECT_EQ(-1, pp_genl_set_config(self->g, &bad[1], "other_battery"));
	EXPECT_EQ(ERANGE, errno);
	ASSERT_EQ(0, pp_genl_get_status(self->g, &after));
	EXPECT_EQ(self->before.period_us, after.period_us);
	EXPECT_STREQ(self->before.supply, after.supply);
}

TEST_F(nl, set_config_applies)
{
	uint32_t period = self->before.period_us == 50000 ? 40000 : 50000;
	uint32_t edge_lo = POWERPIN_PERIOD_US_MIN, edge_hi = POWERPIN_PERIOD_US_MAX;
	struct pp_status after;
	char buf[64];

	ASSERT_EQ(0, pp_genl_set_config(self->g, &period, NULL) ? errno : 0);
	ASSERT_EQ(0, pp_genl_get_status(self->g, &after));
	EXPECT_EQ(period, after.period_us);
	if (!read_line(PARAMS "/period_us", buf, sizeof(buf)))
		EXPECT_EQ(period, strtoul(buf, NULL, 10));
	/* both ends of the range are accepted */
	EXPECT_EQ(0, pp_genl_set_config(self->g, &edge_lo, NULL));
	EXPECT_EQ(0, pp_genl_set_config(self->g, &edge_hi, NULL));
	ASSERT_EQ(0, pp_genl_set_config(self->g, &self->before.period_us,
					self->before.supply));
	ASSERT_EQ(0, pp_genl_get_status(self->g, &after));
	EXPECT_EQ(self->before.period_us, after.period_us);
	EXPECT_STREQ(self->before.supply, after.supply);
}

/*
 * Live readings only for CAP_SYS_ADMIN or CAP_PERFMON (powerpin(4)): after a
 * sample, root's GET_STATUS carries the last voltage, current, charge and
 * power; nobody's carries the same state and counters and none of them.
 */
/*
 * In a forked child: become nobody and ask for the status into @st; the
 * child ends with 10 (setuid), 11 (no family) or 12 (GET_STATUS failed).
 * Returns the family, open as nobody, for what the child asks next.
 */
static struct pp_genl *status_as_nobody(struct pp_status *st)
{
	struct pp_genl *g;

	if (setgid(65534) || setuid(65534))
		_exit(10);
	g = pp_genl_open();
	if (!g)
		_exit(11);
	if (pp_genl_get_status(g, st))
		_exit(12);
	return g;
}

TEST_F(nl, readings_need_capability)
{
	struct pp_status root;
	int status;
	pid_t pid;

	ASSERT_EQ(0, write_file(TRACING "/events/powerpin/powerpin_battery/enable", "1"));
	ASSERT_EQ(0, write_file(TRACING "/tracing_on", "1"));
	for (int i = 0; i < 1000; i++) {
		ASSERT_EQ(0, pp_genl_get_status(self->g, &root));
		if (root.samples > self->before.samples)
			break;
		usleep(10000);
	}
	ASSERT_EQ(0, write_file(TRACING "/tracing_on", "0"));
	usleep(100000);		/* a read under way is written or dropped */
	ASSERT_EQ(0, pp_genl_get_status(self->g, &root));
	ASSERT_GT(root.samples, self->before.samples);
	EXPECT_TRUE(root.has_readings);
	EXPECT_NE(0, root.last_voltage_uv);

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct pp_status st;

		status_as_nobody(&st);
		if (st.has_readings || st.last_voltage_uv || st.last_current_ua ||
		    st.last_charge_uah || st.last_power_uw)
			_exit(13);
		/* the rest is all there */
		if (st.samples != root.samples || st.last_seq != root.last_seq ||
		    st.period_us != root.period_us || strcmp(st.supply, root.supply))
			_exit(14);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status)) TH_LOG("13: readings shown, 14: state differs");
}

/* @text has a line starting with @key */
static bool has_line(const char *text, const char *key)
{
	size_t n = strlen(key);
	const char *p;

	for (p = text; p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, key, n))
			return true;
	return false;
}

static unsigned long flags_line(const char *text)
{
	const char *p = strstr(text, "\nlast_flags ");

	return p ? strtoul(p + strlen("\nlast_flags "), NULL, 16) : ~0UL;
}

/* Drop every capability of this process, keeping uid 0 (and so debugfs). */
static int drop_capabilities(void)
{
	struct { uint32_t version; int pid; } hdr = { 0x20080522, 0 };	/* _V3 */
	struct { uint32_t effective, permitted, inheritable; } data[2] = { { 0 } };

	return syscall(SYS_capset, &hdr, data);
}

/*
 * The readings rule holds everywhere: with the gauge's registers pinned,
 * each sample repeats the last (REPEATED), and a reader without
 * CAP_SYS_ADMIN or CAP_PERFMON learns neither the readings nor that flag,
 * whether it asks over netlink (nobody) or reads debugfs status (uid 0
 * with no capabilities).
 */
TEST_F(nl, repeated_flag_and_debugfs_follow_the_readings_rule)
{
	static const char *const pins[] = { "vcell_raw", "current_raw", "qh_raw", "repcap_raw" };
	char path[128], text[4096];
	struct pp_status root;
	unsigned int i;
	int status;
	pid_t pid;

	if (access(DEBUG_STATUS, R_OK))
		SKIP(return, "no %s", DEBUG_STATUS);
	for (i = 0; i < ARRAY_SIZE(pins); i++) {
		snprintf(path, sizeof(path), EMU "/%s", pins[i]);
		ASSERT_EQ(0, write_file(path, i == 1 ? "0" : "4096"));
	}
	ASSERT_EQ(0, write_file(TRACING "/events/powerpin/powerpin_battery/enable", "1"));
	ASSERT_EQ(0, write_file(TRACING "/tracing_on", "1"));
	/* a sample after a sample, both of the pinned registers */
	for (i = 0; i < 3000; i++) {
		ASSERT_EQ(0, pp_genl_get_status(self->g, &root));
		if (root.samples >= self->before.samples + 3 &&
		    (root.last_flags & POWERPIN_SAMPLE_REPEATED))
			break;
		usleep(10000);
	}
	ASSERT_EQ(0, write_file(TRACING "/tracing_on", "0"));
	usleep(100000);		/* a read under way is written or dropped */
	for (i = 0; i < ARRAY_SIZE(pins); i++) {
		snprintf(path, sizeof(path), EMU "/%s", pins[i]);
		write_file(path, "-1");
	}
	ASSERT_EQ(0, pp_genl_get_status(self->g, &root));
	ASSERT_NE(0U, root.last_flags & (uint32_t)POWERPIN_SAMPLE_REPEATED)
		TH_LOG("flags 0x%x after %llu samples", root.last_flags,
		       (unsigned long long)root.samples);
	ASSERT_EQ(0, read_text(DEBUG_STATUS, text, sizeof(text)));
	EXPECT_TRUE(has_line(text, "last_voltage_uv ")) TH_LOG("%s", text);
	EXPECT_EQ(root.last_flags, flags_line(text));

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct pp_status st;

		status_as_nobody(&st);
		_exit(st.has_readings ? 13 : st.last_flags != (root.last_flags &
				~POWERPIN_SAMPLE_REPEATED) ? 14 : 0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, WIFEXITED(status) ? WEXITSTATUS(status) : -1)
		TH_LOG("13: readings shown to nobody, 14: its flags are not root's without REPEATED");

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		if (drop_capabilities())
			_exit(10);
		if (read_text(DEBUG_STATUS, text, sizeof(text)))
			_exit(11);
		if (has_line(text, "last_voltage_uv ") || has_line(text, "last_current_ua ") ||
		    has_line(text, "last_charge_uah ") || has_line(text, "last_power_uw "))
			_exit(12);
		_exit(flags_line(text) != (root.last_flags & ~POWERPIN_SAMPLE_REPEATED) ? 13 : 0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, WIFEXITED(status) ? WEXITSTATUS(status) : -1)
		TH_LOG("11: status unreadable, 12: readings in debugfs without capabilities, 13: flags");
}

/* As nobody: GET_STATUS works, SET_CONFIG is EPERM and changes nothing. */
TEST_F(nl, set_config_needs_admin)
{
	struct pp_status after;
	int status;
	pid_t pid;

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		uint32_t period = 20000;
		struct pp_status st;
		struct pp_genl *g = status_as_nobody(&st);

		if (!pp_genl_set_config(g, &period, NULL))
			_exit(13);
		if (errno != EPERM)
			_exit(14);
		if (!pp_genl_set_config(g, NULL, "other_battery"))
			_exit(15);
		_exit(errno == EPERM ? 0 : 16);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	ASSERT_EQ(0, pp_genl_get_status(self->g, &after));
	EXPECT_EQ(self->before.period_us, after.period_us);
	EXPECT_STREQ(self->before.supply, after.supply);
}

/* Run build/bin/powerpin ARGS as @uid; stdout+stderr into @out. */
static int run_cli(uid_t uid, char *out, size_t len, char *const args[])
{
	int pipefd[2], status;
	size_t got = 0;
	ssize_t n;
	pid_t pid;

	if (pipe(pipefd))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		dup2(pipefd[1], STDOUT_FILENO);
		dup2(pipefd[1], STDERR_FILENO);
		close(pipefd[0]);
		if (uid && (setgid(uid) || setuid(uid)))
			_exit(126);
		execv("build/bin/powerpin", args);
		_exit(127);
	}
	close(pipefd[1]);
	while (got < len - 1 && (n = read(pipefd[0], out + got, len - 1 - got)) > 0)
		got += n;
	out[got] = '\0';
	close(pipefd[0]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

TEST_F(nl, cli_status_and_config)
{
	char out[8192], want[64];
	char *status_json[] = { "powerpin", "status", "--json", NULL };
	char *status_bad[] = { "powerpin", "status", "extra", NULL };
	char *config_none[] = { "powerpin", "config", NULL };
	char *config_fast[] = { "powerpin", "config", "--period-ms", "0.5", NULL };
	char *config_ok[] = { "powerpin", "config", "--period-ms", "5", NULL };
	struct pp_status after;

	ASSERT_EQ(0, run_cli(0, out, sizeof(out), status_json));
	snprintf(want, sizeof(want), "\"period_us\":%u,", self->before.period_us);
	EXPECT_NE(NULL, strstr(out, want)) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "\"state\":\""));
	/* status needs no privilege */
	EXPECT_EQ(0, run_cli(65534, out, sizeof(out), status_json));
	EXPECT_EQ(2, run_cli(0, out, sizeof(out), status_bad));
	EXPECT_EQ(2, run_cli(0, out, sizeof(out), config_none));
	EXPECT_NE(NULL, strstr(out, "nothing to change"));
	EXPECT_EQ(2, run_cli(0, out, sizeof(out), config_fast));
	EXPECT_NE(NULL, strstr(out, "invalid --period-ms"));
	/* config as nobody: refused with a message, nothing changed */
	EXPECT_EQ(1, run_cli(65534, out, sizeof(out), config_ok));
	EXPECT_NE(NULL, strstr(out, "permission denied")) TH_LOG("%s", out);
	ASSERT_EQ(0, pp_genl_get_status(self->g, &after));
	EXPECT_EQ(self->before.period_us, after.period_us);
}

struct seen {
	int started, stopped, gone, back, found, lost;
	uint64_t start_ns, stop_ns, samples;
	char found_name[PP_SUPPLY_NAME_MAX], lost_name[PP_SUPPLY_NAME_MAX];
	uint64_t found_ns, lost_ns;
};

static void on_event(const struct pp_event *ev, void *arg)
{
	struct seen *s = arg;

	switch (ev->kind) {
	case PP_EVENT_CAPTURE_STARTED:
		s->started++;
		s->start_ns = ev->time_ns;
		break;
	case PP_EVENT_CAPTURE_STOPPED:
		s->stopped++;
		s->stop_ns = ev->time_ns;
		s->samples = ev->capture_samples;
		break;
	case PP_EVENT_FAMILY_GONE:
		s->gone++;
		break;
	case PP_EVENT_FAMILY_BACK:
		s->back++;
		break;
	case PP_EVENT_SUPPLY_FOUND:
		s->found++;
		s->found_ns = ev->time_ns;
		snprintf(s->found_name, sizeof(s->found_name), "%s", ev->supply);
		break;
	case PP_EVENT_SUPPLY_LOST:
		s->lost++;
		s->lost_ns = ev->time_ns;
		snprintf(s->lost_name, sizeof(s->lost_name), "%s", ev->supply);
		break;
	}
}

/* Wait up to @ms for @cond to become true while reading events. */
#define WAIT_EVENTS(l, s, ms, cond) do {				\
	int __left = (ms);						\
	while (!(cond) && __left > 0) {					\
		struct pollfd __p = { pp_genl_fd(l), POLLIN, 0 };	\
		poll(&__p, 1, 100);					\
		pp_genl_read_events(l, on_event, s);			\
		__left -= 100;						\
	}								\
} while (0)

TEST(capture_events)
{
	struct pp_status st0, st1;
	struct seen s = { 0 };
	struct pp_genl *l, *g;
	char on[8] = "";
	bool loaded;

	l = pp_genl_listen(&loaded);
	ASSERT_NE(NULL, l);
	ASSERT_TRUE(loaded);
	/* the module is loaded, so its events must be there */
	ASSERT_EQ(0, access(TRACING "/events/powerpin/enable", W_OK))
		TH_LOG("powerpin.ko is loaded but tracefs has no powerpin events");
	g = pp_genl_open();
	ASSERT_NE(NULL, g);
	read_line(TRACING "/tracing_on", on, sizeof(on));

	ASSERT_EQ(0, write_file(TRACING "/tracing_on", "0"));
	ASSERT_EQ(0, write_file(TRACING "/events/powerpin/powerpin_battery/enable", "1"));
	ASSERT_EQ(0, pp_genl_get_status(g, &st0));
	ASSERT_EQ(0, write_file(TRACING "/tracing_on", "1"));
	WAIT_EVENTS(l, &s, 3000, s.started);
	usleep(500000);
	ASSERT_EQ(0, write_file(TRACING "/tracing_on", "0"));
	WAIT_EVENTS(l, &s, 3000, s.stopped);
	ASSERT_EQ(0, pp_genl_get_status(g, &st1));
	write_file(TRACING "/events/powerpin/powerpin_battery/enable", "0");
	write_file(TRACING "/tracing_on", on[0] ? on : "1");

	EXPECT_EQ(1, s.started);
	EXPECT_EQ(1, s.stopped);
	EXPECT_LT(s.start_ns, s.stop_ns);
	/* the stop event counts what the status counter saw */
	EXPECT_EQ(st1.samples - st0.samples, s.samples);
	EXPECT_LT(0UL, s.samples);
	pp_genl_close(g);
	pp_genl_close(l);
}

TEST(listener_follows_module_reload)
{
	char *status_args[] = { "powerpin", "status", NULL };
	struct seen s = { 0 };
	char out[4096];
	struct utsname u;
	struct pp_genl *l, *g;
	struct pp_status st;
	char cmd[512];
	bool loaded;

	ASSERT_EQ(0, uname(&u));
	snprintf(cmd, sizeof(cmd), "build/%s/powerpin.ko", u.release);
	if (access(cmd, R_OK))
		SKIP(return, "no %s to reload", cmd);
	l = pp_genl_listen(&loaded);
	ASSERT_NE(NULL, l);
	ASSERT_TRUE(loaded);

	ASSERT_EQ(0, system("rmmod powerpin"));
	WAIT_EVENTS(l, &s, 3000, s.gone);
	EXPECT_EQ(1, s.gone);
	/* with the module gone, status says so with ENOENT */
	g = pp_genl_open();
	EXPECT_EQ(NULL, g);
	EXPECT_EQ(ENOENT, errno);
	pp_genl_close(g);
	EXPECT_EQ(1, run_cli(0, out, sizeof(out), status_args));
	EXPECT_NE(NULL, strstr(out, "powerpin.ko is not loaded")) TH_LOG("%s", out);

	snprintf(cmd, sizeof(cmd), "insmod build/%s/powerpin.ko", u.release);
	ASSERT_EQ(0, system(cmd));
	WAIT_EVENTS(l, &s, 3000, s.back);
	EXPECT_EQ(1, s.back);
	g = pp_genl_open();
	ASSERT_NE(NULL, g);
	EXPECT_EQ(0, pp_genl_get_status(g, &st));
	pp_genl_close(g);
	pp_genl_close(l);
}

/* Poll GET_STATUS until the sampler is in @state (and bound, if sampling). */
static int wait_state(struct pp_genl *g, uint32_t state, double timeout_s,
		      struct pp_status *st)
{
	double end = now_s() + timeout_s;

	do {
		if (!pp_genl_get_status(g, st) && st->state == state &&
		    (state != POWERPIN_STATE_SAMPLING || st->supply_present))
			return 0;
		usleep(20000);
	} while (now_s() < end);
	return -1;
}

/* SET_CONFIG SUPPLY moves the sampler to another supply, and back. */
TEST_F(nl, set_config_changes_supply)
{
	uint32_t period = 10000;
	struct pp_status st;
	struct seen s = { 0 };
	struct pp_genl *l;
	uint64_t samples;
	char param[128];
	bool loaded;

	if (access(EMU "/bind", W_OK))
		SKIP(return, "gauge emulator not loaded");
	l = pp_genl_listen(&loaded);
	ASSERT_NE(NULL, l);
	ASSERT_EQ(0, pp_genl_set_config(self->g, &period, SUPPLY));
	ASSERT_EQ(0, write_file(TRACING "/events/powerpin/powerpin_battery/enable", "1"));
	ASSERT_EQ(0, write_file(TRACING "/tracing_on", "1"));
	ASSERT_EQ(0, wait_state(self->g, POWERPIN_STATE_SAMPLING, 10, &st));
	EXPECT_STREQ(SUPPLY, st.supply_bound);
	WAIT_EVENTS(l, &s, 300, 0);
	memset(&s, 0, sizeof(s));

	/* a name nobody has: the bound supply is dropped, sampling waits */
	ASSERT_EQ(0, pp_genl_set_config(self->g, NULL, "no_such_battery"));
	ASSERT_EQ(0, pp_genl_get_status(self->g, &st));
	EXPECT_STREQ("no_such_battery", st.supply);
	ASSERT_EQ(0, read_line(PARAMS "/supply", param, sizeof(param)));
	EXPECT_STREQ("no_such_battery", param);
	WAIT_EVENTS(l, &s, 5000, s.lost);
	EXPECT_EQ(1, s.lost);
	EXPECT_STREQ(SUPPLY, s.lost_name);
	ASSERT_EQ(0, wait_state(self->g, POWERPIN_STATE_WAITING_SUPPLY, 5, &st));
	EXPECT_FALSE(st.supply_present);
	EXPECT_STREQ("", st.supply_bound);
	samples = st.samples;
	usleep(300000);
	ASSERT_EQ(0, pp_genl_get_status(self->g, &st));
	EXPECT_EQ(samples, st.samples);

	/* "": the first battery, which is the emulated gauge's */
	ASSERT_EQ(0, pp_genl_set_config(self->g, NULL, ""));
	WAIT_EVENTS(l, &s, 5000, s.found);
	EXPECT_EQ(1, s.found);
	EXPECT_STREQ(SUPPLY, s.found_name);
	ASSERT_EQ(0, wait_state(self->g, POWERPIN_STATE_SAMPLING, 5, &st));
	EXPECT_STREQ("", st.supply);
	EXPECT_STREQ(SUPPLY, st.supply_bound);
	usleep(300000);
	ASSERT_EQ(0, pp_genl_get_status(self->g, &st));
	EXPECT_LT(samples, st.samples);
	pp_genl_close(l);
}

/* Driver unbind and bind mid-capture: SUPPLY_LOST, then SUPPLY_FOUND. */
TEST_F(nl, supply_events_on_unbind_and_bind)
{
	uint32_t period = 10000;
	struct pp_status st;
	struct seen s = { 0 };
	struct pp_genl *l;
	bool loaded;

	if (access(EMU "/unbind", W_OK))
		SKIP(return, "gauge emulator not loaded");
	l = pp_genl_listen(&loaded);
	ASSERT_NE(NULL, l);
	ASSERT_EQ(0, pp_genl_set_config(self->g, &period, SUPPLY));
	ASSERT_EQ(0, write_file(TRACING "/events/powerpin/powerpin_battery/enable", "1"));
	ASSERT_EQ(0, write_file(TRACING "/tracing_on", "1"));
	ASSERT_EQ(0, wait_state(self->g, POWERPIN_STATE_SAMPLING, 10, &st));
	WAIT_EVENTS(l, &s, 300, 0);
	memset(&s, 0, sizeof(s));

	ASSERT_EQ(0, write_file(EMU "/unbind", "1"));
	WAIT_EVENTS(l, &s, 5000, s.lost);
	EXPECT_EQ(1, s.lost);
	EXPECT_EQ(0, s.found);
	EXPECT_STREQ(SUPPLY, s.lost_name);
	ASSERT_EQ(0, wait_state(self->g, POWERPIN_STATE_WAITING_SUPPLY, 5, &st));
	EXPECT_FALSE(st.supply_present);

	ASSERT_EQ(0, write_file(EMU "/bind", "1"));
	WAIT_EVENTS(l, &s, 10000, s.found);
	EXPECT_EQ(1, s.found);
	EXPECT_EQ(1, s.lost);
	EXPECT_STREQ(SUPPLY, s.found_name);
	EXPECT_LT(s.lost_ns, s.found_ns);
	ASSERT_EQ(0, wait_state(self->g, POWERPIN_STATE_SAMPLING, 5, &st));
	EXPECT_STREQ(SUPPLY, st.supply_bound);
	pp_genl_close(l);
}

/* The gate closed, nothing read: GET_STATUS still follows the supply. */
TEST_F(nl, status_follows_supply_while_idle)
{
	struct pp_status st;

	if (access(EMU "/unbind", W_OK))
		SKIP(return, "gauge emulator not loaded");
	ASSERT_EQ(0, pp_genl_set_config(self->g, NULL, SUPPLY));
	ASSERT_EQ(0, write_file(TRACING "/events/powerpin/powerpin_battery/enable", "1"));
	ASSERT_EQ(0, write_file(TRACING "/tracing_on", "1"));
	ASSERT_EQ(0, wait_state(self->g, POWERPIN_STATE_SAMPLING, 10, &st));
	ASSERT_EQ(0, write_file(TRACING "/tracing_on", "0"));
	ASSERT_EQ(0, wait_state(self->g, POWERPIN_STATE_IDLE, 5, &st));
	EXPECT_TRUE(st.supply_present);

	ASSERT_EQ(0, write_file(EMU "/unbind", "1"));
	ASSERT_EQ(0, pp_genl_get_status(self->g, &st));
	EXPECT_FALSE(st.supply_present);
	EXPECT_STREQ("", st.supply_bound);
	ASSERT_EQ(0, write_file(EMU "/bind", "1"));
	ASSERT_EQ(0, pp_genl_get_status(self->g, &st));
	EXPECT_TRUE(st.supply_present);
	EXPECT_STREQ(SUPPLY, st.supply_bound);
}

/*
 * New families leave resv_start_op at 0: a non-zero reserved byte in the
 * genetlink header, or nlmsg_flags the core does not define for requests,
 * get EINVAL for every command, and nothing is applied.
 */
TEST_F(nl, reserved_header_fields_are_refused)
{
	uint32_t period = 54321;
	struct pp_status st;

	for (int cmd = POWERPIN_CMD_GET_STATUS; cmd <= POWERPIN_CMD_SET_CONFIG; cmd++) {
		for (int what = 0; what < 2; what++) {
			struct nl_msg *msg = pp_genl_msg(self->g, cmd, POWERPIN_GENL_VERSION);
			struct nlmsghdr *nlh;
			struct genlmsghdr *gh;

			ASSERT_NE(NULL, msg);
			nlh = nlmsg_hdr(msg);
			gh = nlmsg_data(nlh);
			if (what == 0)
				gh->reserved = 1;
			else
				nlh->nlmsg_flags |= NLM_F_CREATE;
			if (cmd == POWERPIN_CMD_SET_CONFIG)
				ASSERT_EQ(0, nla_put_u32(msg, POWERPIN_ATTR_PERIOD_US, period));
			EXPECT_EQ(EINVAL, pp_genl_transact(self->g, msg, NULL))
				TH_LOG("command %d, %s", cmd, what ? "NLM_F_CREATE" : "reserved byte");
			nlmsg_free(msg);
		}
	}
	ASSERT_EQ(0, pp_genl_get_status(self->g, &st));
	EXPECT_EQ(self->before.period_us, st.period_us);
}

/*
 * A final attribute whose padding is left off the message (nlmsg_len ends
 * with the attribute, not at its 4-byte boundary) is accepted, as every
 * kernel's nla_parse() does; bytes left over after the last attribute are
 * not.  3.10's own parse used to refuse the first.
 */
static int send_supply_trimmed(struct pp_genl *g, const char *name, int trim,
			       int extra)
{
	struct nl_msg *msg = pp_genl_msg(g, POWERPIN_CMD_SET_CONFIG,
					 POWERPIN_GENL_VERSION);
	struct nlmsghdr *nlh;
	void *tail;
	int ret;

	if (!msg)
		return -1;
	if (nla_put_string(msg, POWERPIN_ATTR_SUPPLY, name) ||
	    (extra && !(tail = nlmsg_reserve(msg, extra, 1)))) {
		nlmsg_free(msg);
		return -1;
	}
	if (extra)
		memset(tail, 0, extra);
	nlh = nlmsg_hdr(msg);
	nlh->nlmsg_len -= trim;
	ret = pp_genl_transact(g, msg, NULL);
	nlmsg_free(msg);
	return ret;
}

TEST_F(nl, final_attribute_without_padding)
{
	static const char name[] = "ppunpadded";	/* 11 bytes: 1 of padding */
	struct pp_status st;

	ASSERT_NE(0U, (NLA_HDRLEN + sizeof(name)) % NLA_ALIGNTO);
	EXPECT_EQ(0, send_supply_trimmed(self->g, name,
					 NLA_ALIGN(sizeof(name)) - sizeof(name), 0))
		TH_LOG("error: %s", pp_genl_error(self->g) ?: "");
	ASSERT_EQ(0, pp_genl_get_status(self->g, &st));
	EXPECT_STREQ(name, st.supply);
	/* four bytes after the last attribute: not an attribute, refused */
	EXPECT_EQ(EINVAL, send_supply_trimmed(self->g, "max170xx_battery", 0, 4));
	ASSERT_EQ(0, pp_genl_get_status(self->g, &st));
	EXPECT_STREQ(name, st.supply);
}

TEST_HARNESS_MAIN
