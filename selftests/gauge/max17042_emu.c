// SPDX-License-Identifier: GPL-2.0
/*
 * MAX17042 fuel-gauge emulator for powerpin's guest tests.
 *
 * Registers an I2C adapter of its own that answers as a MAX17042 at 0x36
 * from a register array, and instantiates "max17042" on it so that the
 * kernel's unmodified max17042_battery driver binds and registers
 * max170xx_battery.  (i2c-stub cannot host that driver: regmap wants
 * native-endian 16-bit values, which needs I2C_FUNC_I2C.)
 *
 * Behind the registers sits a small battery model: a load current (constant,
 * square wave, or following the guest's CPU load), an open-circuit-voltage
 * curve plus internal resistance giving VCELL, and a coulomb counter giving
 * QH, RepCap and RepSOC.  Like the chip, the model refreshes its registers
 * every 175.8 ms; it does so lazily, on the first transfer after a refresh
 * is due, so an idle emulator wakes nothing.
 *
 * Sign convention (the chip's and the driver's): the Current register and
 * every *_ua control are positive while charging, negative while
 * discharging.  The sense resistor is the driver's default 10 mOhm.
 *
 * Controls live in debugfs (max17042_emu/); selftests/gauge/README.md
 * documents them.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitops.h>
#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/i2c.h>
#include <linux/kernel.h>
#include <linux/kernel_stat.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/string.h>
#include <linux/tick.h>

#include "emu_compat.h"

#define EMU_I2C_ADDR		0x36
#define EMU_NR_REGS		256
#define EMU_STATUS_POR		BIT(1)
/* MiscCFG power-on default: bits 0-1 != 3, so the driver enables current sense */
#define EMU_MISCCFG_POR		0x0810
#define EMU_CONFIG_POR		0x2210
/* DevName: drivers before 4.x check it and refuse other chips */
#define EMU_DEVNAME_MAX17042	0x00ac

/*
 * Register units with the default 10 mOhm sense resistor:
 * Current 1.5625 uV / 10 mOhm = 156.25 uA = 625/4 uA; capacity registers
 * 5 uVh / 10 mOhm = 0.5 mAh; VCELL 0.625 mV in bits 15:3; TEMP 1/256 degC;
 * SOC 1/256 %; TTE 5.625 s.
 */
#define EMU_PC_PER_UAH		3600000000LL	/* picocoulombs per uAh */
#define EMU_UAH_PER_CAP_LSB	500
#define EMU_PC_PER_CAP_LSB	(EMU_PC_PER_UAH * EMU_UAH_PER_CAP_LSB)
#define EMU_CURRENT_MAX_UA	5120000
#define EMU_AVG_TAU_US		5625000		/* AvgCurrent/AvgVCELL filter */
#define EMU_BULK_STEPS		4096		/* refresh steps modelled one by one */

/*
 * The MAX17042 registers the model serves (addresses as in the datasheet and
 * in <linux/power/max17042_battery.h>, spelled in kernel style).
 */
enum emu_reg {
	REG_STATUS = 0x00,
	REG_REPCAP = 0x05,
	REG_REPSOC = 0x06,
	REG_TEMP = 0x08,
	REG_VCELL = 0x09,
	REG_CURRENT = 0x0a,
	REG_AVGCURRENT = 0x0b,
	REG_SOC = 0x0d,
	REG_AVSOC = 0x0e,
	REG_REMCAP = 0x0f,
	REG_FULLCAP = 0x10,
	REG_TTE = 0x11,
	REG_AVGTA = 0x16,
	REG_DESIGNCAP = 0x18,
	REG_AVGVCELL = 0x19,
	REG_CONFIG = 0x1d,
	REG_AVCAP = 0x1f,
	REG_DEVNAME = 0x21,
	REG_FULLCAPNOM = 0x23,
	REG_MISCCFG = 0x2b,
	REG_QH = 0x4d,
	REG_OCV = 0xfb,
	REG_VFSOC = 0xff,
};

enum emu_mode { EMU_MODE_CONSTANT, EMU_MODE_SQUARE, EMU_MODE_CPU };

static const char * const emu_mode_names[] = {
	[EMU_MODE_CONSTANT] = "constant",
	[EMU_MODE_SQUARE] = "square",
	[EMU_MODE_CPU] = "cpu",
};

/* Open-circuit voltage of a Li-ion cell at 0, 10, ..., 100 % state of charge */
static const int emu_ocv_mv[] = {
	3300, 3680, 3740, 3775, 3810, 3850, 3910, 3980, 4060, 4140, 4200,
};

static unsigned int refresh_us = 175800;
module_param(refresh_us, uint, 0444);
MODULE_PARM_DESC(refresh_us, "initial register refresh period in us (0 = on every read)");

