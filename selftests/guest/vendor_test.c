// SPDX-License-Identifier: GPL-2.0
/*
 * What a vendor's fuel-gauge stack does to the sampler (the Nexus 6's:
 * shamu's max17042_battery and smb135x charger, kmod/README.md "Nexus 6"):
 *
 *  - a burst of -EAGAIN (the chip re-initialising; the emulator's
 *    again_transfers) is a run of flagged samples, never a stop;
 *  - the charge counter wraps (16 bits of 0.5 mAh: unsigned at 0 in the
 *    drivers before 5.11 and the vendor's, signed at 16384 mAh since), and
 *    powerpin report leaves the jump out instead of pricing 32 Ah;
 *  - where the kernel has the vendor type BMS, the gauge is the first
 *    battery even when the charger's forwarding "battery" was registered
 *    first, and a supply that forwards the gauge's readings is refused with
 *    a reason (it reads the gauge outside the gauge driver's lock).
 *
 * The first two run on every guest; the BMS ones where the kernel has that
 * type (the shamu guest), else they skip saying why.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "guest_harness.h"
#include <linux/powerpin.h>

#include "gauge_driver.h"
#include "sampler_helpers.h"

#define DEFAULT_FULL_UAH	"3000000"
#define DEFAULT_CHARGE_UAH	"2400000"
#define WRAP_LOAD_UA		(-3000000)

/* The QH register the emulator serves now, or -1. */
static long emu_qh(void)
{
	FILE *f = fopen(EMU "/registers", "r");
	unsigned int reg, val;
	long qh = -1;

	if (!f)
		return -1;
	while (fscanf(f, "%x %x", &reg, &val) == 2)
		if (reg == 0x4d)
			qh = val;
	fclose(f);
	return qh;
}

/* Does the kernel's log have a line with @needle? */
static int dmesg_has(const char *needle)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "dmesg | grep -qF '%s'", needle);
	return system(cmd) == 0;
}

FIXTURE(vendor) {
	char tracing_on[8];
};

FIXTURE_SETUP(vendor)
{
	if (access(STATUS, F_OK))
		SKIP(return, "powerpin.ko is not loaded (run under scripts/vm-run)");
	if (access(EMU, F_OK))
		SKIP(return, "max17042_emu is not loaded");
	ASSERT_EQ(0, read_line(TRACING "/tracing_on", self->tracing_on,
			      sizeof(self->tracing_on)));
	ASSERT_EQ(0, tracing_reset());
	ASSERT_EQ(0, write_str(TRACING "/buffer_size_kb", "4096"));
	ASSERT_EQ(0, write_str(PARAMS "/period_us", "10000"));
	ASSERT_EQ(0, write_str(PARAMS "/supply", "max170xx_battery"));
	emu_reset();
	ASSERT_EQ(0, emu_ensure_bound());
}

FIXTURE_TEARDOWN(vendor)
{
	write_str(TRACING "/events/powerpin/enable", "0");
	write_str(TRACING "/tracing_on", self->tracing_on[0] ? self->tracing_on : "1");
	write_str(TRACING "/trace_clock", "local");
	write_str(PARAMS "/period_us", "100000");
	write_str(PARAMS "/supply", "max170xx_battery");
	write_str(EMU "/again_transfers", "0");
	if (!access(EMU "/forward", F_OK))
		write_str(EMU "/forward", "0");
	write_str(EMU "/current_ua", "-300000");
	write_str(EMU "/full_uah", DEFAULT_FULL_UAH);
	write_str(EMU "/charge_uah", DEFAULT_CHARGE_UAH);
	emu_reset();
	emu_ensure_bound();
}

/*
 * 60 transfers answer -EAGAIN in the middle of a capture at 10 ms: the
 * samples of that time are written with AGAIN and READ_ERROR, the sampler
 * keeps its supply (no loss), numbers every sample, and reads clean values
 * again as soon as the gauge answers.
 */
