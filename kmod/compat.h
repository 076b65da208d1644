/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every kernel interface that differs between the kernels powerpin.ko builds
 * for, in one place.  kmod/Kbuild looks at the headers of the kernel being
 * built against and defines POWERPIN_HAVE_* (never a version number:
 * distributions backport); only this file reads those macros, and the rest
 * of the module calls the helpers below.
 *
 * A port to an older kernel adds its branch here.  Where an older kernel
 * cannot give the guarantee the module relies on, the build stops with an
 * #error that says what is missing rather than building something unsafe.
 */
#ifndef _POWERPIN_COMPAT_H
#define _POWERPIN_COMPAT_H

#include <linux/kernel.h>
#include <linux/dcache.h>
#include <linux/delay.h>
#include <linux/device.h>
#include <linux/fs.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/power_supply.h>
#include <linux/ring_buffer.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <net/genetlink.h>
#ifdef POWERPIN_HAVE_TRACE_EVENTS_H
#include <linux/trace_events.h>
#else
#include <linux/ftrace_event.h>
#endif
#ifdef POWERPIN_HAVE_XARRAY
#include <linux/xarray.h>
#else
#include <linux/radix-tree.h>
#endif
#ifdef POWERPIN_HAVE_SCHED_SIGNAL_H
#include <linux/sched/signal.h>
#else
#include <linux/sched.h>
#endif
#ifdef POWERPIN_HAVE_TIMEKEEPING_H
#include <linux/timekeeping.h>
#endif
#ifdef POWERPIN_HAVE_MINMAX_H
#include <linux/minmax.h>
#endif

/* ---- general ---------------------------------------------------------------- */

#ifndef READ_ONCE
#define READ_ONCE(x)		ACCESS_ONCE(x)
#define WRITE_ONCE(x, val)	(ACCESS_ONCE(x) = (val))
#endif

#ifndef __ro_after_init
#define __ro_after_init
#endif

#ifndef BIT_ULL
#define BIT_ULL(nr)		(1ULL << (nr))
#endif

#ifndef PAGE_ALIGNED
#define PAGE_ALIGNED(addr)	IS_ALIGNED((unsigned long)(addr), PAGE_SIZE)
#endif

#ifndef U16_MAX
#define U16_MAX			((u16)~0U)
#define S16_MAX			((s16)(U16_MAX >> 1))
#define S16_MIN			((s16)(-S16_MAX - 1))
#endif
#ifndef U32_MAX
#define U32_MAX			((u32)~0U)
#endif
#ifndef U64_MAX
#define U64_MAX			((u64)~0ULL)
#endif

#ifndef u64_to_user_ptr
#define u64_to_user_ptr(x)	((void __user *)(uintptr_t)(x))
#endif

#ifndef POWERPIN_HAVE_STRSCPY
/* Only the copy is needed, never strscpy()'s return value. */
static inline void strscpy(char *dst, const char *src, size_t size)
{
	size_t len = strnlen(src, size - 1);

	memcpy(dst, src, len);
	dst[len] = '\0';
}
#endif

#ifndef POWERPIN_HAVE_KTIME_GET_NS
static inline u64 ktime_get_ns(void)
{
	return ktime_to_ns(ktime_get());
}
#endif

#ifndef POWERPIN_HAVE_KTIME_GET_BOOTTIME_NS
static inline u64 ktime_get_boottime_ns(void)
{
	return ktime_to_ns(ktime_get_boottime());
}
#endif

#ifndef POWERPIN_HAVE_KTIME_BEFORE
static inline bool ktime_before(const ktime_t a, const ktime_t b)
{
	return ktime_compare(a, b) < 0;
}
#endif

/* what ends a module parameter's value in sysfs, if the core does not */
#ifdef POWERPIN_PARAM_SHOW_ADDS_NEWLINE
#define POWERPIN_PARAM_EOL	""
#else
#define POWERPIN_PARAM_EOL	"\n"
#endif

#ifndef DEFINE_SHOW_ATTRIBUTE
#define DEFINE_SHOW_ATTRIBUTE(__name)					\
static int __name ## _open(struct inode *inode, struct file *file)	\
{									\
	return single_open(file, __name ## _show, inode->i_private);	\
}									\
									\
static const struct file_operations __name ## _fops = {		\
	.owner		= THIS_MODULE,					\
	.open		= __name ## _open,				\
	.read		= seq_read,					\
	.llseek		= seq_lseek,					\
	.release	= single_release,				\
}
#endif