/* Everything below is protected by emu.lock unless noted otherwise. */
static struct {
	struct mutex lock;		/* model, registers, controls */
	u16 regs[EMU_NR_REGS];
	DECLARE_BITMAP(pinned, EMU_NR_REGS);
	u8 reg_ptr;

	/* controls (debugfs) */
	enum emu_mode mode;
	s64 current_ua;
	s64 square_low_ua;
	s64 square_high_ua;
	s64 square_period_ms;
	s64 cpu_idle_ua;
	s64 cpu_busy_ua;
	s64 refresh_us;
	s64 fail_every;
	s64 again_transfers;
	s64 latency_us;
	s64 temp_decic;
	s64 r_int_uohm;
	s64 full_uah;

	/* model state */
	u64 last_ns;		/* model time: registers reflect this instant */
	u64 epoch_ns;		/* start of the square wave */
	s64 charge_pc;		/* remaining charge, 0..full */
	s64 coulomb_pc;		/* unclamped coulomb count behind QH */
	s64 load_ua;		/* current of the last step */
	s64 avg_na;		/* AvgCurrent filter state */
	s64 avg_vcell_nv;	/* AvgVCELL filter state */
	u64 cpu_busy_ns;	/* cpu mode: CPU times at the last sample */
	u64 cpu_idle_ns;
	s64 busy_ppm;

	u64 transfers;
	u64 sampler_transfers;	/* of them, by powerpin.ko's thread */

	struct mutex client_lock;	/* client; never taken inside lock */
	struct i2c_client *client;
	struct dentry *dir;
} emu;

/*
 * Busy and idle time of all online CPUs so far, from the sources /proc/stat
 * uses: kcpustat for user, nice, system, irq and softirq time, the nohz idle
 * clock (or kcpustat) for idle and iowait. Steal time is not the guest's load.
 */
static void emu_cpu_times(u64 *busy_ns, u64 *idle_ns)
{
	u64 cpustat[NR_STATS];
	int cpu;

	*busy_ns = 0;
	*idle_ns = 0;
	for_each_online_cpu(cpu) {
		u64 idle_us = get_cpu_idle_time_us(cpu, NULL);
		u64 iowait_us = get_cpu_iowait_time_us(cpu, NULL);

		powerpin_cpustat_ns(cpu, cpustat);
		*busy_ns += cpustat[CPUTIME_USER] + cpustat[CPUTIME_NICE] +
			    cpustat[CPUTIME_SYSTEM] + cpustat[CPUTIME_IRQ] +
			    cpustat[CPUTIME_SOFTIRQ];
		*idle_ns += idle_us == -1ULL ? cpustat[CPUTIME_IDLE] : idle_us * NSEC_PER_USEC;
		*idle_ns += iowait_us == -1ULL ? cpustat[CPUTIME_IOWAIT] :
			    iowait_us * NSEC_PER_USEC;
	}
}

/*
 * Busy fraction of the CPUs since the last sample, in parts per million.
 * It is busy / (busy + idle) rather than 1 - idle / wall time: a guest
 * under emulation whose vCPUs the host deschedules loses that time from
 * both, instead of having it count as load.
 */
static void emu_sample_cpu(void)
{
	u64 busy, idle, dbusy, total;

	emu_cpu_times(&busy, &idle);
	dbusy = busy - emu.cpu_busy_ns;
	total = dbusy + (idle - emu.cpu_idle_ns);
	if (total)
		emu.busy_ppm = min_t(u64, 1000000,
				     powerpin_mul_u64_u64_div_u64(dbusy, 1000000, total));
	emu.cpu_busy_ns = busy;
	emu.cpu_idle_ns = idle;
}

/* Start a new busy-fraction window now. */
static void emu_restart_cpu(void)
{
	emu_cpu_times(&emu.cpu_busy_ns, &emu.cpu_idle_ns);
	emu.busy_ppm = 0;
}

static s64 emu_load_ua(u64 t)
{
	u64 period_ns, phase;

	switch (emu.mode) {
	case EMU_MODE_SQUARE:
		period_ns = emu.square_period_ms * NSEC_PER_MSEC;
		div64_u64_rem(t - emu.epoch_ns, period_ns, &phase);
		return phase < period_ns / 2 ? emu.square_low_ua : emu.square_high_ua;
	case EMU_MODE_CPU:
		return emu.cpu_idle_ua +
		       div_s64((emu.cpu_busy_ua - emu.cpu_idle_ua) * emu.busy_ppm, 1000000);
	default:
		return emu.current_ua;
	}
}

static s64 emu_full_pc(void)
{
	return emu.full_uah * EMU_PC_PER_UAH;
}