TEST_F_TIMEOUT(vendor, again_burst_is_flagged_not_a_stop, 300)
{
	long long lost0, s0, s1;
	struct battery_ev *e = NULL;
	int n, again = 0, clean_after = 0, last_again = -1;

	ASSERT_EQ(0, write_str(TRACING "/events/powerpin/powerpin_battery/enable", "1"));
	lost0 = status_ll("supply_lost");
	s0 = status_ll("samples");
	ASSERT_EQ(0, write_str(TRACING "/tracing_on", "1"));
	ASSERT_TRUE(wait_status_ge("samples", s0 + 20, 60.0));
	ASSERT_EQ(0, write_str(EMU "/again_transfers", "60"));
	s1 = status_ll("samples");
	/* the burst is over once the emulator has answered all of it */
	ASSERT_TRUE(wait_status_ge("samples", s1 + 60, 60.0));
	ASSERT_EQ(0, read_ll(EMU "/again_transfers"));
	ASSERT_TRUE(wait_status_ge("samples", status_ll("samples") + 20, 60.0));
	ASSERT_EQ(0, write_str(TRACING "/tracing_on", "0"));

	n = trace_file_events(TRACING "/trace", &e);
	ASSERT_GE(n, 95);
	for (int k = 0; k < n; k++) {
		if (k && e[k].seq != e[k - 1].seq + 1)
			TH_LOG("seq %u after %u", e[k].seq, e[k - 1].seq);
		EXPECT_TRUE(!k || e[k].seq == e[k - 1].seq + 1);
		if (e[k].flags & POWERPIN_SAMPLE_AGAIN) {
			EXPECT_TRUE(!!(e[k].flags & POWERPIN_SAMPLE_READ_ERROR));
			again++;
			last_again = k;
		}
	}
	for (int k = last_again + 1; k < n; k++)
		clean_after += !(e[k].flags & (POWERPIN_SAMPLE_READ_ERROR | POWERPIN_SAMPLE_AGAIN)) &&
			       e[k].voltage_uv > 3000000;
	TH_LOG("%d samples, %d with AGAIN, %d clean after the last", n, again, clean_after);
	EXPECT_GE(again, 1);
	EXPECT_GE(clean_after, 15);
	EXPECT_EQ(lost0, status_ll("supply_lost"));
	EXPECT_EQ(1, status_ll("supply_present"));
	free(e);
}

/*
 * The emulated coulomb count crosses the driver's wrap point while a
 * capture runs at 3 A: the trace shows the jump (over 30 Ah between two
 * samples), and powerpin report counts one jump and keeps the counter's
 * delta to what the current drew (the same sign, within 2 mAh of the
 * trapezoid of the current), instead of 32 Ah.
 */
TEST_F_TIMEOUT(vendor, charge_counter_wrap_is_a_jump_in_the_report, 300)
{
	const char *file = "/tmp/pp-vendor-wrap.trace";
	bool before_5_11 = gauge_driver_before_5_11();
	char cmd[512], out[16384];
	struct battery_ev *e = NULL;
	long long delta_uah, jumps;
	double end, integral_uah = 0;
	int n, big_steps = 0;
	char *p;
	long qh;

	/* unsigned QH wraps below 0; signed QH wraps below 16384 mAh (0x8000) */
	ASSERT_EQ(0, write_str(EMU "/full_uah", before_5_11 ? DEFAULT_FULL_UAH : "20000000"));
	ASSERT_EQ(0, write_str(EMU "/charge_uah", before_5_11 ? "1500" : "16385500"));
	ASSERT_EQ(0, write_ll(EMU "/current_ua", WRAP_LOAD_UA));
	ASSERT_EQ(0, write_str(PARAMS "/period_us", "50000"));
	ASSERT_EQ(0, write_str(TRACING "/events/powerpin/powerpin_battery/enable", "1"));
	ASSERT_EQ(0, write_str(TRACING "/tracing_on", "1"));
	/* until the count has crossed, then another second */
	end = now_mono() + 120;
	do {
		sleep_s(0.1);
		qh = emu_qh();
	} while (now_mono() < end && (before_5_11 ? qh < 0x8000 : qh >= 0x8000));
	ASSERT_TRUE(before_5_11 ? qh >= 0x8000 : qh < 0x8000) TH_LOG("QH 0x%lx", qh);
	sleep_s(1.0);
	ASSERT_EQ(0, write_str(TRACING "/tracing_on", "0"));
	snprintf(cmd, sizeof(cmd), "cp %s/trace %s", TRACING, file);
	ASSERT_EQ(0, system(cmd));

	n = trace_file_events(file, &e);
	ASSERT_GE(n, 10);
	for (int k = 1; k < n; k++) {
		if (llabs(e[k].charge_uah - e[k - 1].charge_uah) > 30000000)
			big_steps++;
		else
			integral_uah += (e[k].current_ua + e[k - 1].current_ua) / 2.0 *
					(e[k].ts - e[k - 1].ts) / 3600;
	}
	EXPECT_EQ(1, big_steps);
	free(e);

	snprintf(cmd, sizeof(cmd), "build/bin/powerpin report %s --json - 2>&1", file);
	ASSERT_EQ(0, run_cmd(cmd, out, sizeof(out))) TH_LOG("%s", out);
	p = strstr(out, "\"charge_counter_jumps\": ");
	ASSERT_NE(NULL, p) TH_LOG("%s", out);
	jumps = strtoll(p + strlen("\"charge_counter_jumps\": "), NULL, 10);
	p = strstr(out, "\"charge_counter_delta_uah\": ");
	ASSERT_NE(NULL, p) TH_LOG("%s", out);
	delta_uah = strtoll(p + strlen("\"charge_counter_delta_uah\": "), NULL, 10);
	TH_LOG("report: %lld jump(s), counter delta %lld uAh; current integral %.0f uAh",
	       jumps, delta_uah, integral_uah);
	EXPECT_EQ(1, jumps);
	EXPECT_LT(delta_uah, 0);
	EXPECT_LT(llabs(delta_uah - (long long)integral_uah), 2000);
	unlink(file);
}