/*
 * A 32-bit kernel has no compat ioctl path; a 64-bit one before 5.5 passes
 * the 32-bit pointer through compat_ptr() itself.
 */
#ifndef POWERPIN_HAVE_COMPAT_PTR_IOCTL
#ifdef CONFIG_COMPAT
#include <linux/compat.h>
static inline long compat_ptr_ioctl(struct file *file, unsigned int cmd,
				    unsigned long arg)
{
	if (!file->f_op->unlocked_ioctl)
		return -ENOIOCTLCMD;
	return file->f_op->unlocked_ioctl(file, cmd,
					  (unsigned long)compat_ptr(arg));
}
#else
#define compat_ptr_ioctl	NULL
#endif
#endif

/* ---- power_supply ------------------------------------------------------- */

/*
 * Walk the registered power supplies: (void *data, int (*fn)(struct device
 * *dev, void *data)).  6.9 made power_supply_class static and exports
 * power_supply_for_each_device() instead.
 */
#if defined(POWERPIN_HAVE_PSY_FOR_EACH_PSY)
/* 7.x walks supplies, not devices: hand each one's device to @fn */
struct powerpin_supply_walk {
	void *data;
	int (*fn)(struct device *dev, void *data);
};

static inline int powerpin_supply_walk_one(struct power_supply *psy, void *data)
{
	struct powerpin_supply_walk *walk = data;

	return walk->fn(&psy->dev, walk->data);
}

static inline int powerpin_walk_supplies(void *data,
					 int (*fn)(struct device *dev, void *data))
{
	struct powerpin_supply_walk walk = { .data = data, .fn = fn };

	return power_supply_for_each_psy(&walk, powerpin_supply_walk_one);
}

#define powerpin_for_each_supply(data, fn) \
	powerpin_walk_supplies(data, fn)
#elif defined(POWERPIN_HAVE_PSY_FOR_EACH)
#define powerpin_for_each_supply(data, fn) \
	power_supply_for_each_device(data, fn)
#else
#define powerpin_for_each_supply(data, fn) \
	class_for_each_device(power_supply_class, NULL, data, fn)
#endif

/*
 * A supply is held by its device between a class walk and its read: the
 * walk takes a reference (powerpin_supply_get()), the read fences itself
 * against power_supply_unregister() (powerpin_supply_lock(), which gives
 * the struct power_supply to read, or NULL once the supply is gone), and
 * powerpin_supply_put() lets go.  Nothing is held across a sleep.
 */
#ifdef POWERPIN_HAVE_PSY_DESC
static inline struct device *powerpin_supply_dev(struct power_supply *psy)
{
	return &psy->dev;
}

static inline enum power_supply_type powerpin_supply_type(struct power_supply *psy)
{
	return psy->desc->type;
}

static inline void powerpin_supply_get(struct device *dev)
{
	get_device(dev);
}

static inline void powerpin_supply_put(struct device *dev)
{
	put_device(dev);
}

/*
 * Since 5.1 device_del() starts with device_lock(dev) + kill_device(), so
 * while the supply's own device lock is held, an unregister that has begun
 * waits in device_unregister() and the driver's data (freed only after
 * unregister returns) stays alive; once it has begun, use_cnt is 0 and
 * power_supply_get_property() answers -ENODEV without calling the driver.
 * The struct power_supply is the core's, alive as long as its device.
 */
#ifdef POWERPIN_HAVE_KILL_DEVICE
static inline struct power_supply *powerpin_supply_lock(struct device *dev)
{
	device_lock(dev);
	return dev_get_drvdata(dev);
}

static inline void powerpin_supply_unlock(struct device *dev)
{
	device_unlock(dev);
}
#else
/* see kmod/README.md, "Supply: lookup and lifetime" */
#error "powerpin: no read fence against power_supply_unregister() here"
#endif
#else /* !POWERPIN_HAVE_PSY_DESC */
/*
 * Before 4.1 (3.10): struct power_supply is the driver's own memory, with
 * the class device a pointer in it, no use count and no -ENODEV after
 * unregister.  Drivers unregister their supply from their remove(), which
 * runs with the device they are bound to (the supply's parent) locked: so
 * the fence is the parent's device lock, and under it a supply that is
 * still registered has a live driver behind it.  The parent is held by a
 * reference taken in the class walk, while the supply still pins it.
 */
