// SPDX-License-Identifier: GPL-2.0
/*
 * Supplies that come and go under the sampler: a HID peripheral's battery
 * (uhid, hid-input's "hid-<uniq>-battery", a Device-scope supply whose
 * parent's release() lives in hid.ko) destroyed and its modules unloaded
 * after a capture and during a read; the first-battery choice
 * (supply=""), which follows the power_supply core's scope rule and waits
 * for a busy battery instead of passing over it; the gauge driver's module,
 * and the module of a battery registered with no parent, unloaded in the
 * middle of a read; and powerpin.ko itself unloaded under its consumers.
 * The kernel log must stay clean (run-guest checks it after this binary).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/powerpin.h>
#include <linux/uhid.h>

#include "guest_harness.h"

#include "capture/capture.h"
#include "sampler_helpers.h"

/*
 * A mouse (so hid-input registers an input device) with a Battery Strength
 * feature report: Generic Device Controls page (0x06), usage 0x20, report
 * id 2, one byte 0..100.  hid-input then registers hid-<uniq>-battery[-2] and
 * asks for report 2 (UHID_GET_REPORT) each time its capacity is read.
 */
static const uint8_t hid_battery_rdesc[] = {
	0x05, 0x01, 0x09, 0x02, 0xa1, 0x01,	/* Generic Desktop, Mouse, Application */
	0x85, 0x01, 0x09, 0x01, 0xa1, 0x00,	/* report 1, Pointer, Physical */
	0x05, 0x09, 0x19, 0x01, 0x29, 0x03,	/* Buttons 1..3 */
	0x15, 0x00, 0x25, 0x01, 0x95, 0x03, 0x75, 0x01, 0x81, 0x02,
	0x95, 0x01, 0x75, 0x05, 0x81, 0x03,	/* padding */
	0x05, 0x01, 0x09, 0x30, 0x09, 0x31,	/* X, Y */
	0x15, 0x81, 0x25, 0x7f, 0x75, 0x08, 0x95, 0x02, 0x81, 0x06,
	0xc0,
	0x05, 0x06, 0x09, 0x20,			/* Generic Device Controls, Battery Strength */
	0x85, 0x02, 0x15, 0x00, 0x25, 0x64,	/* report 2, 0..100 */
	0x75, 0x08, 0x95, 0x01, 0xb1, 0x02,	/* Feature (Data, Var, Abs) */
	0xc0,
};

#define HID_CAPACITY	77

/* A uhid device answering its battery feature report from a thread. */
struct uhid_battery {
	int fd;
	pthread_t thread;
	atomic_int stop;
	atomic_int reply_delay_ms;	/* hold each answer this long */
	atomic_int get_reports;
	char psy[256];			/* power_supply name */
};

static int uhid_write(int fd, const struct uhid_event *ev)
{
	ssize_t n = write(fd, ev, sizeof(*ev));

	return n == (ssize_t)sizeof(*ev) ? 0 : -errno;
}

static void *uhid_answer(void *arg)
{
	struct uhid_battery *b = arg;
	struct uhid_event ev, reply;

	while (!atomic_load(&b->stop)) {
		struct pollfd p = { b->fd, POLLIN, 0 };

		if (poll(&p, 1, 50) <= 0)
			continue;
		if (read(b->fd, &ev, sizeof(ev)) <= 0)
			break;
		if (ev.type != UHID_GET_REPORT)
			continue;
		atomic_fetch_add(&b->get_reports, 1);
		sleep_s(atomic_load(&b->reply_delay_ms) / 1000.0);
		memset(&reply, 0, sizeof(reply));
		reply.type = UHID_GET_REPORT_REPLY;
		reply.u.get_report_reply.id = ev.u.get_report.id;
		reply.u.get_report_reply.size = 2;
		reply.u.get_report_reply.data[0] = ev.u.get_report.rnum;
		reply.u.get_report_reply.data[1] = HID_CAPACITY;
		uhid_write(b->fd, &reply);	/* fails once destroyed */
	}
	return NULL;
}

/*
 * The name hid-input gave the battery of the device with @uniq, into @psy:
 * hid-<uniq>-battery, or hid-<uniq>-battery-<report id> (one
 * supply per battery report, as 7.2 names it).  0 or -ENOENT.
 */