/* Why the BMS tests cannot run here (NULL: they can). */
static const char *no_vendor_gauge(void)
{
	if (!gauge_driver_is_vendor())
		return "the gauge is not of the vendor type BMS here (mainline has no such type: Qualcomm-era vendor kernels such as the Nexus 6's)";
	if (access(EMU "/forward", F_OK))
		return "the emulator has no forwarding battery on this kernel";
	return NULL;
}

/*
 * The charger's "battery" registered before the gauge (the gauge rebound
 * after it): first-battery mode still samples the gauge.
 */
TEST_F_TIMEOUT(vendor, gauge_is_the_first_battery, 300)
{
	const char *why = no_vendor_gauge();
	char bound[64];
	long long s0;

	if (why)
		SKIP(return, "%s", why);
	ASSERT_EQ(0, write_str(EMU "/unbind", "1"));
	ASSERT_EQ(0, write_str(EMU "/forward", "1"));
	ASSERT_EQ(0, emu_ensure_bound());
	ASSERT_EQ(0, write_str(PARAMS "/supply", ""));
	ASSERT_EQ(0, write_str(TRACING "/events/powerpin/powerpin_battery/enable", "1"));
	s0 = status_ll("samples");
	ASSERT_EQ(0, write_str(TRACING "/tracing_on", "1"));
	ASSERT_TRUE(wait_status_ge("samples", s0 + 10, 60.0));
	ASSERT_EQ(0, write_str(TRACING "/tracing_on", "0"));
	ASSERT_EQ(0, status_str("supply_bound", bound, sizeof(bound)));
	EXPECT_STREQ("max170xx_battery", bound);
}

/*
 * supply=battery names the forwarding supply: refused, with the gauge in
 * the status and the kernel log, no sample taken; naming the gauge then
 * samples at once.
 */
TEST_F_TIMEOUT(vendor, forwarding_supply_is_refused, 300)
{
	const char *why = no_vendor_gauge();
	char forwards[64];
	long long s0;

	if (why)
		SKIP(return, "%s", why);
	ASSERT_EQ(0, write_str(EMU "/forward", "1"));
	ASSERT_EQ(0, write_str(PARAMS "/supply", "battery"));
	ASSERT_EQ(0, write_str(TRACING "/events/powerpin/powerpin_battery/enable", "1"));
	s0 = status_ll("samples");
	ASSERT_EQ(0, write_str(TRACING "/tracing_on", "1"));
	ASSERT_TRUE(wait_status_is("supply_forwards", "max170xx_battery", 30.0));
	sleep_s(0.5);
	ASSERT_EQ(0, status_str("state", forwards, sizeof(forwards)));
	EXPECT_STREQ("waiting_supply", forwards);
	EXPECT_EQ(s0, status_ll("samples"));
	EXPECT_TRUE(dmesg_has("battery is not read: it forwards the fuel gauge max170xx_battery"));

	ASSERT_EQ(0, write_str(PARAMS "/supply", "max170xx_battery"));
	ASSERT_TRUE(wait_status_ge("samples", s0 + 5, 60.0));
	ASSERT_EQ(0, write_str(TRACING "/tracing_on", "0"));
	ASSERT_EQ(0, status_str("supply_forwards", forwards, sizeof(forwards)));
	EXPECT_STREQ("", forwards);
}

TEST_HARNESS_MAIN