/* Open-circuit voltage for the present state of charge, piecewise linear */
static s64 emu_ocv_uv(void)
{
	s64 soc_ppm = div64_s64(emu.charge_pc * 10, emu.full_uah * (EMU_PC_PER_UAH / 100000));
	int seg = min_t(s64, div_s64(soc_ppm, 100000), ARRAY_SIZE(emu_ocv_mv) - 2);
	s64 lo = emu_ocv_mv[seg] * 1000LL, hi = emu_ocv_mv[seg + 1] * 1000LL;

	return lo + div_s64((hi - lo) * (soc_ppm - seg * 100000LL), 100000);
}

static s64 emu_vcell_uv(s64 load_ua)
{
	return max_t(s64, emu_ocv_uv() + div_s64(load_ua * emu.r_int_uohm, 1000000), 0);
}

static s64 emu_filter(s64 avg, s64 x, u64 dt_us)
{
	/* after many time constants the average is the input (and no overflow) */
	if (dt_us > 64 * EMU_AVG_TAU_US)
		return x;
	return avg + div64_s64((x - avg) * (s64)dt_us, EMU_AVG_TAU_US + (s64)dt_us);
}

/* Advance the model by dt_ns ending at time t, drawing the load of time t. */
static void emu_step(u64 t, u64 dt_ns)
{
	u64 dt_us = div_u64(dt_ns, NSEC_PER_USEC);
	s64 load_ua = emu_load_ua(t);
	s64 dq_pc = load_ua * (s64)dt_us;

	emu.load_ua = load_ua;
	emu.coulomb_pc += dq_pc;
	emu.charge_pc = clamp_t(s64, emu.charge_pc + dq_pc, 0, emu_full_pc());
	emu.avg_na = emu_filter(emu.avg_na, load_ua * 1000, dt_us);
	emu.avg_vcell_nv = emu_filter(emu.avg_vcell_nv, emu_vcell_uv(load_ua) * 1000, dt_us);
}

static void emu_set_reg(u8 reg, s64 val)
{
	if (!test_bit(reg, emu.pinned))
		emu.regs[reg] = (u16)val;
}

static u16 emu_vcell_raw(s64 uv)
{
	return min_t(s64, div_s64(uv, 625), 0x1fff) << 3;
}

static s64 emu_current_raw(s64 ua)
{
	return clamp_t(s64, div_s64(ua * 4, 625), S16_MIN, S16_MAX);
}

/* Recompute the model's registers from its state at emu.last_ns. */
static void emu_update_regs(void)
{
	s64 charge_uah = div64_s64(emu.charge_pc, EMU_PC_PER_UAH);
	s64 soc = div64_s64(charge_uah * 25600, emu.full_uah);
	s64 cap = div_s64(charge_uah, EMU_UAH_PER_CAP_LSB);
	s64 full = div_s64(emu.full_uah, EMU_UAH_PER_CAP_LSB);
	s64 avg_ua = div_s64(emu.avg_na, 1000);
	/* away from zero, so the driver's truncating conversion returns temp_decic */
	s64 temp = div_s64(emu.temp_decic * 256 + (emu.temp_decic < 0 ? -9 : 9), 10);
	s64 tte = 0xffff;

	if (avg_ua < 0)
		tte = min_t(s64, div64_s64(charge_uah * 3600 * 1000, -avg_ua * 5625), 0xffff);

	emu_set_reg(REG_VCELL, emu_vcell_raw(emu_vcell_uv(emu.load_ua)));
	emu_set_reg(REG_AVGVCELL, emu_vcell_raw(div_s64(emu.avg_vcell_nv, 1000)));
	emu_set_reg(REG_OCV, emu_vcell_raw(emu_ocv_uv()));
	emu_set_reg(REG_CURRENT, emu_current_raw(emu.load_ua));
	emu_set_reg(REG_AVGCURRENT, emu_current_raw(avg_ua));
	emu_set_reg(REG_QH, div64_s64(emu.coulomb_pc, EMU_PC_PER_CAP_LSB));
	emu_set_reg(REG_REPCAP, cap);
	emu_set_reg(REG_REMCAP, cap);
	emu_set_reg(REG_AVCAP, cap);
	emu_set_reg(REG_REPSOC, soc);
	emu_set_reg(REG_SOC, soc);
	emu_set_reg(REG_AVSOC, soc);
	emu_set_reg(REG_VFSOC, soc);
	emu_set_reg(REG_FULLCAP, full);
	emu_set_reg(REG_FULLCAPNOM, full);
	emu_set_reg(REG_DESIGNCAP, full);
	emu_set_reg(REG_TEMP, temp);
	emu_set_reg(REG_AVGTA, temp);
	emu_set_reg(REG_TTE, tte);
}

/*
 * Bring the model up to @now in whole refresh periods (or exactly, with
 * refresh_us = 0) and recompute the registers if time moved.
 */