static inline struct device *powerpin_supply_dev(struct power_supply *psy)
{
	return psy->dev;
}

static inline enum power_supply_type powerpin_supply_type(struct power_supply *psy)
{
	return psy->type;
}

static inline int power_supply_get_property(struct power_supply *psy,
					    enum power_supply_property psp,
					    union power_supply_propval *val)
{
	return psy->get_property(psy, psp, val);
}

static inline void powerpin_supply_get(struct device *dev)
{
	get_device(dev);
	get_device(dev->parent);
}

static inline void powerpin_supply_put(struct device *dev)
{
	put_device(dev->parent);
	put_device(dev);
}

/*
 * A supply without a parent (registered by platform code or a module of
 * its own) has no lock its unregister takes: it is never read here.
 */
static inline struct power_supply *powerpin_supply_lock(struct device *dev)
{
	if (!dev->parent)
		return NULL;
	device_lock(dev->parent);
	return device_is_registered(dev) ? dev_get_drvdata(dev) : NULL;
}

static inline void powerpin_supply_unlock(struct device *dev)
{
	if (!dev->parent)
		return;
	device_unlock(dev->parent);
	/*
	 * 3.10's mutexes go to whoever takes them first, not to the waiter
	 * just woken: back-to-back reads (a slow gauge, a short period) would
	 * keep a driver unbind waiting for as long as they last.  Stay off
	 * the lock a moment.
	 */
	usleep_range(100, 200);
}
#endif /* POWERPIN_HAVE_PSY_DESC */

/* ---- trace events ------------------------------------------------------- */

/*
 * 4.2 renamed the event types (ftrace_event_* before) and 4.1 added
 * trace_event_name(); 3.10 has no event triggers (3.14), pid filters (4.4)
 * or BPF, and its tracepoint reg hooks return nothing.
 */
#ifndef POWERPIN_HAVE_TRACE_EVENTS_H
#define trace_event_call		ftrace_event_call
#define trace_event_file		ftrace_event_file
#define trace_event_class		ftrace_event_class
#define EVENT_FILE_FL_ENABLED		FTRACE_EVENT_FL_ENABLED
#define EVENT_FILE_FL_SOFT_DISABLED	FTRACE_EVENT_FL_SOFT_DISABLED
#define EVENT_FILE_FL_TRIGGER_MODE	0
#define EVENT_FILE_FL_TRIGGER_COND	0
#define EVENT_FILE_FL_PID_FILTER	0
#define trace_buffer			ring_buffer

static inline int trace_event_reg(struct ftrace_event_call *call,
				  enum trace_reg type, void *data)
{
	return ftrace_event_reg(call, type, data);
}

/*
 * TRACE_EVENT's class initialiser names ftrace_event_reg: one name for it,
 * so that renaming trace_event_reg where the events are made (gate.c)
 * renames the class's reg too.  (Defined after the wrapper above, which
 * calls the real function.)
 */
#define ftrace_event_reg		trace_event_reg

static inline const char *trace_event_name(struct ftrace_event_call *call)
{
	return call->name;
}

static inline bool trace_event_ignore_this_pid(struct ftrace_event_file *file)
{
	return false;
}

static inline bool bpf_prog_array_valid(struct ftrace_event_call *call)
{
	return false;
}
#endif

/*
 * trace_<event>_enabled() says whether the tracepoint has probes.  Where
 * the kernel has none, the gate's own record of the tracepoint's first and
 * last probe (its reg/unreg hooks) says the same, a moment early on the
 * way in (a sample then goes nowhere).
 */
#ifndef POWERPIN_HAVE_TRACE_ENABLED
bool powerpin_gate_tp_live(int event);	/* gate.c */
#define trace_battery_enabled()		powerpin_gate_tp_live(0)
#define trace_counter_enabled()		powerpin_gate_tp_live(1)
#endif