static int uhid_battery_find(const char *uniq, char *psy, size_t len)
{
	char prefix[96];
	size_t plen;
	struct dirent *d;
	DIR *dir = opendir(PSY_DIR);
	int ret = -ENOENT;

	if (!dir)
		return -ENOENT;
	plen = snprintf(prefix, sizeof(prefix), "hid-%s-battery", uniq);
	while ((d = readdir(dir))) {
		if (strncmp(d->d_name, prefix, plen) ||
		    (d->d_name[plen] && d->d_name[plen] != '-'))
			continue;
		snprintf(psy, len, "%s", d->d_name);
		ret = 0;
		break;
	}
	closedir(dir);
	return ret;
}

/*
 * UHID_CREATE2 (3.19) carries the report descriptor in the event; before
 * it, UHID_CREATE (3.6) points at it, and an unknown event type is refused
 * with EOPNOTSUPP.  Both answer reads with UHID_GET_REPORT, the event 3.10
 * calls UHID_FEATURE (same number, same layout).
 */
static int uhid_send_create(int fd, const char *uniq)
{
	struct uhid_event ev;
	int ret;

	memset(&ev, 0, sizeof(ev));
	ev.type = UHID_CREATE2;
	snprintf((char *)ev.u.create2.name, sizeof(ev.u.create2.name), "powerpin test mouse");
	snprintf((char *)ev.u.create2.uniq, sizeof(ev.u.create2.uniq), "%s", uniq);
	ev.u.create2.rd_size = sizeof(hid_battery_rdesc);
	ev.u.create2.bus = 0x05;	/* BUS_BLUETOOTH */
	ev.u.create2.vendor = 0x1d6b;
	ev.u.create2.product = 0x0104;
	memcpy(ev.u.create2.rd_data, hid_battery_rdesc, sizeof(hid_battery_rdesc));
	ret = uhid_write(fd, &ev);
	if (ret != -EOPNOTSUPP)
		return ret;
	memset(&ev, 0, sizeof(ev));
	ev.type = UHID_CREATE;
	snprintf((char *)ev.u.create.name, sizeof(ev.u.create.name), "powerpin test mouse");
	snprintf((char *)ev.u.create.uniq, sizeof(ev.u.create.uniq), "%s", uniq);
	ev.u.create.rd_data = (uint8_t *)hid_battery_rdesc;
	ev.u.create.rd_size = sizeof(hid_battery_rdesc);
	ev.u.create.bus = 0x05;
	ev.u.create.vendor = 0x1d6b;
	ev.u.create.product = 0x0104;
	return uhid_write(fd, &ev);
}

/* Create the device; its battery appears as b->psy.  0 or -errno. */
static int uhid_battery_create(struct uhid_battery *b, const char *uniq)
{
	double end;

	memset(b, 0, sizeof(*b));
	b->fd = open("/dev/uhid", O_RDWR | O_CLOEXEC);
	if (b->fd < 0)
		return -errno;
	if (pthread_create(&b->thread, NULL, uhid_answer, b)) {
		close(b->fd);
		return -EAGAIN;
	}
	if (uhid_send_create(b->fd, uniq))
		return -EIO;
	for (end = now_mono() + 10; now_mono() < end; sleep_s(0.01))
		if (!uhid_battery_find(uniq, b->psy, sizeof(b->psy)))
			return 0;
	return -ENODEV;
}

static void uhid_battery_destroy(struct uhid_battery *b)
{
	struct uhid_event ev;

	if (b->fd <= 0)
		return;
	memset(&ev, 0, sizeof(ev));
	ev.type = UHID_DESTROY;
	uhid_write(b->fd, &ev);
	atomic_store(&b->stop, 1);
	pthread_join(b->thread, NULL);
	close(b->fd);
	b->fd = -1;
}

/* Load uhid and hid-generic from the guest kernel's modules. */
static int hid_stack_load(void)
{
	if (!access("/dev/uhid", F_OK) && !access("/sys/bus/hid/drivers/hid-generic", F_OK))
		return 0;
	return guest_modprobe("-a uhid hid-generic");
}

/*
 * rmmod hid_generic, uhid and hid, skipping (and saying so) a module built
 * into this kernel.  0 when every loadable one went.
 */
static int hid_stack_unload(struct __test_metadata *_metadata)
{
	static const char * const mods[] = { "hid_generic", "uhid", "hid" };
	char cmd[64];
	int ret = 0;

	for (size_t i = 0; i < 3; i++) {
		if (guest_module_builtin(mods[i])) {
			TH_LOG("%s is built into this kernel: not unloaded", mods[i]);
			continue;
		}
		snprintf(cmd, sizeof(cmd), "rmmod %s", mods[i]);
		if (system(cmd)) {
			TH_LOG("%s failed", cmd);
			ret = -1;
		}
	}
	return ret;
}