static void emu_advance(u64 now)
{
	u64 period_ns = emu.refresh_us * NSEC_PER_USEC;
	u64 steps, bulk, dt_ns;

	if (now <= emu.last_ns)
		return;
	if (!period_ns) {
		/* whole microseconds, so that frequent reads lose no charge */
		dt_ns = div_u64(now - emu.last_ns, NSEC_PER_USEC) * NSEC_PER_USEC;
		if (!dt_ns)
			return;
		if (emu.mode == EMU_MODE_CPU)
			emu_sample_cpu();
		emu.last_ns += dt_ns;
		emu_step(emu.last_ns, dt_ns);
		emu_update_regs();
		return;
	}
	steps = div64_u64(now - emu.last_ns, period_ns);
	if (!steps)
		return;
	if (emu.mode == EMU_MODE_CPU)
		emu_sample_cpu();
	/* a long unread gap is integrated in one step, the rest one by one */
	if (steps > EMU_BULK_STEPS) {
		bulk = steps - EMU_BULK_STEPS;
		emu.last_ns += bulk * period_ns;
		emu_step(emu.last_ns, bulk * period_ns);
		steps = EMU_BULK_STEPS;
	}
	while (steps--) {
		emu.last_ns += period_ns;
		emu_step(emu.last_ns, period_ns);
	}
	emu_update_regs();
}

static void emu_reset_model(u64 now, s64 charge_uah)
{
	emu.charge_pc = charge_uah * EMU_PC_PER_UAH;
	emu.coulomb_pc = emu.charge_pc;
	emu.last_ns = now;
	emu.epoch_ns = now;
	emu_restart_cpu();
	emu.load_ua = emu_load_ua(now);
	emu.avg_na = emu.load_ua * 1000;
	emu.avg_vcell_nv = emu_vcell_uv(emu.load_ua) * 1000;
	emu_update_regs();
}

/* A control changed: its effect shows at once, the model keeps its time. */
static void emu_control_changed(void)
{
	emu.load_ua = emu_load_ua(emu.last_ns);
	emu_update_regs();
}

/* ---- the I2C side ---------------------------------------------------------- */

static void emu_write_msg(const struct i2c_msg *msg)
{
	u16 i;

	if (!msg->len)
		return;
	emu.reg_ptr = msg->buf[0];
	/* 16-bit little-endian values, the pointer auto-increments */
	for (i = 1; i + 1 < msg->len; i += 2) {
		if (!test_bit(emu.reg_ptr, emu.pinned))
			emu.regs[emu.reg_ptr] = msg->buf[i] | msg->buf[i + 1] << 8;
		emu.reg_ptr++;
	}
}

static void emu_read_msg(struct i2c_msg *msg)
{
	u16 i;

	for (i = 0; i < msg->len; i++) {
		u16 val = emu.regs[emu.reg_ptr];

		msg->buf[i] = i & 1 ? val >> 8 : val & 0xff;
		if (i & 1)
			emu.reg_ptr++;
	}
}

/*
 * A transfer once reboot, halt or power-off has begun: system_state changes
 * after the reboot notifiers and before device_shutdown(), so the gauge's
 * users should have stopped by then.  Said once, for the host to see on
 * the console (selftests/reboot-guest).
 */
static void emu_check_shutdown(void)
{
	static bool said;

	if (said || (system_state != SYSTEM_HALT &&
		     system_state != SYSTEM_POWER_OFF &&
		     system_state != SYSTEM_RESTART))
		return;
	said = true;
	pr_err("gauge read by %s after the reboot notifiers, while devices shut down\n",
	       current->comm);
}

static int emu_xfer(struct i2c_adapter *adap, struct i2c_msg *msgs, int num)
{
	unsigned long latency_us;
	int i, ret = num;
	u64 rem = 1;

	for (i = 0; i < num; i++) {
		if (msgs[i].addr != EMU_I2C_ADDR || (msgs[i].flags & I2C_M_TEN))
			return -ENXIO;
		if (msgs[i].flags & I2C_M_RECV_LEN)
			return -EOPNOTSUPP;
	}

	mutex_lock(&emu.lock);
	latency_us = emu.latency_us;
	mutex_unlock(&emu.lock);
	if (latency_us)
		fsleep(latency_us);

	mutex_lock(&emu.lock);
	emu_check_shutdown();
	emu.transfers++;
	/* the driver's own work (a vendor's polls the chip) is not powerpin's */
	if (!strcmp(current->comm, "powerpin-sample"))
		emu.sampler_transfers++;
	if (emu.fail_every)
		div64_u64_rem(emu.transfers, emu.fail_every, &rem);
	if (!rem) {
		ret = -EIO;
		goto out;
	}
	/* a burst of -EAGAIN, as a gauge re-initialising answers */
	if (emu.again_transfers > 0) {
		emu.again_transfers--;
		ret = -EAGAIN;
		goto out;
	}
	emu_advance(ktime_get_ns());
	for (i = 0; i < num; i++) {
		if (msgs[i].flags & I2C_M_RD)
			emu_read_msg(&msgs[i]);
		else
			emu_write_msg(&msgs[i]);
	}
out:
	mutex_unlock(&emu.lock);
	return ret;
}