/* the task a perf event follows (3.10 keeps it in a tracepoint-only field) */
#ifdef POWERPIN_HAVE_PERF_HW_TARGET
#define powerpin_perf_target(event)	((event)->hw.target)
#else
#define powerpin_perf_target(event)	((event)->hw.tp_target)
#endif

/* what a tracepoint reg hook returns: an errno, or nothing (3.10) */
#ifdef POWERPIN_HAVE_TP_REGFUNC_INT
#define POWERPIN_TP_REG_TYPE		int
#define POWERPIN_TP_REG_OK		0
#else
#define POWERPIN_TP_REG_TYPE		void
#define POWERPIN_TP_REG_OK
#endif

/*
 * __assign_str() lost its source argument in 6.10; before, the source of
 * powerpin:counter's track_name is the TP_PROTO argument of that name.
 */
#ifdef POWERPIN_ASSIGN_STR_ONE_ARG
#define powerpin_assign_track_name()	__assign_str(track_name)
#else
#define powerpin_assign_track_name()	__assign_str(track_name, track_name)
#endif

/*
 * Reserve @len bytes in the ring buffer of @file's trace instance, for a
 * record that is discarded at once: its context word (irq flags, preempt
 * count) is never read, so it is 0 (5.12 folded the two arguments into one
 * trace_ctx; tracing_gen_ctx() itself is not usable from a module).
 */
static inline struct ring_buffer_event *
powerpin_reserve(struct trace_buffer **rb, struct trace_event_file *file,
		 int type, unsigned long len)
{
#ifdef POWERPIN_HAVE_TRACE_CTX
	return trace_event_buffer_lock_reserve(rb, file, type, len, 0);
#else
	return trace_event_buffer_lock_reserve(rb, file, type, len, 0, 0);
#endif
}

/*
 * The top-level instance's trace event file of powerpin:@event, or an
 * ERR_PTR: -EOPNOTSUPP where the kernel has no trace_get_event_file() (5.6;
 * 3.10 has none).  Only the address is kept (the file lives as long as the
 * module's events), so the reference it comes with is dropped at once.
 */
static inline struct trace_event_file *powerpin_top_event_file(const char *event)
{
#ifdef POWERPIN_HAVE_TRACE_GET_EVENT_FILE
	struct trace_event_file *file;

	file = trace_get_event_file(NULL, "powerpin", event);
	if (!IS_ERR(file))
		trace_put_event_file(file);
	return file;
#else
	return ERR_PTR(-EOPNOTSUPP);
#endif
}

/* ---- page cache --------------------------------------------------------- */

#include <linux/magic.h>
#include <linux/pagemap.h>

/* superblock magics of pseudo file systems newer than some kernels */
#ifndef TRACEFS_MAGIC
#define TRACEFS_MAGIC		0x74726163
#endif
#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC	0x63677270
#endif
#ifndef BPF_FS_MAGIC
#define BPF_FS_MAGIC		0xcafe4a11
#endif

#ifndef IS_DAX
#define IS_DAX(inode)		((void)(inode), 0)
#endif

#ifndef POWERPIN_HAVE_FILE_OWNER_OR_CAPABLE
static inline bool file_owner_or_capable(const struct file *file)
{
#if defined(POWERPIN_HAVE_INODE_OWNER_IDMAP)
	return inode_owner_or_capable(file_mnt_idmap(file), file_inode(file));
#elif defined(POWERPIN_HAVE_INODE_OWNER_USERNS)
	return inode_owner_or_capable(file_mnt_user_ns((struct file *)file), file_inode(file));
#else
	return inode_owner_or_capable(file->f_inode);
#endif
}
#endif

#ifndef POWERPIN_HAVE_FILE_PERMISSION
static inline int file_permission(struct file *file, int mask)
{
	return inode_permission(file_inode(file), mask);
}
#endif

#ifndef POWERPIN_HAVE_COPY_STRUCT_FROM_USER
/*
 * copy_struct_from_user() (5.4): copy what both sides know, zero what only
 * the kernel knows, and refuse (E2BIG) non-zero bytes only the caller knows.
 */