#define INST	TRACING "/instances/pplife"

/* Load this kernel's powerpin.ko again (default parameters). */
static int powerpin_reload(void)
{
	struct utsname u;
	char cmd[320];

	if (uname(&u))
		return -1;
	snprintf(cmd, sizeof(cmd), "insmod build/%s/powerpin.ko", u.release);
	return system(cmd);
}

FIXTURE(life) {
	struct uhid_battery hid;
	char tracing_on[8];
};

FIXTURE_SETUP(life)
{
	self->hid.fd = -1;
	if (access(STATUS, F_OK))
		SKIP(return, "powerpin.ko is not loaded (run under scripts/vm-run)");
	ASSERT_EQ(0, read_line(TRACING "/tracing_on", self->tracing_on,
			      sizeof(self->tracing_on)));
	ASSERT_EQ(0, tracing_reset());
	ASSERT_EQ(0, write_str(PARAMS "/period_us", "10000"));
	ASSERT_EQ(0, write_str(PARAMS "/supply", "max170xx_battery"));
	emu_reset();
	ASSERT_EQ(0, emu_ensure_bound());
}

FIXTURE_TEARDOWN(life)
{
	write_str(TRACING "/tracing_on", "0");
	uhid_battery_destroy(&self->hid);
	if (access(STATUS, F_OK))
		powerpin_reload();
	write_str(INST "/events/enable", "0");
	rmdir(INST);
	write_str(TRACING "/events/sched/sched_process_fork/trigger",
		  "!enable_event:powerpin:powerpin_battery");
	write_str(TRACING "/events/enable", "0");
	emu_reset();
	emu_ensure_bound();
	write_str(PARAMS "/supply", "max170xx_battery");
	write_str(PARAMS "/period_us", "100000");
	write_str(TRACING "/tracing_on", self->tracing_on[0] ? self->tracing_on : "1");
	write_str(TRACING "/trace_clock", "local");
}

/*
 * The reproduction: capture from a HID battery, tracing_on 0, destroy the
 * device, unload hid_generic, uhid and hid, tracing_on 1.  The sampler
 * held nothing of the supply or its parent, so nothing is released into an
 * unloaded module: it finds the supply gone and waits.
 */
TEST_F_TIMEOUT(life, hid_battery_gone_and_unloaded, 300)
{
	struct battery_ev *e = NULL;
	long long s0, s1, lost0;
	char buf[128];
	int n;

	if (hid_stack_load())
		SKIP(return, "uhid / hid-generic not available in this kernel");
	ASSERT_EQ(0, uhid_battery_create(&self->hid, "ppbat0"));
	ASSERT_EQ(0, write_str(PARAMS "/supply", self->hid.psy));
	ASSERT_EQ(0, write_str(TRACING "/events/powerpin/powerpin_battery/enable", "1"));
	s0 = status_ll("samples");
	ASSERT_EQ(0, write_str(TRACING "/tracing_on", "1"));
	ASSERT_TRUE(wait_status_ge("samples", s0 + 10, 20.0));
	ASSERT_EQ(0, write_str(TRACING "/tracing_on", "0"));
	sleep_s(0.1);
	s1 = status_ll("samples");
	ASSERT_EQ(0, status_str("supply_bound", buf, sizeof(buf)));
	EXPECT_STREQ(self->hid.psy, buf);

	n = trace_file_events(TRACING "/trace", &e);
	EXPECT_EQ(s1 - s0, n);
	for (int k = 0; k < n; k++) {
		ASSERT_EQ(HID_CAPACITY, e[k].capacity);
		ASSERT_EQ(0, e[k].voltage_uv);
		ASSERT_EQ(POWERPIN_SAMPLE_MISSING, e[k].flags &
			  (POWERPIN_SAMPLE_MISSING | POWERPIN_SAMPLE_READ_ERROR));
	}
	free(e);
	/* one feature report per sample, no more */
	EXPECT_GE(atomic_load(&self->hid.get_reports), n);

	lost0 = status_ll("supply_lost");
	uhid_battery_destroy(&self->hid);
	ASSERT_EQ(0, hid_stack_unload(_metadata));
	ASSERT_EQ(0, write_str(TRACING "/tracing_on", "1"));
	EXPECT_TRUE(wait_status_is("state", "waiting_supply", 2.0));
	sleep_s(0.3);
	ASSERT_EQ(0, write_str(TRACING "/tracing_on", "0"));
	EXPECT_EQ(s1, status_ll("samples"));
	EXPECT_EQ(lost0 + 1, status_ll("supply_lost"));
	EXPECT_EQ(0, status_ll("supply_present"));
}