static u32 emu_functionality(struct i2c_adapter *adap)
{
	return I2C_FUNC_I2C | I2C_FUNC_SMBUS_EMUL;
}

static const struct i2c_algorithm emu_algo = {
	.master_xfer = emu_xfer,
	.functionality = emu_functionality,
};

static struct i2c_adapter emu_adapter = {
	.owner = THIS_MODULE,
	.algo = &emu_algo,
	.name = "max17042-emu",
};

static int emu_bind(void)
{
	struct i2c_board_info info = {
		I2C_BOARD_INFO("max17042", EMU_I2C_ADDR),
		.platform_data = powerpin_max17042_pdata(),
	};
	struct i2c_client *client;
	int ret = 0;

	mutex_lock(&emu.client_lock);
	if (emu.client) {
		ret = -EBUSY;
		goto out;
	}
	client = i2c_new_client_device(&emu_adapter, &info);
	if (IS_ERR(client)) {
		ret = PTR_ERR(client);
		goto out;
	}
	emu.client = client;
out:
	mutex_unlock(&emu.client_lock);
	return ret;
}

static int emu_unbind(void)
{
	int ret = 0;

	mutex_lock(&emu.client_lock);
	if (emu.client) {
		i2c_unregister_device(emu.client);
		emu.client = NULL;
	} else {
		ret = -ENODEV;
	}
	mutex_unlock(&emu.client_lock);
	return ret;
}

/* ---- a vendor charger's forwarding battery ------------------------------------ */

#if defined(POWERPIN_HAVE_PSY_TYPE_BMS) && !defined(POWERPIN_HAVE_PSY_DESC)
/*
 * On a vendor kernel whose gauge is of type BMS (the Nexus 6's), the
 * charger driver (smb135x) registers "battery", of type Battery, and
 * answers voltage, current, charge, capacity and temperature by calling
 * the gauge's get_property() directly, holding none of the gauge's locks.
 * The emulator registers the same on request (debugfs forward), its
 * parent the emulator's adapter.  3.10's power_supply API: the supply is
 * this memory, registered and unregistered under emu.client_lock.
 */
#include <linux/power_supply.h>

static int emu_forward_get_property(struct power_supply *psy,
				    enum power_supply_property psp,
				    union power_supply_propval *val)
{
	struct power_supply *gauge;
	int ret;

	switch (psp) {
	case POWER_SUPPLY_PROP_PRESENT:
		val->intval = 1;
		return 0;
	case POWER_SUPPLY_PROP_VOLTAGE_NOW:
	case POWER_SUPPLY_PROP_CURRENT_NOW:
	case POWER_SUPPLY_PROP_CHARGE_COUNTER:
	case POWER_SUPPLY_PROP_CAPACITY:
	case POWER_SUPPLY_PROP_TEMP:
		/* 3.10's lookup holds the device; smb135x keeps the pointer */
		gauge = power_supply_get_by_name("max170xx_battery");
		if (!gauge)
			return -ENODATA;
		ret = gauge->get_property(gauge, psp, val);
		put_device(gauge->dev);
		return ret;
	default:
		return -EINVAL;
	}
}

static enum power_supply_property emu_forward_props[] = {
	POWER_SUPPLY_PROP_PRESENT,
	POWER_SUPPLY_PROP_VOLTAGE_NOW,
	POWER_SUPPLY_PROP_CURRENT_NOW,
	POWER_SUPPLY_PROP_CHARGE_COUNTER,
	POWER_SUPPLY_PROP_CAPACITY,
	POWER_SUPPLY_PROP_TEMP,
};

static struct power_supply emu_forward_psy = {
	.name = "battery",
	.type = POWER_SUPPLY_TYPE_BATTERY,
	.properties = emu_forward_props,
	.num_properties = ARRAY_SIZE(emu_forward_props),
	.get_property = emu_forward_get_property,
};
static bool emu_forwarding;

static int emu_forward(bool on)
{
	int ret = 0;

	mutex_lock(&emu.client_lock);
	if (on && !emu_forwarding)
		ret = power_supply_register(&emu_adapter.dev, &emu_forward_psy);
	else if (!on && emu_forwarding)
		power_supply_unregister(&emu_forward_psy);
	if (!ret)
		emu_forwarding = on;
	mutex_unlock(&emu.client_lock);
	return ret;
}