static inline int copy_struct_from_user(void *dst, size_t ksize,
					const void __user *src, size_t usize)
{
	size_t size = min(ksize, usize);
	size_t i;
	u8 byte;

	if (usize > ksize) {
		for (i = ksize; i < usize; i++) {
			if (get_user(byte, (const u8 __user *)src + i))
				return -EFAULT;
			if (byte)
				return -E2BIG;
		}
	} else if (usize < ksize) {
		memset(dst + size, 0, ksize - size);
	}
	return copy_from_user(dst, src, size) ? -EFAULT : 0;
}
#endif

#ifdef POWERPIN_HAVE_XARRAY
#define powerpin_page_cache(mapping)	(&(mapping)->i_pages)
#else
/*
 * Before 4.20 the page cache is a radix tree.  This is the part of the
 * xarray walk API the residency ioctl uses, over radix_tree_next_chunk()
 * and radix_tree_next_slot() under RCU: present slots in index order, each
 * one page (no large folios in those page caches), exceptional entries
 * (shmem's swap entries) as values, marks read from the tree's tags.
 * Entries are only looked at, never dereferenced.
 */
#define powerpin_page_cache(mapping)	(&(mapping)->page_tree)

struct xa_state {
	struct radix_tree_root *root;
	struct radix_tree_iter iter;
	void **slot;			/* NULL: look up again from next */
	unsigned long next;
	unsigned long xa_index;		/* index of the entry returned last */
};

#define XA_STATE(name, tree, index)					\
	struct xa_state name = { .root = (tree), .next = (index) }

static inline bool xa_is_value(const void *entry)
{
	return radix_tree_exceptional_entry((void *)entry);
}

/* The entry at xas->slot or a later present slot, if at most @max. */
static inline void *powerpin_xas_entry(struct xa_state *xas, unsigned long max)
{
	void *entry;

	for (; xas->slot; xas->slot = radix_tree_next_slot(xas->slot, &xas->iter, 0)) {
		if (xas->iter.index > max)
			break;
		entry = radix_tree_deref_slot(xas->slot);
		if (!entry)
			continue;	/* deleted since the chunk was found */
		xas->xa_index = xas->iter.index;
		xas->next = xas->iter.index + 1;
		return entry;
	}
	xas->slot = NULL;
	return NULL;
}

static inline void *xas_find(struct xa_state *xas, unsigned long max)
{
	void *entry;

	for (;;) {
		radix_tree_iter_init(&xas->iter, xas->next);
		xas->slot = radix_tree_next_chunk(xas->root, &xas->iter, 0);
		if (!xas->slot)
			return NULL;
		entry = powerpin_xas_entry(xas, max);
		/* a chunk whose slots all emptied: go on after it */
		if (entry || xas->iter.index > max || !xas->iter.next_index)
			return entry;
		xas->next = xas->iter.next_index;
	}
}

static inline void *xas_next_entry(struct xa_state *xas, unsigned long max)
{
	void *entry;

	if (!xas->slot)
		return xas_find(xas, max);
	xas->slot = radix_tree_next_slot(xas->slot, &xas->iter, 0);
	entry = powerpin_xas_entry(xas, max);
	if (entry || xas->iter.index > max || !xas->iter.next_index)
		return entry;
	xas->next = xas->iter.next_index;
	return xas_find(xas, max);
}

/* xas_next_entry() starts with a lookup: xas->slot is NULL in XA_STATE() */
#define xas_for_each(xas, entry, max)					\
	for (; ((entry) = xas_next_entry(xas, max)); )

/* The tree changed shape under the walk: look the same index up again. */
static inline bool xas_retry(struct xa_state *xas, const void *entry)
{
	if (!radix_tree_deref_retry((void *)entry))
		return false;
	xas->slot = NULL;
	xas->next = xas->xa_index;
	return true;
}

static inline unsigned int xas_get_order(struct xa_state *xas)
{
	return 0;
}

static inline bool xas_get_mark(struct xa_state *xas, unsigned int tag)
{
	return radix_tree_tag_get(xas->root, xas->xa_index, tag);
}

/* Let the walk drop RCU: the next lookup starts after the current entry. */
static inline void xas_pause(struct xa_state *xas)
{
	xas->slot = NULL;
}

static inline void xas_set(struct xa_state *xas, unsigned long index)
{
	xas->slot = NULL;
	xas->next = index;
}
#endif /* POWERPIN_HAVE_XARRAY */

