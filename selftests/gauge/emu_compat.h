/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel interfaces the gauge emulator uses that differ between the
 * kernels it builds for, on top of the module's kmod/compat.h: I2C client
 * creation, max17042 platform data, sleeping and 64-bit arithmetic,
 * debugfs attributes and CPU time (and the test supply's property table).
 * selftests/gauge/Kbuild defines the
 * POWERPIN_HAVE_* probes read here (with kmod/probes.mk's).
 */
#ifndef _POWERPIN_EMU_COMPAT_H
#define _POWERPIN_EMU_COMPAT_H

#include "compat.h"

#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/i2c.h>
#include <linux/kernel_stat.h>
#include <linux/math64.h>

/* a supply's property table (pp_test_supply's): const since 5.7 */
#ifdef POWERPIN_HAVE_PSY_CONST_PROPERTIES
#define POWERPIN_PSY_PROPERTIES_CONST	const
#else
#define POWERPIN_PSY_PROPERTIES_CONST
#endif

#ifndef POWERPIN_HAVE_I2C_NEW_CLIENT_DEVICE
static inline struct i2c_client *
i2c_new_client_device(struct i2c_adapter *adap, struct i2c_board_info const *info)
{
	struct i2c_client *client = i2c_new_device(adap, info);

	return client ? client : ERR_PTR(-ENODEV);
}
#endif

/*
 * Until 4.15, max17042_battery refuses to bind without platform data where
 * the kernel has device trees (arm, arm64) and the client no node (later
 * kernels fall back to defaults): give it the defaults it would pick, the
 * current sense on and the datasheet's 10 mOhm sense resistor.
 */
#if defined(POWERPIN_MAX17042_VENDOR_PDATA) || defined(POWERPIN_MAX17042_NEEDS_PDATA)
#include <linux/power/max17042_battery.h>
#endif
#ifdef POWERPIN_MAX17042_VENDOR_PDATA
/*
 * The Nexus 6's vendor driver (shamu, 3.10.40) dereferences more of its
 * platform data than mainline's: config_data (design capacity, the
 * revision it compares with the chip's to decide on a re-initialisation),
 * a temperature conversion table and the temperature thresholds.  These
 * are shamu's device-tree values (apq8084-moto-common.dtsi: 10 mOhm,
 * design_cap 7766 half-mAh, 45/60/0/-20 degC), the table the identity from
 * -40 to 90 degC, and the revision 0 the emulator's CFG_REV bits read, so
 * the driver is ready at once, as after a warm boot.  No POR init: its
 * model-lock check reads back zeros only a real chip gives.
 */
#define POWERPIN_EMU_TCNV_START	(-40)
#define POWERPIN_EMU_TCNV_LEN	131
static inline void *powerpin_max17042_pdata(void)
{
	static s16 tcnv_dc[POWERPIN_EMU_TCNV_LEN];
	static struct max17042_temp_conv tcnv = {
		.start = POWERPIN_EMU_TCNV_START,
		.result = tcnv_dc,
		.num_result = POWERPIN_EMU_TCNV_LEN,
	};
	static struct max17042_config_data config = {
		.revision = 0,
		.config = 0x0254,
		.full_soc_thresh = 0x6200,
		.design_cap = 7766,
		.fullcap = 7766,
		.fullcapnom = 7766,
	};
	static struct max17042_platform_data pdata = {
		.config_data = &config,
		.tcnv = &tcnv,
		.enable_current_sense = true,
		.r_sns = 10000,
		.warm_temp_c = 45,
		.hot_temp_c = 60,
		.cool_temp_c = 0,
		.cold_temp_c = -20,
		.hotspot_thrs_c = 50,
	};
	int i;

	for (i = 0; i < POWERPIN_EMU_TCNV_LEN; i++)
		tcnv_dc[i] = (POWERPIN_EMU_TCNV_START + i) * 10;
	return &pdata;
}
#elif defined(POWERPIN_MAX17042_NEEDS_PDATA)
static inline void *powerpin_max17042_pdata(void)
{
	/* the driver keeps the pointer for as long as it is bound */
	static struct max17042_platform_data pdata = {
		.enable_current_sense = true,
		.r_sns = 10000,
	};

	return &pdata;
}
#else
static inline void *powerpin_max17042_pdata(void)
{
	return NULL;
}
#endif

#ifndef POWERPIN_HAVE_FSLEEP
static inline void fsleep(unsigned long usecs)
{
	if (usecs <= 20000)
		usleep_range(usecs, 2 * usecs);
	else
		msleep(DIV_ROUND_UP(usecs, 1000));
}
#endif

#ifndef POWERPIN_HAVE_DIV64_U64_REM
static inline u64 div64_u64_rem(u64 dividend, u64 divisor, u64 *remainder)
{
	u64 quotient = div64_u64(dividend, divisor);

	*remainder = dividend - quotient * divisor;
	return quotient;
}
#endif

/*
 * a * b / c: the kernel's mul_u64_u64_div_u64() (5.9), else giving up low
 * bits of a and c while a * b would overflow.
 */
static inline u64 powerpin_mul_u64_u64_div_u64(u64 a, u64 b, u64 c)
{
#ifdef POWERPIN_HAVE_MUL_U64_U64_DIV_U64
	return mul_u64_u64_div_u64(a, b, c);
#else
	while (b && a > div64_u64(U64_MAX, b)) {
		a >>= 1;
		c >>= 1;
	}
	return c ? div64_u64(a * b, c) : 0;
#endif
}

#ifndef sysfs_match_string
static inline int __sysfs_match_string(const char * const *array, size_t n,
				       const char *str)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (array[i] && sysfs_streq(array[i], str))
			return i;
	return -EINVAL;
}
#endif

/*
 * Debugfs attributes that parse what is written strictly, signed ones as
 * signed: the kernel's where it has DEFINE_DEBUGFS_ATTRIBUTE_SIGNED (6.5,
 * backported to 5.10.y and 6.1.y).  Before, simple_attr_write() takes
 * "lots" for 0 and cuts 64-bit values (3.10, 5.4), or, once it parses
 * strictly, refuses negative values: simple attributes then, written through a parser
 * as strict as the newest kernels'.  They are created without the proxy
 * that guards a file's every read and write against its removal (where
 * the kernel has debugfs_create_file_unsafe(), 4.7): the files go only
 * when the module does, which an open one keeps loaded (the fops' owner),
 * and from 4.7 to 4.14 that guard is one SRCU read section for all of
 * debugfs, which removing any debugfs file waits for: a bind or unbind
 * written through it, which adds and removes the gauge's regmap files,
 * would wait for itself.
 */
#ifdef DEFINE_DEBUGFS_ATTRIBUTE_SIGNED
#define POWERPIN_DEFINE_DEBUGFS_ATTRIBUTE(fops, get, set, fmt)		\
	DEFINE_DEBUGFS_ATTRIBUTE(fops, get, set, fmt)
#define POWERPIN_DEFINE_DEBUGFS_ATTRIBUTE_SIGNED(fops, get, set, fmt)	\
	DEFINE_DEBUGFS_ATTRIBUTE_SIGNED(fops, get, set, fmt)
#define powerpin_debugfs_create_attr	debugfs_create_file_unsafe
#else
struct powerpin_debugfs_attr {
	int (*get)(void *data, u64 *val);
	int (*set)(void *data, u64 val);
	const char *fmt;
	bool is_signed;
};

static inline ssize_t powerpin_attr_write(struct file *file,
					  const char __user *ubuf, size_t len,
					  const struct powerpin_debugfs_attr *attr)
{
	char buf[24];
	size_t size = min_t(size_t, sizeof(buf) - 1, len);
	u64 val;
	int ret;

	if (!attr->set)
		return -EACCES;
	if (copy_from_user(buf, ubuf, size))
		return -EFAULT;
	buf[size] = '\0';
	if (attr->is_signed)
		ret = kstrtoll(buf, 0, (s64 *)&val);
	else
		ret = kstrtoull(buf, 0, &val);
	if (ret)
		return ret;
	ret = attr->set(file_inode(file)->i_private, val);
	return ret ? (ssize_t)ret : (ssize_t)len;
}

#define POWERPIN_DEBUGFS_ATTRIBUTE(__fops, __get, __set, __fmt, __signed) \
static const struct powerpin_debugfs_attr __fops ## _attr = {			\
	.get = __get, .set = __set, .fmt = __fmt, .is_signed = __signed,	\
};									\
									\