static int emu_forward_get(void *data, u64 *val)
{
	mutex_lock(&emu.client_lock);
	*val = emu_forwarding;
	mutex_unlock(&emu.client_lock);
	return 0;
}

static int emu_forward_set(void *data, u64 val)
{
	return val > 1 ? -EINVAL : emu_forward(val);
}
POWERPIN_DEFINE_DEBUGFS_ATTRIBUTE(emu_forward_fops, emu_forward_get, emu_forward_set, "%llu\n");

static void emu_forward_debugfs(struct dentry *dir)
{
	powerpin_debugfs_create_attr("forward", 0600, dir, NULL, &emu_forward_fops);
}
#else
static int emu_forward(bool on)
{
	return 0;
}

static void emu_forward_debugfs(struct dentry *dir)
{
}
#endif

/* ---- debugfs controls -------------------------------------------------------- */

struct emu_knob {
	const char *name;
	s64 *val;
	s64 min;
	s64 max;
};

static const struct emu_knob emu_knobs[] = {
	{ "current_ua", &emu.current_ua, -EMU_CURRENT_MAX_UA, EMU_CURRENT_MAX_UA },
	{ "square_low_ua", &emu.square_low_ua, -EMU_CURRENT_MAX_UA, EMU_CURRENT_MAX_UA },
	{ "square_high_ua", &emu.square_high_ua, -EMU_CURRENT_MAX_UA, EMU_CURRENT_MAX_UA },
	{ "square_period_ms", &emu.square_period_ms, 2, 3600000 },
	{ "cpu_idle_ua", &emu.cpu_idle_ua, -EMU_CURRENT_MAX_UA, EMU_CURRENT_MAX_UA },
	{ "cpu_busy_ua", &emu.cpu_busy_ua, -EMU_CURRENT_MAX_UA, EMU_CURRENT_MAX_UA },
	{ "refresh_us", &emu.refresh_us, 0, U32_MAX },
	{ "fail_every", &emu.fail_every, 0, INT_MAX },
	{ "again_transfers", &emu.again_transfers, 0, INT_MAX },
	{ "latency_us", &emu.latency_us, 0, 10000000 },
	{ "temp_decic", &emu.temp_decic, -1280, 1270 },
	{ "r_int_uohm", &emu.r_int_uohm, 0, 10000000 },
	{ "full_uah", &emu.full_uah, 1000, 32000000 },
};

static int emu_knob_get(void *data, u64 *val)
{
	const struct emu_knob *knob = data;

	mutex_lock(&emu.lock);
	*val = *knob->val;
	mutex_unlock(&emu.lock);
	return 0;
}

static int emu_knob_set(void *data, u64 val)
{
	const struct emu_knob *knob = data;
	s64 v = (s64)val;

	if (v < knob->min || v > knob->max)
		return -EINVAL;
	mutex_lock(&emu.lock);
	/* the old settings hold up to now, the new ones from now on */
	emu_advance(ktime_get_ns());
	*knob->val = v;
	emu.charge_pc = min(emu.charge_pc, emu_full_pc());
	emu_control_changed();
	mutex_unlock(&emu.lock);
	return 0;
}
POWERPIN_DEFINE_DEBUGFS_ATTRIBUTE_SIGNED(emu_knob_fops, emu_knob_get, emu_knob_set, "%lld\n");

static int emu_charge_get(void *data, u64 *val)
{
	mutex_lock(&emu.lock);
	emu_advance(ktime_get_ns());
	*val = div64_s64(emu.charge_pc, EMU_PC_PER_UAH);
	mutex_unlock(&emu.lock);
	return 0;
}

static int emu_charge_set(void *data, u64 val)
{
	s64 v = (s64)val;
	int ret = 0;

	mutex_lock(&emu.lock);
	if (v < 0 || v > emu.full_uah) {
		ret = -EINVAL;
		goto out;
	}
	emu_advance(ktime_get_ns());
	emu.charge_pc = v * EMU_PC_PER_UAH;
	emu.coulomb_pc = emu.charge_pc;
	emu_control_changed();
out:
	mutex_unlock(&emu.lock);
	return ret;
}
POWERPIN_DEFINE_DEBUGFS_ATTRIBUTE_SIGNED(emu_charge_fops, emu_charge_get, emu_charge_set, "%lld\n");

static int emu_busy_get(void *data, u64 *val)
{
	mutex_lock(&emu.lock);
	*val = emu.busy_ppm;
	mutex_unlock(&emu.lock);
	return 0;
}
POWERPIN_DEFINE_DEBUGFS_ATTRIBUTE(emu_busy_fops, emu_busy_get, NULL, "%llu\n");