/*
 * The HID battery destroyed while a read waits for its feature report:
 * the read ends, the supply is unregistered without a WARN, the sampler
 * counts it lost, and the modules unload.
 */
TEST_F_TIMEOUT(life, hid_battery_destroyed_during_read, 300)
{
	long long lost0;
	int asked;

	if (hid_stack_load())
		SKIP(return, "uhid / hid-generic not available in this kernel");
	ASSERT_EQ(0, uhid_battery_create(&self->hid, "ppbat1"));
	ASSERT_EQ(0, write_str(PARAMS "/supply", self->hid.psy));
	ASSERT_EQ(0, write_str(TRACING "/events/powerpin/powerpin_battery/enable", "1"));
	ASSERT_EQ(0, write_str(TRACING "/tracing_on", "1"));
	ASSERT_TRUE(wait_status_ge("samples", status_ll("samples") + 3, 20.0));
	lost0 = status_ll("supply_lost");
	atomic_store(&self->hid.reply_delay_ms, 1000);
	asked = atomic_load(&self->hid.get_reports);
	/* wait until the sampler's next read is waiting for its answer */
	for (double end = now_mono() + 5; now_mono() < end &&
	     atomic_load(&self->hid.get_reports) == asked; )
		sleep_s(0.005);
	ASSERT_LT(asked, atomic_load(&self->hid.get_reports));
	uhid_battery_destroy(&self->hid);
	ASSERT_TRUE(wait_status_ge("supply_lost", lost0 + 1, 10.0));
	EXPECT_TRUE(wait_status_is("state", "waiting_supply", 2.0));
	ASSERT_EQ(0, write_str(TRACING "/tracing_on", "0"));
	ASSERT_EQ(0, hid_stack_unload(_metadata));
}

/*
 * supply="": a HID battery (Device scope) registered before the system's
 * battery is not "the first battery"; the gauge is.
 */
TEST_F_TIMEOUT(life, first_battery_skips_device_scope, 300)
{
	long long found0, s0;
	char buf[128];

	if (hid_stack_load())
		SKIP(return, "uhid / hid-generic not available in this kernel");
	ASSERT_EQ(0, write_str(EMU "/unbind", "1"));
	ASSERT_EQ(0, uhid_battery_create(&self->hid, "ppbat2"));
	ASSERT_EQ(0, write_str(EMU "/bind", "1"));
	ASSERT_EQ(0, emu_ensure_bound());

	found0 = status_ll("supply_found");
	ASSERT_EQ(0, write_str(PARAMS "/supply", "\n"));
	ASSERT_EQ(0, write_str(TRACING "/events/powerpin/powerpin_battery/enable", "1"));
	s0 = status_ll("samples");
	ASSERT_EQ(0, write_str(TRACING "/tracing_on", "1"));
	ASSERT_TRUE(wait_status_ge("samples", s0 + 10, 20.0));
	ASSERT_EQ(0, write_str(TRACING "/tracing_on", "0"));
	ASSERT_EQ(0, status_str("supply_bound", buf, sizeof(buf)));
	EXPECT_STREQ("max170xx_battery", buf);
	EXPECT_EQ(found0 + 1, status_ll("supply_found"));
	EXPECT_GT(status_ll("last_voltage_uv"), 3000000);
}

/*
 * supply="": the first battery is busy (its driver is still probing and
 * answers -EAGAIN) while a later battery is ready: the sampler waits for
 * the first one instead of binding the next, and binds it once it answers.
 */