/*
 * Order of the entry @xas points at.  xas_get_order() is mainline since
 * 6.10 (some distributions backport it); xa_get_order() (5.10) answers the
 * same from the root, one tree walk per entry.
 */
static inline unsigned int powerpin_xas_order(struct xa_state *xas)
{
#if defined(POWERPIN_HAVE_XAS_GET_ORDER) || !defined(POWERPIN_HAVE_XARRAY)
	return xas_get_order(xas);
#else
	return xa_get_order(xas->xa, xas->xa_index);
#endif
}

/*
 * The inode whose page cache holds @file's data: overlayfs (and any file
 * system with d_real) reads and maps the real upper or lower file, never
 * the overlay inode's own, empty mapping.
 */
static inline struct inode *powerpin_data_inode(struct file *file)
{
#ifdef POWERPIN_HAVE_D_REAL_INODE
	return d_real_inode(file->f_path.dentry);
#else
	/* no overlayfs before 3.18: a file's own inode holds its pages */
	return file_inode(file);
#endif
}

/* ---- generic netlink ---------------------------------------------------- */

#include <linux/powerpin.h>

#ifndef GENL_SET_ERR_MSG
/* no extended ack before 4.12: the errno is the whole answer */
static inline void powerpin_genl_no_ext_ack(struct genl_info *info,
					    const char *msg)
{
}

#define GENL_SET_ERR_MSG(info, msg)	powerpin_genl_no_ext_ack(info, msg)
#endif

#ifndef POWERPIN_HAVE_NLA_PUT_64BIT
/*
 * Before 4.7, 64-bit attributes go without an alignment pad attribute
 * (nla_put_s64(), where a kernel has it, takes no pad argument either).
 */
static inline int powerpin_nla_put_64(struct sk_buff *skb, int type, u64 value,
				      int padattr)
{
	return nla_put(skb, type, sizeof(value), &value);
}

#define nla_put_u64_64bit(skb, type, value, padattr)			\
	powerpin_nla_put_64(skb, type, value, padattr)
#define nla_put_s64(skb, type, value, padattr)				\
	powerpin_nla_put_64(skb, type, (u64)(value), padattr)
#endif

#ifndef POWERPIN_HAVE_GENL_REGISTER_MC_GROUP
/* 4.10 on: the family carries its ops and groups; group numbers are its own. */
#define POWERPIN_GENL_CONST	const
/* netlink.c's tables, powerpin_genl_ops[] and powerpin_genl_mcgrps[] */
#define POWERPIN_GENL_FAMILY_OPS					\
	.maxattr = POWERPIN_ATTR_MAX,					\
	.ops = powerpin_genl_ops,					\
	.n_ops = ARRAY_SIZE(powerpin_genl_ops),				\
	.mcgrps = powerpin_genl_mcgrps,					\
	.n_mcgrps = ARRAY_SIZE(powerpin_genl_mcgrps)
#define POWERPIN_GENL_OP_MAXATTR	.maxattr = POWERPIN_ATTR_MAX,

static inline int powerpin_genl_register(struct genl_family *family,
					 const struct genl_ops *ops, size_t n_ops,
					 const struct genl_multicast_group *grps,
					 size_t n_grps)
{
	return genl_register_family(family);
}

static inline bool powerpin_genl_has_listeners(struct genl_family *family,
					       const struct genl_multicast_group *grps,
					       unsigned int group)
{
	return genl_has_listeners(family, &init_net, group);
}

static inline void powerpin_genl_multicast(struct genl_family *family,
					   const struct genl_multicast_group *grps,
					   struct sk_buff *skb, unsigned int group)
{
	genlmsg_multicast(family, skb, 0, group, GFP_KERNEL);
}
#else
/*
 * Up to 3.12: ops and groups are registered one by one and linked into
 * lists (so they cannot be const), and a group gets a global id.  The core
 * parses attributes leniently: unknown types, lengths other than the
 * type's and trailing bytes pass, a short attribute gets -ERANGE.  So the
 * family leaves parsing to its pre_doit, which refuses what newer kernels'
 * strict validation refuses, with -EINVAL, and then hands the attributes
 * to the command (requests run one at a time under genl_mutex, so one
 * table serves them all).
 */