/* Pinned registers: a raw value the model leaves alone until unpinned (-1). */
struct emu_pin {
	const char *name;
	u8 reg;
};

static const struct emu_pin emu_pins[] = {
	{ "vcell_raw", REG_VCELL },
	{ "current_raw", REG_CURRENT },
	{ "avgcurrent_raw", REG_AVGCURRENT },
	{ "qh_raw", REG_QH },
	{ "repsoc_raw", REG_REPSOC },
	{ "repcap_raw", REG_REPCAP },
	{ "fullcap_raw", REG_FULLCAP },
	{ "temp_raw", REG_TEMP },
};

static int emu_pin_get(void *data, u64 *val)
{
	const struct emu_pin *pin = data;

	mutex_lock(&emu.lock);
	*val = test_bit(pin->reg, emu.pinned) ? emu.regs[pin->reg] : -1LL;
	mutex_unlock(&emu.lock);
	return 0;
}

static int emu_pin_set(void *data, u64 val)
{
	const struct emu_pin *pin = data;
	s64 v = (s64)val;

	if (v < -1 || v > U16_MAX)
		return -EINVAL;
	mutex_lock(&emu.lock);
	emu_advance(ktime_get_ns());
	if (v < 0) {
		clear_bit(pin->reg, emu.pinned);
		emu_control_changed();
	} else {
		set_bit(pin->reg, emu.pinned);
		emu.regs[pin->reg] = v;
	}
	mutex_unlock(&emu.lock);
	return 0;
}
POWERPIN_DEFINE_DEBUGFS_ATTRIBUTE_SIGNED(emu_pin_fops, emu_pin_get, emu_pin_set, "%lld\n");