TEST_F_TIMEOUT(life, first_battery_busy_is_retried, 300)
{
	long long found0;
	char buf[128];
	pid_t child;
	int status;
	double t;

	if (hid_stack_load())
		SKIP(return, "uhid / hid-generic not available in this kernel");
	/* the HID battery must come while the gauge's probe goes on */
	t = now_mono();
	ASSERT_EQ(0, uhid_battery_create(&self->hid, "ppbat3"));
	t = now_mono() - t;
	uhid_battery_destroy(&self->hid);
	if (t > 1.2)
		SKIP(return, "a uhid battery takes %.1f s to appear here, longer than the gauge's probe stays busy (3.10: its ADD uevent asks for the capacity while UHID_CREATE holds the lock the answer needs)", t);
	ASSERT_EQ(0, write_str(PARAMS "/supply", "\n"));
	ASSERT_EQ(0, write_str(TRACING "/events/powerpin/powerpin_battery/enable", "1"));
	ASSERT_EQ(0, write_str(TRACING "/tracing_on", "1"));
	ASSERT_TRUE(wait_status_ge("samples", status_ll("samples") + 3, 20.0));
	ASSERT_EQ(0, write_str(EMU "/unbind", "1"));
	ASSERT_TRUE(wait_status_is("state", "waiting_supply", 2.0));
	found0 = status_ll("supply_found");

	/* every transfer takes 1.5 s: the probe registers, then goes on */
	ASSERT_EQ(0, write_str(EMU "/latency_us", "1500000"));
	child = fork();
	ASSERT_GE(child, 0);
	if (!child)
		_exit(write_str(EMU "/bind", "1") ? 1 : 0);
	for (double end = now_mono() + 10; access(PSY, F_OK) && now_mono() < end; )
		sleep_s(0.01);
	ASSERT_EQ(0, access(PSY, F_OK));
	ASSERT_EQ(0, uhid_battery_create(&self->hid, "ppbat4"));
	ASSERT_EQ(0, waitpid(child, &status, WNOHANG))
		TH_LOG("the probe ended before the second battery came");
	sleep_s(0.2);
	ASSERT_EQ(0, status_str("supply_bound", buf, sizeof(buf)));
	EXPECT_STREQ("", buf);
	ASSERT_EQ(0, status_str("state", buf, sizeof(buf)));
	EXPECT_STREQ("waiting_supply", buf);
	EXPECT_EQ(found0, status_ll("supply_found"));

	ASSERT_EQ(child, waitpid(child, &status, 0));
	EXPECT_EQ(0, WEXITSTATUS(status));
	ASSERT_EQ(0, write_str(EMU "/latency_us", "0"));
	ASSERT_TRUE(wait_status_ge("supply_found", found0 + 1, 20.0));
	ASSERT_EQ(0, status_str("supply_bound", buf, sizeof(buf)));
	EXPECT_STREQ("max170xx_battery", buf);
	ASSERT_EQ(0, write_str(TRACING "/tracing_on", "0"));
	EXPECT_EQ(found0 + 1, status_ll("supply_found"));
}

/*
 * The gauge driver's module is unloaded while a read is in progress (each
 * transfer 100 ms): the unload waits for the read, the supply is lost,
 * and reloading the driver brings sampling back.
 */
TEST_F_TIMEOUT(life, supply_owner_unloaded_during_read, 300)
{
	long long lost0, found0, s0;

	if (guest_module_builtin("max17042_battery"))
		SKIP(return, "max17042_battery is built in: cannot be unloaded");
	ASSERT_EQ(0, write_str(TRACING "/events/powerpin/powerpin_battery/enable", "1"));
	ASSERT_EQ(0, write_str(TRACING "/tracing_on", "1"));
	ASSERT_TRUE(wait_status_ge("samples", status_ll("samples") + 3, 20.0));
	lost0 = status_ll("supply_lost");
	found0 = status_ll("supply_found");
	ASSERT_EQ(0, write_str(EMU "/latency_us", "100000"));
	s0 = emu_transfers();
	while (emu_transfers() == s0)
		sleep_s(0.005);
	ASSERT_EQ(0, system("rmmod max17042_battery"));
	ASSERT_NE(0, access(PSY, F_OK));
	ASSERT_TRUE(wait_status_ge("supply_lost", lost0 + 1, 10.0));
	EXPECT_TRUE(wait_status_is("state", "waiting_supply", 2.0));
	ASSERT_EQ(0, write_str(EMU "/latency_us", "0"));
	ASSERT_EQ(0, guest_modprobe("max17042_battery"));
	ASSERT_EQ(0, emu_ensure_bound());
	s0 = status_ll("samples");
	ASSERT_TRUE(wait_status_ge("samples", s0 + 5, 20.0));
	ASSERT_EQ(0, write_str(TRACING "/tracing_on", "0"));
	EXPECT_EQ(lost0 + 1, status_ll("supply_lost"));
	EXPECT_EQ(found0 + 1, status_ll("supply_found"));
}

