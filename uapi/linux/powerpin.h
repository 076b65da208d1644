/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * powerpin: the ABI shared by powerpin.ko and its userspace.
 *
 * Three parts:
 *  1. bits of the `flags` field of the powerpin:powerpin_battery trace event;
 *  2. the page-cache residency ioctl on /dev/powerpin;
 *  3. the generic netlink family "powerpin".
 */
#ifndef _UAPI_LINUX_POWERPIN_H
#define _UAPI_LINUX_POWERPIN_H

#include <linux/types.h>
#include <linux/ioctl.h>

/* ---- 1. powerpin:powerpin_battery event flags ------------------------- */

/*
 * One bit of the flags: not _BITUL(), which <linux/const.h> got in 3.13
 * (3.10.40's, the Nexus 6's, lacks it; 3.10.105 has it from a backport).
 */
#define __POWERPIN_BIT(nr)		(1UL << (nr))

/* voltage_uv, current_ua and charge_uah all equal the previous sample's */
#define POWERPIN_SAMPLE_REPEATED	__POWERPIN_BIT(0)
/* at least one property is not provided by the supply (value reported as 0) */
#define POWERPIN_SAMPLE_MISSING		__POWERPIN_BIT(1)
/* at least one property read failed (value reported as 0) */
#define POWERPIN_SAMPLE_READ_ERROR	__POWERPIN_BIT(2)
/* the driver answered -EAGAIN (still initialising) for some property */
#define POWERPIN_SAMPLE_AGAIN		__POWERPIN_BIT(3)
/* one or more deadlines were missed since the previous sample, or the
 * system was suspended (tasks frozen) since then
 */
#define POWERPIN_SAMPLE_LATE		__POWERPIN_BIT(4)

/* ---- 2. residency ioctl ------------------------------------------------ */

#define POWERPIN_DEVICE		"/dev/powerpin"

/* Residency modes (powerpin_residency.mode) */
enum powerpin_residency_mode {
	POWERPIN_RES_COUNTS = 0,	/* counts only */
	POWERPIN_RES_BITMAP = 1,	/* one bit per page into buf */
	POWERPIN_RES_RUNS = 2,		/* struct powerpin_run pairs into buf */
};

/* A run of resident pages, in bytes from the start of the file. */
struct powerpin_run {
	__u64 offset;
	__u64 length;
};

/*
 * Extensible argument: @size is sizeof(struct) as the caller knows it
 * (POWERPIN_RESIDENCY_SIZE_VER0 for this version).  Larger structs from newer
 * callers are accepted only if the bytes past what the kernel knows are zero.
 * Field semantics and errnos are documented in kmod/residency.c.
 */
struct powerpin_residency {
	/* in: sizeof(struct powerpin_residency); out: the kernel's sizeof */
	__u32 size;
	__u32 mode;		/* in: enum powerpin_residency_mode */
	__s32 fd;		/* in: file to query */
	__u32 flags;		/* in: must be 0 */
	__u64 offset;		/* in: byte offset, page aligned (not rounded) */
	__u64 length;		/* in: bytes; 0 = to end of file */
	__u64 buf;		/* in: user pointer for bitmap / runs */
	__u64 buf_len;		/* in: bytes at buf */
	/* in/out, runs mode: byte offset to resume at; in 0 = from offset,
	 * out 0 = range done
	 */
	__u64 cursor;
	/* out, for the pages this call walked: */
	__u64 nr_pages;		/* pages walked */
	__u64 nr_resident;	/* resident pages in the range */
	__u64 nr_dirty;
	__u64 nr_writeback;
	__u64 nr_evicted;	/* shadow (workingset) or swap entries */
	__u64 nr_runs;		/* runs mode: runs written to buf */
	__u64 file_size;	/* i_size at the time of the call */
};

#define POWERPIN_RESIDENCY_SIZE_VER0	112

/*
 * The size encoded in the ioctl number stays POWERPIN_RESIDENCY_SIZE_VER0
 * when the struct grows, so the number never changes; @size tells the kernel
 * which version the caller speaks.
 */
/* 0xBE: free in Documentation/userspace-api/ioctl/ioctl-number.rst */
#define POWERPIN_IOC_MAGIC	0xbe
#define POWERPIN_IOC_RESIDENCY	_IOC(_IOC_READ | _IOC_WRITE, POWERPIN_IOC_MAGIC, 1, \
				     POWERPIN_RESIDENCY_SIZE_VER0)

