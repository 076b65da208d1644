/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the running kernel's max17042_battery driver reports for a register
 * value, for the guest tests that pin registers in the emulator or set its
 * model and compare with sysfs or the trace.
 *
 * Linux 5.11 changed two conversions (the series that also added
 * CHARGE_TERM_CURRENT; the drivers of 3.10.105, 4.9.124, 4.14.5, 4.19.72,
 * 5.4.59 and Debian's 5.10, 6.1, 6.12 and 7.2 were read):
 *  - CURRENT_NOW, CURRENT_AVG: before, raw * (1562500 / r_sns), the
 *    quotient truncated first (156 uA per bit at 10 mOhm, not 156.25);
 *    since, raw * 1562500 / r_sns;
 *  - CHARGE_COUNTER: before, QH * 1000 / 2, unsigned and ignoring r_sns;
 *    since, sign-extended QH * 5000000 / r_sns.
 * 3.10's and 4.9's drivers have no CHARGE_NOW and none before 5.10 has
 * TIME_TO_EMPTY_NOW; 4.9's to 5.4's convert as 5.10's.
 * The Nexus 6's vendor driver (shamu's 3.10.40, a gauge of type BMS)
 * converts as 3.10's, but rounds CAPACITY up when RepSOC has a fraction
 * (at most 100) and passes TEMP through its board's conversion table, which
 * the emulator gives as the identity from -40 to 90 degC (clamped there).
 * r_sns is 10000 micro-ohm: the driver's default where the guest has no
 * device tree or platform data for the chip, and the emulator's platform
 * data where the driver needs some (before 4.15).
 */
#ifndef POWERPIN_GAUGE_DRIVER_H
#define POWERPIN_GAUGE_DRIVER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

#define GAUGE_R_SNS_UOHM	10000LL

/* the lines whose drivers were read, as above */
#define GAUGE_CHECKED_LINES	"3.10, 4.9, 4.14, 4.19, 5.4, 5.10, 6.1, 6.12 and 7.2"

static inline bool gauge_conversions_checked(const char *release)
{
	static const char *const lines[] = {
		"3.10.", "4.9.", "4.14.", "4.19.", "5.4.", "5.10.", "6.1.", "6.12.", "7.2.",
	};
	size_t i;

	for (i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		if (!strncmp(release, lines[i], strlen(lines[i])))
			return true;
	return false;
}

/* Is the running kernel at least @major.@minor? */
static inline bool gauge_kernel_at_least(int major, int minor)
{
	static int k_major = -1, k_minor;
	struct utsname u;

	if (k_major < 0 &&
	    (uname(&u) || sscanf(u.release, "%d.%d", &k_major, &k_minor) != 2)) {
		k_major = 99;
		k_minor = 0;
	}
	return k_major > major || (k_major == major && k_minor >= minor);
}

/* Is the running kernel's driver from before 5.11 (3.10, 5.10)? */
static inline bool gauge_driver_before_5_11(void)
{
	return !gauge_kernel_at_least(5, 11);
}

/* Does the running kernel's driver have power_supply property @prop? */
static inline bool gauge_driver_has(const char *prop)
{
	if (!strcmp(prop, "time_to_empty_now"))
		return gauge_kernel_at_least(5, 10);
	/* CHARGE_NOW came between 4.9 and 4.14 (3.10's and 4.9's lack it) */
	if (gauge_kernel_at_least(4, 14))
		return true;
	return strcmp(prop, "charge_now");
}

/*
 * Does the driver refuse TTE 0xffff (the chip's "not meaningful", while
 * charging) with -ENODATA?  7.2's does; 6.12's converts it like any value
 * (the kernels between were not read: 6.13 is the first that could).
 */
static inline bool gauge_tte_ffff_is_enodata(void)
{
	return gauge_kernel_at_least(6, 13);
}

/* Is the gauge's driver the Nexus 6's vendor one (its supply is a BMS)? */
static inline bool gauge_driver_is_vendor(void)
{
	static int vendor = -1;
	char type[16] = "";
	FILE *f;

	if (vendor < 0) {
		f = fopen("/sys/class/power_supply/max170xx_battery/type", "r");
		if (f) {
			if (!fgets(type, sizeof(type), f))
				type[0] = '\0';
			fclose(f);
		}
		vendor = !strncmp(type, "BMS", 3);
	}
	return vendor;
}

/* RepSOC register -> CAPACITY (%) */
static inline long long gauge_capacity_pct(uint32_t raw)
{
	long long pct = (raw & 0xffff) >> 8;

	if (gauge_driver_is_vendor() && (raw & 0xff))
		pct = pct + 1 > 100 ? 100 : pct + 1;
	return pct;
}

/* TEMP register -> deci-degC */
static inline long long gauge_temp_decic(uint32_t raw)
{
	long long t = (int16_t)raw * 10 / 256;

	if (gauge_driver_is_vendor())
		t = t < -400 ? -400 : t > 900 ? 900 : t;
	return t;
}

/* Current, AvgCurrent register -> uA */
static inline long long gauge_current_ua(uint32_t raw)
{
	long long s = (int16_t)raw;

	if (gauge_driver_before_5_11())
		return s * (1562500 / GAUGE_R_SNS_UOHM);
	return s * 1562500LL / GAUGE_R_SNS_UOHM;
}

/* QH register -> uAh */
static inline long long gauge_charge_counter_uah(uint32_t raw)
{
	if (gauge_driver_before_5_11())
		return (long long)(raw & 0xffff) * 1000 / 2;
	return (long long)(int16_t)raw * 5000000LL / GAUGE_R_SNS_UOHM;
}

/*
 * The Current register the emulator's model writes for @ua: 156.25 uA a
 * bit, truncated toward zero
 */
static inline uint32_t gauge_emu_current_raw(long long ua)
{
	long long raw = ua * 4 / 625;

	if (raw > INT16_MAX)
		raw = INT16_MAX;
	if (raw < INT16_MIN)
		raw = INT16_MIN;
	return (uint16_t)raw;
}

/* What sysfs and powerpin report while the emulator's model draws @ua */
static inline long long gauge_reported_current_ua(long long ua)
{
	return gauge_current_ua(gauge_emu_current_raw(ua));
}

#endif /* POWERPIN_GAUGE_DRIVER_H */
