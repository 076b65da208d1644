// SPDX-License-Identifier: GPL-2.0
/*
 * powerpind.service as systemd runs it, sandbox and all: systemd (the
 * host's, through the guest's /usr) is PID 1 of a new PID and mount
 * namespace, starts the unit with ExecStart pointing at this tree's
 * powerpind (copied out of /tmp), and the daemon must still apply its configuration over
 * netlink, capture a tracing_on 1..0, write the report set from its child
 * and a pinlist of a file it does not own (through /dev/powerpin).
 * Runs as root from the repo root with powerpin.ko loaded.
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "guest_harness.h"

#include "cmd_helpers.h"

#define SYSTEMD		"/usr/lib/systemd/systemd"
#define UNIT_DIR	"/etc/systemd/system"
#define SPOOL		"/var/lib/powerpin/spool"
#define PIN_FILE	"/mnt/disk/unit_test_app.bin"
#define TRACING		"/sys/kernel/tracing"
#define PREFIX		"/opt/powerpin-unit-test"

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

FIXTURE(unit) {
	pid_t unshare_pid;
	int systemd_pid;
	char tracing_on[8];	/* as found, put back at the end */
	char period_us[32];
	bool mounted_cgroup;	/* the setup mounted cgroup2 for systemd */
};

/* Run @cmd inside the namespaces of systemd; 0 if it exits 0. */
#define IN_NS(self, fmt, ...) \
	sh("nsenter -t %d -m -p sh -c '" fmt "'", (self)->systemd_pid, ##__VA_ARGS__)

FIXTURE_SETUP(unit)
{
	char top[4096];
	double end;
	FILE *p;

	self->unshare_pid = -1;
	/* what the teardown puts back ("" where there is nothing to read) */
	if (read_line(TRACING "/tracing_on", self->tracing_on, sizeof(self->tracing_on)))
		self->tracing_on[0] = '\0';
	if (read_line("/sys/module/powerpin/parameters/period_us", self->period_us,
		      sizeof(self->period_us)))
		self->period_us[0] = '\0';
	if (access(SYSTEMD, X_OK) || sh("command -v unshare nsenter >/dev/null"))
		SKIP(return, "no systemd or util-linux namespace tools");
	if (access("/sys/fs/cgroup/cgroup.controllers", F_OK)) {
		if ((mkdir("/sys/fs/cgroup", 0755) && errno != EEXIST) ||
		    mount("cgroup2", "/sys/fs/cgroup", "cgroup2", 0, NULL))
			SKIP(return, "no cgroup2 for systemd");
		self->mounted_cgroup = true;
	}
	ASSERT_NE(NULL, getcwd(top, sizeof(top)));
	/*
	 * Installed the way make install lays them out, outside /tmp: the
	 * unit's PrivateTmp= would hide a tree under test that lives there.
	 */
	ASSERT_EQ(0, sh("mkdir -p " PREFIX "/bin " PREFIX "/sbin && "
			"cp build/bin/powerpin " PREFIX "/bin/ && cp build/bin/powerpind " PREFIX "/sbin/"));
	ASSERT_EQ(0, sh("mkdir -p " UNIT_DIR " /etc/powerpin /var/lib && "
			"sed -e 's|@SBINDIR@|" PREFIX "/sbin|' -e 's|@DOCDIR@|%s/docs|' "
			"daemon/powerpind.service >" UNIT_DIR "/powerpind.service", top));
	ASSERT_EQ(0, sh("printf '[Unit]\\nDescription=powerpind under test\\n"
			"Requires=powerpind.service\\nAfter=powerpind.service\\n' >"
			UNIT_DIR "/powerpin-test.target"));
	/* a pin_file owned by someone else: CAP_FOWNER and /dev/powerpin */
	ASSERT_EQ(0, sh("head -c 65536 /dev/urandom >" PIN_FILE " && chown 65534:65534 " PIN_FILE
			" && cat " PIN_FILE " >/dev/null"));
	ASSERT_EQ(0, sh("printf 'period_ms = 20\\nreport = yes\\npin_file = " PIN_FILE "\\n' "
			">/etc/powerpin/powerpind.conf"));
	ASSERT_EQ(0, sh("echo 0 >" TRACING "/tracing_on && systemd-machine-id-setup >/dev/null 2>&1"));
	/*
	 * Nothing but the unit under test may change the guest the other
	 * tests run in: no tmpfiles cleaning, sysctl, udev or sysusers.
	 */
	ASSERT_EQ(0, sh("for u in systemd-tmpfiles-setup.service systemd-tmpfiles-setup-dev.service "
			"systemd-tmpfiles-clean.timer systemd-sysusers.service systemd-sysctl.service "
			"systemd-udevd.service systemd-udev-trigger.service systemd-binfmt.service "
			"systemd-remount-fs.service systemd-update-utmp.service "
			"proc-sys-fs-binfmt_misc.automount; do ln -sf /dev/null " UNIT_DIR "/$u; done"));

	self->unshare_pid = fork();
	ASSERT_LE(0, self->unshare_pid);
	if (!self->unshare_pid) {
		setenv("container", "powerpin-test", 1);
		/*
		 * and its own /run, which it fills.  /tmp stays shared (the
		 * tree under test may live there), tmpfiles is masked.
		 */
		execlp("unshare", "unshare", "--pid", "--fork", "--mount-proc", "sh", "-c",
		       "mount -t tmpfs tmpfs /run && "
		       "exec " SYSTEMD " --system --unit=powerpin-test.target "
		       "--log-target=journal-or-kmsg --log-level=warning --show-status=no", NULL);
		_exit(127);
	}
	/* systemd is the child of unshare */
	end = now_s() + 60;
	while (!self->systemd_pid && now_s() < end) {
		char cmd[128];

		usleep(200000);
		snprintf(cmd, sizeof(cmd), "pgrep -P %d", self->unshare_pid);
		p = popen(cmd, "r");
		if (p) {
			if (fscanf(p, "%d", &self->systemd_pid) != 1)
				self->systemd_pid = 0;
			pclose(p);
		}
	}
	ASSERT_NE(0, self->systemd_pid);
	/* the daemon says "ready" once it listens and has enabled the events */
	end = now_s() + 120;
	while (now_s() < end &&
	       IN_NS(self, "journalctl -u powerpind -o cat 2>/dev/null | grep -q ready:"))
		sleep(1);
	if (IN_NS(self, "journalctl -u powerpind -o cat 2>/dev/null | grep -q ready:")) {
		IN_NS(self, "journalctl --no-pager -u powerpind -o cat | grep -v modprobe | tail -n 20 >&2");
		ASSERT_TRUE(0);
	}
}

FIXTURE_TEARDOWN(unit)
{
	if (self->systemd_pid > 0)
		IN_NS(self, "systemctl stop powerpind 2>/dev/null");
	if (self->unshare_pid > 0) {
		kill(self->unshare_pid, SIGKILL);
		if (self->systemd_pid > 0)
			kill(self->systemd_pid, SIGKILL);
		waitpid(self->unshare_pid, NULL, 0);
	}
	sh("rm -rf " PIN_FILE " " PREFIX " /etc/powerpin/powerpind.conf");
	/* systemd's cgroups are gone with it: the hierarchy unmounts */
	if (self->mounted_cgroup && umount2("/sys/fs/cgroup", MNT_DETACH))
		TH_LOG("could not unmount /sys/fs/cgroup: %s", strerror(errno));
	if (self->period_us[0])
		put_file("/sys/module/powerpin/parameters/period_us", self->period_us);
	if (self->tracing_on[0])
		put_file(TRACING "/tracing_on", self->tracing_on);
}

TEST_F_TIMEOUT(unit, hardened_daemon_still_captures, 400)
{
	char dir[512] = "";
	double end;
	FILE *p;

	/* the configured period arrived over netlink (CAP_NET_ADMIN) */
	EXPECT_EQ(0, sh("grep -qx 20000 /sys/module/powerpin/parameters/period_us"));
	EXPECT_EQ(0, IN_NS(self, "systemctl is-active -q powerpind"));

	ASSERT_EQ(0, sh("echo 1 >" TRACING "/tracing_on"));
	sleep(2);
	ASSERT_EQ(0, sh("echo 0 >" TRACING "/tracing_on"));
	end = now_s() + 120;
	while (now_s() < end) {
		p = popen("ls -d " SPOOL "/capture-*/report.txt 2>/dev/null | head -n 1", "r");
		if (p) {
			if (!fgets(dir, sizeof(dir), p))
				dir[0] = '\0';
			pclose(p);
		}
		if (dir[0] && !sh("ls " SPOOL "/capture-*/unit_test_app.bin.pinlist.meta >/dev/null 2>&1"))
			break;
		sleep(1);
	}
	if (!dir[0])
		IN_NS(self, "journalctl --no-pager -u powerpind -o cat | tail -n 20 >&2");
	ASSERT_NE('\0', dir[0]);
	*strrchr(dir, '/') = '\0';
	EXPECT_EQ(0, sh("grep -qx complete=1 %s/summary.txt", dir));
	EXPECT_EQ(0, sh("build/bin/powerpin report %s/trace.dat | grep -q 'samples'", dir));
	EXPECT_EQ(0, sh("test -s %s/report.json && test -s %s/report.html", dir, dir));
	/* the whole file was read, so all of it is resident: 16 pages */
	EXPECT_EQ(0, sh("build/bin/powerpin pinlist %s/unit_test_app.bin.pinlist.meta --summary "
			"| grep -qx total_bytes_to_pin=65536", dir));
	/* nothing went wrong on the way (what did is shown) */
	EXPECT_NE(0, IN_NS(self, "journalctl --no-pager -u powerpind -o cat | grep -E \"cannot|incomplete|failed\" >&2"));
	sh("rm -rf " SPOOL "/capture-*");
}

TEST_HARNESS_MAIN