/* ---- 3. generic netlink ------------------------------------------------ */

/*
 * Strict policies: unknown or misplaced attributes and wrong lengths get
 * -EINVAL and PERIOD_US outside POWERPIN_PERIOD_US_MIN..MAX gets -ERANGE,
 * each with an extack message.  SET_CONFIG without CAP_NET_ADMIN gets -EPERM
 * and commands the family does not have (the event commands sent as
 * requests too) -EOPNOTSUPP, both from the genetlink core, which sends no
 * extack message with them.  Details in kmod/netlink.c.
 */

/* Sampling period limits (POWERPIN_ATTR_PERIOD_US, module parameter period_us) */
#define POWERPIN_PERIOD_US_MIN		1000
#define POWERPIN_PERIOD_US_MAX		60000000

#define POWERPIN_GENL_NAME		"powerpin"
#define POWERPIN_GENL_VERSION		1
#define POWERPIN_GENL_MCGRP_EVENTS	"events"

enum powerpin_cmd {
	POWERPIN_CMD_UNSPEC,
	POWERPIN_CMD_GET_STATUS,	/* request: none; reply: status attrs */
	POWERPIN_CMD_SET_CONFIG,	/* PERIOD_US and/or SUPPLY; CAP_NET_ADMIN */
	POWERPIN_CMD_CAPTURE_STARTED,	/* event: TIME_NS */
	POWERPIN_CMD_CAPTURE_STOPPED,	/* event: TIME_NS, CAPTURE_SAMPLES */
	POWERPIN_CMD_SUPPLY_FOUND,	/* event: TIME_NS, SUPPLY_BOUND */
	POWERPIN_CMD_SUPPLY_LOST,	/* event: TIME_NS, SUPPLY_BOUND */
	__POWERPIN_CMD_MAX,
};

#define POWERPIN_CMD_MAX (__POWERPIN_CMD_MAX - 1)

/* Sampler states (POWERPIN_ATTR_STATE) */
enum powerpin_state {
	POWERPIN_STATE_IDLE,		/* gate closed: no consumer would record a sample */
	POWERPIN_STATE_WAITING_SUPPLY,	/* gate open, supply absent */
	POWERPIN_STATE_SAMPLING,	/* gate open, sampling */
};

enum powerpin_attr {
	POWERPIN_ATTR_UNSPEC,
	POWERPIN_ATTR_PAD,
	POWERPIN_ATTR_STATE,		/* u32, enum powerpin_state */
	POWERPIN_ATTR_EVENT_ENABLED,	/* u8: a consumer exists (kmod/README.md, Gate) */
	POWERPIN_ATTR_TRACING_ON,	/* u8: the top-level tracing_on (absent: a KMI build) */
	POWERPIN_ATTR_SUPPLY,		/* string: configured name ("" = first battery) */
	POWERPIN_ATTR_SUPPLY_BOUND,	/* string: name of the supply in use */
	POWERPIN_ATTR_SUPPLY_PRESENT,	/* u8 */
	POWERPIN_ATTR_PERIOD_US,	/* u32 */
	POWERPIN_ATTR_SAMPLES,		/* u64 */
	POWERPIN_ATTR_READ_ERRORS,	/* u64 */
	POWERPIN_ATTR_MISSED,		/* u64: missed deadlines */
	POWERPIN_ATTR_SUPPLY_LOST,	/* u64 */
	POWERPIN_ATTR_SUPPLY_FOUND,	/* u64 */
	POWERPIN_ATTR_LAST_SEQ,		/* u32 */
	POWERPIN_ATTR_LAST_TIME_NS,	/* u64, CLOCK_BOOTTIME */
	POWERPIN_ATTR_LAST_VOLTAGE_UV,	/* s64 */
	POWERPIN_ATTR_LAST_CURRENT_UA,	/* s64 */
	POWERPIN_ATTR_LAST_CHARGE_UAH,	/* s64 */
	POWERPIN_ATTR_LAST_POWER_UW,	/* s64 */
	POWERPIN_ATTR_LAST_FLAGS,	/* u32 */
	POWERPIN_ATTR_TIME_NS,		/* u64, CLOCK_BOOTTIME of an event */
	POWERPIN_ATTR_CAPTURE_SAMPLES,	/* u64: samples in the capture just stopped */
	__POWERPIN_ATTR_MAX,
};

#define POWERPIN_ATTR_MAX (__POWERPIN_ATTR_MAX - 1)

#endif /* _UAPI_LINUX_POWERPIN_H */