/*
 * A battery registered with no parent device (the test-only
 * pp_test_supply.ko) is read under the same fence as any other: its module
 * is unloaded in the middle of a read (every property read sleeps 150 ms),
 * the unload waits for the read, no code of the unloaded module runs
 * afterwards, and the sampler counts the supply lost.
 */
TEST_F_TIMEOUT(life, parentless_supply_unloaded_during_read, 300)
{
	const char *reads = "/sys/module/pp_test_supply/parameters/reads";
	struct battery_ev *e = NULL;
	long long lost0, r0, s0, s1;
	char cmd[320];
	struct utsname u;
	int n;

	ASSERT_EQ(0, uname(&u));
	snprintf(cmd, sizeof(cmd), "build/%s/pp_test_supply.ko", u.release);
	if (access(cmd, F_OK))
		SKIP(return, "no parentless test battery for this kernel (before 5.1 the sampler reads no parentless supply)");
	snprintf(cmd, sizeof(cmd), "insmod build/%s/pp_test_supply.ko", u.release);
	ASSERT_EQ(0, system(cmd));
	ASSERT_EQ(0, access(PSY_DIR "/pp_test_battery", F_OK));
	ASSERT_EQ(0, write_str(PARAMS "/supply", "pp_test_battery"));
	ASSERT_EQ(0, write_str(TRACING "/events/powerpin/powerpin_battery/enable", "1"));
	s0 = status_ll("samples");
	ASSERT_EQ(0, write_str(TRACING "/tracing_on", "1"));
	ASSERT_TRUE(wait_status_ge("samples", s0 + 5, 20.0));
	lost0 = status_ll("supply_lost");

	ASSERT_EQ(0, write_str("/sys/module/pp_test_supply/parameters/read_delay_ms", "150"));
	r0 = read_ll(reads);
	while (read_ll(reads) == r0)
		sleep_s(0.005);
	ASSERT_EQ(0, system("rmmod pp_test_supply"));
	ASSERT_NE(0, access(PSY_DIR "/pp_test_battery", F_OK));
	ASSERT_TRUE(wait_status_ge("supply_lost", lost0 + 1, 10.0));
	EXPECT_TRUE(wait_status_is("state", "waiting_supply", 2.0));
	ASSERT_EQ(0, write_str(TRACING "/tracing_on", "0"));
	s1 = status_ll("samples");

	n = trace_file_events(TRACING "/trace", &e);
	EXPECT_EQ(s1 - s0, n);
	for (int k = 0; k < n; k++) {
		ASSERT_EQ(3900000, e[k].voltage_uv);
		ASSERT_EQ(-120000, e[k].current_ua);
		ASSERT_EQ(55, e[k].capacity);
	}
	free(e);
	EXPECT_EQ(lost0 + 1, status_ll("supply_lost"));
}

/* perf record -a on powerpin:powerpin_battery for @secs, in a child; its pid. */
static pid_t perf_record_start(double secs)
{
	char len[16];
	pid_t pid;
	int fd;

	snprintf(len, sizeof(len), "%.1f", secs);
	pid = fork();
	if (pid)
		return pid;
	fd = open("/dev/null", O_WRONLY);
	dup2(fd, 1);
	dup2(fd, 2);
	execlp("perf", "perf", "record", "-q", "-a", "-e", "powerpin:powerpin_battery",
	       "-o", "/tmp/powerpin-life.perf", "--", "sleep", len, (char *)NULL);
	_exit(127);
}

/*
 * powerpin.ko itself unloaded while its events are in use.  A perf event
 * and an enable_event trigger hold the module: its unload is refused while
 * they are there, and it goes on sampling.  Events enabled in a tracefs
 * instance that records, and at the top level, hold nothing: the unload
 * goes through while the thread samples at 1 ms, the events are
 * unregistered after the module's exit through its class reg callback,
 * the instance outlives them, and the module loaded again samples for it.
 */