#define POWERPIN_GENL_CONST
#define POWERPIN_GENL_FAMILY_OPS					\
	.id = GENL_ID_GENERATE,						\
	.pre_doit = powerpin_genl_strict_pre_doit
#define POWERPIN_GENL_OP_MAXATTR

static inline int powerpin_genl_check_attr(const struct nlattr *nla,
					   const struct nla_policy *policy)
{
	static const u8 fixed_len[] = {
		[NLA_U8] = 1, [NLA_U16] = 2, [NLA_U32] = 4, [NLA_U64] = 8,
	};
	int type = nla_type(nla), len = nla_len(nla);
	const struct nla_policy *pt;
	size_t str_len;

	if (!type || type > POWERPIN_ATTR_MAX || !policy)
		return -EINVAL;
	pt = &policy[type];
	switch (pt->type) {
	case NLA_U8:
	case NLA_U16:
	case NLA_U32:
	case NLA_U64:
		return len == fixed_len[pt->type] ? 0 : -EINVAL;
	case NLA_NUL_STRING:
		str_len = strnlen(nla_data(nla), len);
		if (str_len == (size_t)len || (pt->len && str_len > pt->len))
			return -EINVAL;
		return 0;
	default:
		return -EINVAL;		/* NLA_UNSPEC: not for this command */
	}
}

static inline int powerpin_genl_strict_pre_doit(struct genl_ops *ops,
						struct sk_buff *skb,
						struct genl_info *info)
{
	static struct nlattr *attrs[POWERPIN_ATTR_MAX + 1];
	struct nlattr *nla;
	int rem, ret;

	if (info->genlhdr->reserved)
		return -EINVAL;
	memset(attrs, 0, sizeof(attrs));
	nlmsg_for_each_attr(nla, info->nlhdr, GENL_HDRLEN, rem) {
		ret = powerpin_genl_check_attr(nla, ops->policy);
		if (ret)
			return ret;
		attrs[nla_type(nla)] = nla;
	}
	if (rem)
		return -EINVAL;
	info->attrs = attrs;
	return 0;
}

static inline int powerpin_genl_register(struct genl_family *family,
					 struct genl_ops *ops, size_t n_ops,
					 struct genl_multicast_group *grps,
					 size_t n_grps)
{
	size_t i;
	int ret;

	ret = genl_register_family_with_ops(family, ops, n_ops);
	if (ret)
		return ret;
	for (i = 0; i < n_grps; i++) {
		ret = genl_register_mc_group(family, &grps[i]);
		if (ret) {
			genl_unregister_family(family);
			return ret;
		}
	}
	return 0;
}

static inline bool powerpin_genl_has_listeners(struct genl_family *family,
					       const struct genl_multicast_group *grps,
					       unsigned int group)
{
	return netlink_has_listeners(init_net.genl_sock, grps[group].id);
}

static inline void powerpin_genl_multicast(struct genl_family *family,
					   const struct genl_multicast_group *grps,
					   struct sk_buff *skb, unsigned int group)
{
	genlmsg_multicast(skb, 0, grps[group].id, GFP_KERNEL);
}
#endif

#ifndef NLA_POLICY_FULL_RANGE
/* no range policies before 5.2: the command checks the range itself */
struct netlink_range_validation {
	u64 min, max;
};

#define NLA_POLICY_FULL_RANGE(tp, range)				\
	{ .type = (tp), .len = 0 * sizeof((range)->max) }
#endif

/*
 * The genetlink header check new families get from the core.  Since 6.1 a
 * family whose resv_start_op is 0 (ours) has every command's reserved
 * header byte and unknown nlmsg_flags refused with -EINVAL by the core;
 * older kernels have no resv_start_op and check neither, so the module does
 * it itself, with the same errno and message.
 */
static inline int powerpin_genl_check_header(struct genl_info *info)
{
#ifndef POWERPIN_HAVE_GENL_RESV_START_OP
	u16 flags = info->nlhdr->nlmsg_flags;

	if (info->genlhdr->reserved) {
		GENL_SET_ERR_MSG(info, "genlmsghdr.reserved field is not 0");
		return -EINVAL;
	}
	if ((flags & NLM_F_DUMP) == NLM_F_DUMP)
		flags &= ~NLM_F_DUMP;
	if (flags & ~(NLM_F_REQUEST | NLM_F_ACK | NLM_F_ECHO)) {
		GENL_SET_ERR_MSG(info, "ambiguous or reserved bits set in nlmsg_flags");
		return -EINVAL;
	}
#endif
	return 0;
}