static ssize_t emu_mode_read(struct file *file, char __user *ubuf, size_t count, loff_t *ppos)
{
	char buf[16];
	int len;

	mutex_lock(&emu.lock);
	len = scnprintf(buf, sizeof(buf), "%s\n", emu_mode_names[emu.mode]);
	mutex_unlock(&emu.lock);
	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

static ssize_t emu_mode_write(struct file *file, const char __user *ubuf, size_t count,
			      loff_t *ppos)
{
	char buf[16] = "";
	int mode;

	if (*ppos || count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	mode = __sysfs_match_string(emu_mode_names, ARRAY_SIZE(emu_mode_names), buf);
	if (mode < 0)
		return mode;

	mutex_lock(&emu.lock);
	emu_advance(ktime_get_ns());
	emu.mode = mode;
	/* a new square wave starts with its first (low) half at the model's time */
	emu.epoch_ns = emu.last_ns;
	emu_restart_cpu();
	emu_control_changed();
	mutex_unlock(&emu.lock);
	return count;
}

static const struct file_operations emu_mode_fops = {
	.owner = THIS_MODULE,
	.read = emu_mode_read,
	.write = emu_mode_write,
	.llseek = default_llseek,
};

static int emu_registers_show(struct seq_file *s, void *unused)
{
	int reg;

	mutex_lock(&emu.lock);
	emu_advance(ktime_get_ns());
	for (reg = 0; reg < EMU_NR_REGS; reg++)
		seq_printf(s, "%02x %04x\n", reg, emu.regs[reg]);
	mutex_unlock(&emu.lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(emu_registers);

static int emu_transfers_get(void *data, u64 *val)
{
	mutex_lock(&emu.lock);
	*val = emu.transfers;
	mutex_unlock(&emu.lock);
	return 0;
}
POWERPIN_DEFINE_DEBUGFS_ATTRIBUTE(emu_transfers_fops, emu_transfers_get, NULL, "%llu\n");

static int emu_sampler_transfers_get(void *data, u64 *val)
{
	mutex_lock(&emu.lock);
	*val = emu.sampler_transfers;
	mutex_unlock(&emu.lock);
	return 0;
}
POWERPIN_DEFINE_DEBUGFS_ATTRIBUTE(emu_sampler_transfers_fops, emu_sampler_transfers_get, NULL,
				  "%llu\n");

static int emu_por_get(void *data, u64 *val)
{
	mutex_lock(&emu.lock);
	*val = !!(emu.regs[REG_STATUS] & EMU_STATUS_POR);
	mutex_unlock(&emu.lock);
	return 0;
}

/* 1 sets the POR bit as a power-on reset would, 0 clears it */
static int emu_por_set(void *data, u64 val)
{
	if (val > 1)
		return -EINVAL;
	mutex_lock(&emu.lock);
	if (val)
		emu.regs[REG_STATUS] |= EMU_STATUS_POR;
	else
		emu.regs[REG_STATUS] &= ~EMU_STATUS_POR;
	mutex_unlock(&emu.lock);
	return 0;
}
POWERPIN_DEFINE_DEBUGFS_ATTRIBUTE(emu_por_fops, emu_por_get, emu_por_set, "%llu\n");

static int emu_bound_get(void *data, u64 *val)
{
	mutex_lock(&emu.client_lock);
	*val = !!emu.client;
	mutex_unlock(&emu.client_lock);
	return 0;
}

static int emu_bind_set(void *data, u64 val)
{
	return val == 1 ? emu_bind() : -EINVAL;
}
POWERPIN_DEFINE_DEBUGFS_ATTRIBUTE(emu_bind_fops, emu_bound_get, emu_bind_set, "%llu\n");

static int emu_unbind_set(void *data, u64 val)
{
	return val == 1 ? emu_unbind() : -EINVAL;
}
POWERPIN_DEFINE_DEBUGFS_ATTRIBUTE(emu_unbind_fops, emu_bound_get, emu_unbind_set, "%llu\n");

static int emu_warn_set(void *data, u64 val)
{
	if (val != 1)
		return -EINVAL;
	/* deliberate: proves that the test runner catches kernel warnings */
	WARN(1, "max17042_emu: warning requested through debugfs\n");
	return 0;
}
POWERPIN_DEFINE_DEBUGFS_ATTRIBUTE(emu_warn_fops, NULL, emu_warn_set, "%llu\n");

static void emu_debugfs_init(void)
{
	struct dentry *dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	unsigned int i;

	emu.dir = dir;
	for (i = 0; i < ARRAY_SIZE(emu_knobs); i++)
		powerpin_debugfs_create_attr(emu_knobs[i].name, 0600, dir, (void *)&emu_knobs[i],
					     &emu_knob_fops);
	for (i = 0; i < ARRAY_SIZE(emu_pins); i++)
		powerpin_debugfs_create_attr(emu_pins[i].name, 0600, dir, (void *)&emu_pins[i],
					     &emu_pin_fops);
	debugfs_create_file("mode", 0600, dir, NULL, &emu_mode_fops);
	debugfs_create_file("registers", 0400, dir, NULL, &emu_registers_fops);
	powerpin_debugfs_create_attr("charge_uah", 0600, dir, NULL, &emu_charge_fops);
	powerpin_debugfs_create_attr("busy_ppm", 0400, dir, NULL, &emu_busy_fops);
	powerpin_debugfs_create_attr("transfers", 0400, dir, NULL, &emu_transfers_fops);
	powerpin_debugfs_create_attr("sampler_transfers", 0400, dir, NULL,
				     &emu_sampler_transfers_fops);
	powerpin_debugfs_create_attr("por", 0600, dir, NULL, &emu_por_fops);
	powerpin_debugfs_create_attr("bind", 0600, dir, NULL, &emu_bind_fops);
	powerpin_debugfs_create_attr("unbind", 0600, dir, NULL, &emu_unbind_fops);
	powerpin_debugfs_create_attr("warn", 0200, dir, NULL, &emu_warn_fops);
	emu_forward_debugfs(dir);
}

static int __init emu_init(void)
{
	int ret;

	mutex_init(&emu.lock);
	mutex_init(&emu.client_lock);
	emu.mode = EMU_MODE_CONSTANT;
	emu.current_ua = -300000;
	emu.square_low_ua = -200000;
	emu.square_high_ua = -1000000;
	emu.square_period_ms = 1000;
	emu.cpu_idle_ua = -100000;
	emu.cpu_busy_ua = -1100000;
	emu.refresh_us = refresh_us;
	emu.temp_decic = 250;
	emu.r_int_uohm = 150000;
	emu.full_uah = 3000000;
	emu.regs[REG_MISCCFG] = EMU_MISCCFG_POR;
	emu.regs[REG_CONFIG] = EMU_CONFIG_POR;
	emu.regs[REG_DEVNAME] = EMU_DEVNAME_MAX17042;
	emu_reset_model(ktime_get_ns(), div_s64(emu.full_uah * 8, 10));

	ret = i2c_add_adapter(&emu_adapter);
	if (ret)
		return ret;
	ret = emu_bind();
	if (ret)
		goto err_del_adapter;
	emu_debugfs_init();
	pr_info("MAX17042 at 0x%02x on %s\n", EMU_I2C_ADDR, dev_name(&emu_adapter.dev));
	return 0;

err_del_adapter:
	i2c_del_adapter(&emu_adapter);
	return ret;
}

static void __exit emu_exit(void)
{
	/* controls first (waits for running handlers), then client, then adapter */
	debugfs_remove_recursive(emu.dir);
	emu_forward(false);
	emu_unbind();
	i2c_del_adapter(&emu_adapter);
}

module_init(emu_init);
module_exit(emu_exit);
MODULE_DESCRIPTION("MAX17042 fuel-gauge emulator for powerpin tests");
MODULE_LICENSE("GPL");