TEST_F_TIMEOUT(life, module_unloaded_under_its_consumers, 300)
{
	const char *no_perf = perf_cannot_record();
	long long s0;
	pid_t perf;
	int status;

	if (!no_perf) {
		perf = perf_record_start(4.0);
		ASSERT_GT(perf, 0);
		ASSERT_TRUE(wait_status_ge("samples", status_ll("samples") + 10, 10.0));
		EXPECT_NE(0, system("rmmod powerpin 2>/dev/null"))
			TH_LOG("unloaded under perf");
		ASSERT_EQ(0, access(STATUS, F_OK));
		s0 = status_ll("samples");
		EXPECT_TRUE(wait_status_ge("samples", s0 + 10, 10.0));
		ASSERT_EQ(perf, waitpid(perf, &status, 0));
		EXPECT_EQ(0, WEXITSTATUS(status));
		unlink("/tmp/powerpin-life.perf");
	} else {
		TH_LOG("%s: its part skipped", no_perf);
	}

	if (!write_str(TRACING "/events/sched/sched_process_fork/trigger",
		       "enable_event:powerpin:powerpin_battery")) {
		EXPECT_NE(0, system("rmmod powerpin 2>/dev/null"))
			TH_LOG("unloaded under an enable_event trigger");
		ASSERT_EQ(0, access(STATUS, F_OK));
		ASSERT_EQ(0, write_str(TRACING "/events/sched/sched_process_fork/trigger",
				       "!enable_event:powerpin:powerpin_battery"));
	}

	ASSERT_EQ(0, write_str(PARAMS "/period_us", "1000"));
	ASSERT_EQ(0, mkdir(INST, 0755));
	ASSERT_EQ(0, write_str(INST "/tracing_on", "1"));
	ASSERT_EQ(0, write_str(INST "/events/powerpin/powerpin_battery/enable", "1"));
	ASSERT_EQ(0, write_str(TRACING "/events/powerpin/powerpin_counter/enable", "1"));
	ASSERT_TRUE(wait_status_ge("samples", status_ll("samples") + 20, 10.0));
	ASSERT_EQ(0, system("rmmod powerpin"));
	EXPECT_NE(0, access(STATUS, F_OK));
	EXPECT_NE(0, access(INST "/events/powerpin", F_OK));
	ASSERT_EQ(0, access(INST "/tracing_on", F_OK));

	ASSERT_EQ(0, powerpin_reload());
	ASSERT_EQ(0, write_str(INST "/events/powerpin/powerpin_battery/enable", "1"));
	ASSERT_TRUE(wait_status_ge("samples", 5, 10.0));
	ASSERT_EQ(0, write_str(INST "/events/powerpin/powerpin_battery/enable", "0"));
	EXPECT_EQ(0, rmdir(INST));
	EXPECT_EQ(0, status_ll("event_enabled"));
}

/* A child that spins on a CPU until killed. */
static pid_t spawn_hog(void)
{
	pid_t pid = fork();

	if (!pid)
		for (volatile unsigned long n = 0;; n++)
			;
	return pid;
}

/* What the churn test's children count, in memory they share. */
struct churn {
	atomic_int stop;
	atomic_long asked;		/* status answers to nobody */
	atomic_long gauges;		/* gauge unbind + bind cycles */
};

/*
 * A child that, as nobody, asks for the status over netlink as fast as it
 * can until told to stop.
 */
static pid_t spawn_status_loop(struct churn *c)
{
	struct pp_status st;
	struct pp_genl *g;
	pid_t pid = fork();

	if (pid)
		return pid;
	if (setgid(65534) || setuid(65534))
		_exit(1);
	g = pp_genl_open();
	if (!g)
		_exit(1);
	while (!atomic_load(&c->stop))
		if (!pp_genl_get_status(g, &st))
			atomic_fetch_add(&c->asked, 1);
	_exit(0);
}

/*
 * A child that removes the emulated gauge's I2C client (the supply's
 * parent, freed) and creates it again until told to stop.
 */
static pid_t spawn_gauge_churn(struct churn *c)
{
	pid_t pid = fork();

	if (pid)
		return pid;
	for (int n = 0; !atomic_load(&c->stop); n++) {
		if (write_str(EMU "/unbind", "1"))
			_exit(1);
		sleep_s((n % 4) * 0.003);
		if (emu_ensure_bound())
			_exit(1);
		atomic_fetch_add(&c->gauges, 1);
	}
	_exit(0);
}

/* How many lines the kernel log has. */
static long kernel_log_lines(void)
{
	FILE *f = popen("dmesg | wc -l", "r");
	long n = -1;

	if (f && fscanf(f, "%ld", &n) != 1)
		n = -1;
	if (f)
		pclose(f);
	return n;
}