/*
 * Whether the sender of netlink request @skb may see live power readings
 * (kmod/README.md, "Netlink"): CAP_SYS_ADMIN, or CAP_PERFMON where the
 * kernel has it, held by the sender and the socket's opener as
 * GENL_ADMIN_PERM checks them; before netlink_capable() (3.15) by the
 * sender, whose context a request runs in.
 */
static inline bool powerpin_nl_readings_allowed(struct sk_buff *skb)
{
#ifdef POWERPIN_HAVE_NETLINK_CAPABLE_SKB
#ifdef CAP_PERFMON
	if (netlink_capable(skb, CAP_PERFMON))
		return true;
#endif
	return netlink_capable(skb, CAP_SYS_ADMIN);
#else
	return capable(CAP_SYS_ADMIN);
#endif
}

/* ---- used by the gauge emulator (selftests/gauge) --------------------------- */

#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/i2c.h>
#include <linux/kernel_stat.h>
#include <linux/math64.h>

#ifndef POWERPIN_HAVE_I2C_NEW_CLIENT_DEVICE
static inline struct i2c_client *
i2c_new_client_device(struct i2c_adapter *adap, struct i2c_board_info const *info)
{
	struct i2c_client *client = i2c_new_device(adap, info);

	return client ? client : ERR_PTR(-ENODEV);
}
#endif

/*
 * Until 4.1, max17042_battery refuses to bind without platform data (later
 * kernels fall back to defaults): give it the defaults it would pick, the
 * current sense on and the datasheet's 10 mOhm sense resistor.
 */
#ifndef POWERPIN_HAVE_PSY_DESC
#include <linux/power/max17042_battery.h>
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

#ifndef POWERPIN_HAVE_MUL_U64_U64_DIV_U64
/* a * b / c, giving up low bits of a and c while a * b would overflow */
static inline u64 mul_u64_u64_div_u64(u64 a, u64 b, u64 c)
{
	while (b && a > div64_u64(U64_MAX, b)) {
		a >>= 1;
		c >>= 1;
	}
	return c ? div64_u64(a * b, c) : 0;
}
#endif

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
 * Before 4.7 debugfs has no removal-safe attributes: simple attributes
 * then, but written through a parser as strict as later kernels' (3.10's
 * simple_attr_write() takes "lots" for 0 and cuts 64-bit values).
 */
#ifndef DEFINE_DEBUGFS_ATTRIBUTE
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

#define DEFINE_DEBUGFS_ATTRIBUTE(fops, get, set, fmt)			\
	POWERPIN_DEBUGFS_ATTRIBUTE(fops, get, set, fmt, false)
#define DEFINE_DEBUGFS_ATTRIBUTE_SIGNED(fops, get, set, fmt)		\
	POWERPIN_DEBUGFS_ATTRIBUTE(fops, get, set, fmt, true)
#define debugfs_create_file_unsafe	debugfs_create_file
#endif
/* a signed value parses as one: simple_attr_write() did so until 4.x */
#ifndef DEFINE_DEBUGFS_ATTRIBUTE_SIGNED
#define DEFINE_DEBUGFS_ATTRIBUTE_SIGNED(fops, get, set, fmt)		\
	DEFINE_DEBUGFS_ATTRIBUTE(fops, get, set, fmt)
#endif

/*
 * CPU time of one kind (CPUTIME_*) on one CPU, in ns.  Before 4.11 the
 * counters are in cputime units (jiffies on the kernels we build for).
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
#else
static inline void powerpin_cpustat_ns(int cpu, u64 ns[NR_STATS])
{
	int i;

	for (i = 0; i < NR_STATS; i++)
		ns[i] = cputime64_to_jiffies64(kcpustat_cpu(cpu).cpustat[i]) *
			(NSEC_PER_SEC / HZ);
}
#endif

#endif /* _POWERPIN_COMPAT_H */