static int __fops ## _open(struct inode *inode, struct file *file)	\
{									\
	return simple_attr_open(inode, file, __fops ## _attr.get,	\
				__fops ## _attr.set, __fops ## _attr.fmt); \
}									\
									\
static ssize_t __fops ## _write(struct file *file,			\
				const char __user *ubuf, size_t len,	\
				loff_t *ppos)				\
{									\
	return powerpin_attr_write(file, ubuf, len, &__fops ## _attr);	\
}									\
									\
static const struct file_operations __fops = {				\
	.owner		= THIS_MODULE,					\
	.open		= __fops ## _open,				\
	.release	= simple_attr_release,				\
	.read		= simple_attr_read,				\
	.write		= __fops ## _write,				\
	.llseek		= generic_file_llseek,				\
}

#define POWERPIN_DEFINE_DEBUGFS_ATTRIBUTE(fops, get, set, fmt)		\
	POWERPIN_DEBUGFS_ATTRIBUTE(fops, get, set, fmt, false)
#define POWERPIN_DEFINE_DEBUGFS_ATTRIBUTE_SIGNED(fops, get, set, fmt)	\
	POWERPIN_DEBUGFS_ATTRIBUTE(fops, get, set, fmt, true)
#ifdef POWERPIN_HAVE_DEBUGFS_CREATE_FILE_UNSAFE
#define powerpin_debugfs_create_attr	debugfs_create_file_unsafe
#else
#define powerpin_debugfs_create_attr	debugfs_create_file
#endif
#endif

/*
 * CPU time of one kind (CPUTIME_*) on one CPU, in ns.  Before 5.8 no fetch
 * (the counters are read as they are); before 4.11 they are in cputime
 * units (jiffies on the kernels we build for).
 */
#ifdef POWERPIN_HAVE_KCPUSTAT_CPU_FETCH
static inline void powerpin_cpustat_ns(int cpu, u64 ns[NR_STATS])
{
	struct kernel_cpustat kcs;
	int i;

	kcpustat_cpu_fetch(&kcs, cpu);
	for (i = 0; i < NR_STATS; i++)
		ns[i] = kcs.cpustat[i];
}
#elif !defined(POWERPIN_HAVE_CPUTIME_T)
static inline void powerpin_cpustat_ns(int cpu, u64 ns[NR_STATS])
{
	int i;

	for (i = 0; i < NR_STATS; i++)
		ns[i] = kcpustat_cpu(cpu).cpustat[i];
}
#else
static inline void powerpin_cpustat_ns(int cpu, u64 ns[NR_STATS])
{
	int i;

	for (i = 0; i < NR_STATS; i++)
		ns[i] = cputime64_to_jiffies64(kcpustat_cpu(cpu).cpustat[i]) *
			(NSEC_PER_SEC / HZ);
}
#endif

#endif /* _POWERPIN_EMU_COMPAT_H */