/* The kernel log's problem lines after its first @skip, into TH_LOG. */
static int kernel_log_problems(struct __test_metadata *_metadata, long skip)
{
	char line[512];
	int n = 0;
	FILE *f;

	snprintf(line, sizeof(line), "dmesg | tail -n +%ld | "
		 "grep -E 'BUG|WARNING|Oops|Poison|Redzone|corrupt'", skip + 1);
	f = popen(line, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		TH_LOG("%s", strtok(line, "\n"));
		n++;
	}
	pclose(f);
	return n;
}

/* Create and destroy HID batteries for @seconds; how many came and went. */
static int hid_battery_churn(double seconds)
{
	struct uhid_battery b;
	char uniq[32];
	int n = 0;

	for (double end = now_mono() + seconds; now_mono() < end; n++) {
		snprintf(uniq, sizeof(uniq), "ppchurn%d", n);
		if (uhid_battery_create(&b, uniq))
			return -1;
		sleep_s((n % 5) * 0.002);
		uhid_battery_destroy(&b);
	}
	return n;
}

/*
 * First-battery mode at a 1 ms period, two CPU hogs; HID batteries (uhid)
 * registered and unregistered in a loop, and the gauge's I2C client
 * removed and created again in another, while nobody asks for the status
 * over netlink in a third: lookups keep walking supplies whose parents are
 * being freed.  The kernel log stays clean (with slub_debug=FZPU, which
 * vm-run gives the 3.10 guest, a touch of a freed parent is a BUG line)
 * and the gauge is sampled throughout.  On 3.10 a uhid battery takes 5 s
 * to appear (the ADD uevent asks for its capacity while UHID_CREATE holds
 * the lock its answer needs): the gauge makes most of the churn there.
 */
TEST_F_TIMEOUT(life, first_battery_lookup_under_churn, 300)
{
	struct churn *c = mmap(NULL, sizeof(*c), PROT_READ | PROT_WRITE,
			       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	char poison[8] = "";
	pid_t kids[4];
	long long s0, found0;
	long log0;
	int hids, status;

	if (hid_stack_load())
		SKIP(return, "uhid / hid-generic not available in this kernel");
	ASSERT_NE(MAP_FAILED, c);
	/* arm64 before 6.5 has no kmalloc cache under 128 bytes */
	if (read_line("/sys/kernel/slab/kmalloc-64/poison", poison, sizeof(poison)))
		read_line("/sys/kernel/slab/kmalloc-128/poison", poison, sizeof(poison));
	TH_LOG("slab poisoning %s", poison[0] == '1' ? "on" : "off (boot with slub_debug=FZPU to see a use-after-free)");
	log0 = kernel_log_lines();
	ASSERT_LE(0, log0);
	ASSERT_EQ(0, write_str(PARAMS "/supply", "\n"));
	ASSERT_EQ(0, write_str(PARAMS "/period_us", "1000"));
	ASSERT_EQ(0, write_str(TRACING "/events/powerpin/powerpin_battery/enable", "1"));
	ASSERT_EQ(0, write_str(TRACING "/tracing_on", "1"));
	s0 = status_ll("samples");
	found0 = status_ll("supply_found");
	kids[0] = spawn_hog();
	kids[1] = spawn_hog();
	kids[2] = spawn_status_loop(c);
	kids[3] = spawn_gauge_churn(c);
	hids = hid_battery_churn(30.0);
	atomic_store(&c->stop, 1);
	kill(kids[0], SIGKILL);
	kill(kids[1], SIGKILL);
	for (int i = 0; i < 4; i++) {
		ASSERT_EQ(kids[i], waitpid(kids[i], &status, 0));
		if (i >= 2)
			EXPECT_EQ(0, status) TH_LOG("child %d", i);
	}
	ASSERT_EQ(0, emu_ensure_bound());
	ASSERT_EQ(0, write_str(TRACING "/tracing_on", "0"));
	TH_LOG("%d HID batteries, %ld gauge rebinds, %ld status answers to nobody, %lld samples, %lld finds",
	       hids, atomic_load(&c->gauges), atomic_load(&c->asked),
	       status_ll("samples") - s0, status_ll("supply_found") - found0);
	EXPECT_GE(hids, 3);
	EXPECT_GT(atomic_load(&c->gauges), 20);
	EXPECT_GT(atomic_load(&c->asked), 100);
	/* how much of the 30 s the gauge is bound depends on the load */
	EXPECT_GT(status_ll("samples"), s0);
	EXPECT_GT(status_ll("supply_found"), found0 + 5);
	EXPECT_EQ(0, kernel_log_problems(_metadata, log0));
	munmap(c, sizeof(*c));
}

TEST_HARNESS_MAIN
