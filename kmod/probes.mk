# SPDX-License-Identifier: GPL-2.0
#
# Feature probes: interfaces that differ between the kernels we build for
# (Linux 3.10, 3.18, 4.4 to 4.19, 5.4, and 5.10 to the newest), found in the
# headers we build against (never from version numbers, which vendor and distribution
# backports make unreliable).  Each defines POWERPIN_HAVE_* (or POWERPIN_*) for
# kmod/compat.h, the only file of the module that reads them.  Included by
# kmod/Kbuild and selftests/gauge/Kbuild (the gauge emulator uses compat.h
# too, and probes what only it uses itself, for its emu_compat.h).
# (parentheses in patterns are written $(pp_lp) and $(pp_rp), commas
# $(pp_comma); a file name may be a glob)
# The kernels supported are the ones built and tested: Linux 3.10 (the
# Nexus 6's), 3.18, 4.4, 4.9, 4.14 and 4.19 (Android's lines before GKI), 5.4
# (Android 11 and 12's GKI) and 5.10 or newer.  The probes below were never
# run on the lines between them, so the line of the kernel, the one thing
# a backport does not change, is checked first.
pp_supported := $(if $(filter 3.10 3.18 4.4 4.9 4.14 4.19 5.4,$(VERSION).$(PATCHLEVEL)),y,$(shell \
	[ "$(VERSION)" -gt 5 ] 2>/dev/null || \
	{ [ "$(VERSION)" -eq 5 ] && [ "$(PATCHLEVEL)" -ge 10 ]; } 2>/dev/null && echo y))
ifneq ($(pp_supported),y)
$(error powerpin: Linux $(VERSION).$(PATCHLEVEL) is not supported; supported: Linux 3.10, 3.18, 4.4, 4.9, 4.14, 4.19, 5.4, and 5.10 or newer)
endif

pp_lp := [(]
pp_rp := [)]
pp_comma := ,
pp_has = $(shell grep -qsE '$(1)' $(srctree)/$(2) && echo -D$(3))
pp_file = $(if $(wildcard $(srctree)/$(1)),-D$(2))
# struct $(1)'s definition (up to its first closing brace) has $(2)
pp_struct_has = $(shell grep -qszE 'struct $(1) \{[^}]*$(2)' $(srctree)/$(3) && echo -D$(4))

# 6.9 made power_supply_class static, exports power_supply_for_each_device()
ccflags-y += $(call pp_has,power_supply_for_each_device,include/linux/power_supply.h,POWERPIN_HAVE_PSY_FOR_EACH)
# 7.x replaced it with power_supply_for_each_psy()
ccflags-y += $(call pp_has,power_supply_for_each_psy,include/linux/power_supply.h,POWERPIN_HAVE_PSY_FOR_EACH_PSY)
# 6.10 dropped the source argument of the trace macro __assign_str()
ccflags-y += $(call pp_has,define __assign_str$(pp_lp)dst$(pp_rp),include/trace/stages/stage6_event_callback.h,POWERPIN_ASSIGN_STR_ONE_ARG)
# 5.1: device_del() takes the device lock (kill_device())
ccflags-y += $(call pp_has,bool kill_device$(pp_lp),include/linux/device.h,POWERPIN_HAVE_KILL_DEVICE)
# 5.12: trace_ctx replaces irq flags + preempt count
ccflags-y += $(call pp_has,unsigned int tracing_gen_ctx$(pp_lp)void$(pp_rp),include/linux/trace_events.h,POWERPIN_HAVE_TRACE_CTX)
# 5.6: trace_get_event_file() (the gate's load-time self-test)
ccflags-y += $(call pp_has,trace_get_event_file$(pp_lp),include/linux/trace_events.h,POWERPIN_HAVE_TRACE_GET_EVENT_FILE)
# 5.6 renamed the ring buffer struct ring_buffer to struct trace_buffer
ccflags-y += $(call pp_has,struct trace_buffer,include/linux/ring_buffer.h,POWERPIN_HAVE_TRACE_BUFFER)
# 6.8: sub-buffers larger than a page (a page-size record can be in the buffer)
ccflags-y += $(call pp_has,ring_buffer_subbuf_order_set,include/linux/ring_buffer.h,POWERPIN_HAVE_RB_SUBBUF_ORDER)
# 5.10: xa_get_order()
ccflags-y += $(call pp_has,int xa_get_order$(pp_lp),include/linux/xarray.h,POWERPIN_HAVE_XA_GET_ORDER)
# 6.13: hrtimer_setup() (hrtimer_init() is gone from 6.15)
ccflags-y += $(call pp_has,void hrtimer_setup$(pp_lp),include/linux/hrtimer.h,POWERPIN_HAVE_HRTIMER_SETUP)
# 5.16: folios (a KMI build reads a page-cache entry's order and flags off one)
ccflags-y += $(call pp_has,^struct folio \{,include/linux/mm_types.h,POWERPIN_HAVE_FOLIO)
# 6.10 (backported by some distributions): xas_get_order()
ccflags-y += $(call pp_has,int xas_get_order$(pp_lp),include/linux/xarray.h,POWERPIN_HAVE_XAS_GET_ORDER)
# 6.1: genetlink checks reserved header fields from resv_start_op on
ccflags-y += $(call pp_has,resv_start_op;,include/net/genetlink.h,POWERPIN_HAVE_GENL_RESV_START_OP)
# 5.2 to 5.9: one attribute policy for the family, none in a command's
# genl_ops (5.1's and older, and 5.10's, have one)
ccflags-y += $(call pp_struct_has,genl_ops,const struct nla_policy,include/net/genetlink.h,POWERPIN_HAVE_GENL_OP_POLICY)
# the CPUs kernel threads keep to (isolcpus=, nohz_full=): 5.18's hk_type,
# 4.15's hk_flags before it
ccflags-y += $(call pp_has,HK_TYPE_KTHREAD,include/linux/sched/isolation.h,POWERPIN_HAVE_HK_TYPE_KTHREAD)
ccflags-y += $(call pp_has,HK_FLAG_KTHREAD,include/linux/sched/isolation.h,POWERPIN_HAVE_HK_FLAG_KTHREAD)
# 3.15: netlink_capable() checks a request's sender and socket opener
ccflags-y += $(call pp_has,bool netlink_capable$(pp_lp)const struct sk_buff,include/linux/netlink.h,POWERPIN_HAVE_NETLINK_CAPABLE_SKB)

# ---- Linux 3.10 (Nexus 6) and the kernels between -------------------------
# Qualcomm-era vendor kernels (the Nexus 6's) add a supply type for the fuel
# gauge, POWER_SUPPLY_TYPE_BMS, beside the charger's forwarding "battery"
ccflags-y += $(call pp_has,POWER_SUPPLY_TYPE_BMS,include/linux/power_supply.h,POWERPIN_HAVE_PSY_TYPE_BMS)
# 4.1 split struct power_supply into the driver's desc and the core's device
ccflags-y += $(call pp_has,struct power_supply_desc,include/linux/power_supply.h,POWERPIN_HAVE_PSY_DESC)
# 4.2 renamed ftrace_event_{call,file,class} to trace_event_* (and the
# header to linux/trace_events.h)
ccflags-y += $(call pp_file,include/linux/trace_events.h,POWERPIN_HAVE_TRACE_EVENTS_H)
# before it: ftrace_event_name() (3.15: the call's name shares a union
# with its tracepoint) and event triggers (3.14)
ccflags-y += $(call pp_has,^ftrace_event_name$(pp_lp),include/linux/ftrace_event.h,POWERPIN_HAVE_FTRACE_EVENT_NAME)
ccflags-y += $(call pp_has,FTRACE_EVENT_FL_TRIGGER_MODE[[:space:]]*=,include/linux/ftrace_event.h,POWERPIN_HAVE_FTRACE_EVENT_TRIGGERS)
# trace_<event>_enabled() (absent from 3.10), a perf event's target task
# outside the tracepoint-only union (absent from 3.10)
ccflags-y += $(call pp_has,name[^a-z]+_enabled,include/linux/tracepoint.h,POWERPIN_HAVE_TRACE_ENABLED)
ccflags-y += $(call pp_has,struct task_struct[[:space:]]+\*target;,include/linux/perf_event.h,POWERPIN_HAVE_PERF_HW_TARGET)
# BPF programs on an event through perf: the call's program array (4.15),
# one program before it (absent from 3.10)
ccflags-y += $(call pp_has,bool bpf_prog_array_valid,include/linux/trace_events.h,POWERPIN_HAVE_BPF_PROG_ARRAY_VALID)
ccflags-y += $(call pp_has,struct bpf_prog[[:space:]]+\*prog;,include/linux/trace_events.h,POWERPIN_HAVE_CALL_BPF_PROG)
# tracepoint reg hooks return an errno (void on 3.10)
ccflags-y += $(call pp_has,int $(pp_lp)\*regfunc$(pp_rp),include/linux/tracepoint*.h,POWERPIN_HAVE_TP_REGFUNC_INT)
# the page cache is an xarray from 4.20, a radix tree before (4.19 has a
# linux/xarray.h already, with its lock macros only)
ccflags-y += $(call pp_has,struct xa_state \{,include/linux/xarray.h,POWERPIN_HAVE_XARRAY)
# the radix tree's slots are RCU pointers (4.11)
ccflags-y += $(call pp_has,void __rcu \*\*radix_tree_next_chunk,include/linux/radix-tree.h,POWERPIN_HAVE_RADIX_RCU_SLOTS)
# 4.17 renamed the mapping's page_tree to i_pages
ccflags-y += $(call pp_has,[[:space:]]i_pages;,include/linux/fs.h,POWERPIN_HAVE_I_PAGES)
# headers split out of linux/sched.h (4.11), linux/time.h (3.17) and
# linux/kernel.h (linux/minmax.h, 5.10)
ccflags-y += $(call pp_file,include/linux/sched/signal.h,POWERPIN_HAVE_SCHED_SIGNAL_H)
ccflags-y += $(call pp_file,include/linux/timekeeping.h,POWERPIN_HAVE_TIMEKEEPING_H)
ccflags-y += $(call pp_file,include/linux/minmax.h,POWERPIN_HAVE_MINMAX_H)
# time, strings, user copies and files newer than 3.10
ccflags-y += $(call pp_has,ktime_get_ns$(pp_lp)void$(pp_rp),include/linux/timekeeping.h,POWERPIN_HAVE_KTIME_GET_NS)
ccflags-y += $(call pp_has,ktime_get_boottime_ns$(pp_lp)void$(pp_rp),include/linux/timekeeping.h,POWERPIN_HAVE_KTIME_GET_BOOTTIME_NS)
ccflags-y += $(call pp_has,bool ktime_before,include/linux/ktime.h,POWERPIN_HAVE_KTIME_BEFORE)
ccflags-y += $(call pp_has,strscpy,include/linux/string.h,POWERPIN_HAVE_STRSCPY)
ccflags-y += $(call pp_has,copy_struct_from_user,include/linux/uaccess.h,POWERPIN_HAVE_COPY_STRUCT_FROM_USER)
ccflags-y += $(call pp_has,compat_ptr_ioctl,include/linux/fs.h,POWERPIN_HAVE_COMPAT_PTR_IOCTL)
ccflags-y += $(call pp_has,file_owner_or_capable,include/linux/fs.h,POWERPIN_HAVE_FILE_OWNER_OR_CAPABLE)
# before it (some 6.1 stable releases too): inode_owner_or_capable() takes
# the mount's idmap (6.3), its user namespace (5.12) or the inode alone;
# file_permission() is older than 3.10's
ccflags-y += $(call pp_has,bool inode_owner_or_capable$(pp_lp)struct mnt_idmap,include/linux/fs.h,POWERPIN_HAVE_INODE_OWNER_IDMAP)
ccflags-y += $(call pp_has,bool inode_owner_or_capable$(pp_lp)struct user_namespace,include/linux/fs.h,POWERPIN_HAVE_INODE_OWNER_USERNS)
ccflags-y += $(call pp_has,int file_permission$(pp_lp),include/linux/fs.h,POWERPIN_HAVE_FILE_PERMISSION)
ccflags-y += $(call pp_has,d_real_inode,include/linux/dcache.h,POWERPIN_HAVE_D_REAL_INODE)
# 3.18 (with overlayfs): a superblock's stacking depth (in
# linux/fs/super_types.h on the newest); 5.8: mmap_read_lock() in
# linux/mmap_lock.h
ccflags-y += $(call pp_has,int[[:space:]]+s_stack_depth;,include/linux/fs.h,POWERPIN_HAVE_S_STACK_DEPTH)
ccflags-y += $(call pp_has,int[[:space:]]+s_stack_depth;,include/linux/fs/super_types.h,POWERPIN_HAVE_S_STACK_DEPTH)
ccflags-y += $(call pp_file,include/linux/mmap_lock.h,POWERPIN_HAVE_MMAP_LOCK)
# generic netlink: ops and groups registered one by one (up to 3.12) or
# handed over at registration (3.13 to 4.9; from 4.10 the family holds
# them), the core's strict attribute validation (5.2), 64-bit attributes
# with a pad (4.7)
ccflags-y += $(call pp_has,genl_register_mc_group,include/net/genetlink.h,POWERPIN_HAVE_GENL_REGISTER_MC_GROUP)
ccflags-y += $(call pp_has,_genl_register_family_with_ops_grps,include/net/genetlink.h,POWERPIN_HAVE_GENL_REGISTER_OPS_GROUPS)
ccflags-y += $(call pp_has,GENL_DONT_VALIDATE_STRICT,include/net/genetlink.h,POWERPIN_HAVE_GENL_STRICT)
ccflags-y += $(call pp_has,nla_put_u64_64bit,include/net/netlink.h,POWERPIN_HAVE_NLA_PUT_64BIT)
# 3.18's genl_has_listeners() takes the genetlink socket (the namespace
# from 3.19; the line is its second parameter's)
ccflags-y += $(call pp_has,struct sock \*sk$(pp_comma) unsigned int group$(pp_rp),include/net/genetlink.h,POWERPIN_HAVE_GENL_HAS_LISTENERS_SK)
# 3.10's params core (its one lock: __kernel_param_lock()) appends a newline
# to what a parameter's getter prints; the newest leave that to the getter
ccflags-y += $(call pp_has,void __kernel_param_lock,include/linux/moduleparam.h,POWERPIN_PARAM_SHOW_ADDS_NEWLINE)

# Before 5.0 the alias module_init() and module_exit() declare does not copy
# the function's attributes (__copy), so gcc 9 and newer warn about every
# module's __init and __exit functions there.
ccflags-y += $(if $(shell grep -qsE '__copy$(pp_lp)initfn$(pp_rp)' $(srctree)/include/linux/module.h $(srctree)/include/linux/init.h && echo y),,-Wno-missing-attributes)

# 4.14's timer_setup() (the transition to timer callbacks that take the
# timer) casts the callback to the old type in the header itself, so gcc 8
# and newer warn (-Wcast-function-type, in W=1) in every file that
# includes linux/timer.h.
ccflags-y += $(if $(shell grep -qsE '$(pp_lp)TIMER_FUNC_TYPE$(pp_rp)callback' $(srctree)/include/linux/timer.h && echo y),-Wno-cast-function-type)

# ---- GKI ---------------------------------------------------------------
# A GKI kernel exports only the symbols of its KMI lists (kmod/README.md,
# "A GKI phone"): the module then uses only calls every GKI branch's list
# has.  Decided by the tree (Android's common kernel carries
# android/abi_gki_aarch64; a mainline kernel trimmed to a list has
# CONFIG_TRIM_UNUSED_KSYMS), or forced with POWERPIN_KMI=1 (or off with 0).
pp_kmi := $(or $(POWERPIN_KMI),$(if $(wildcard $(srctree)/android/abi_gki_aarch64),1),$(if $(CONFIG_TRIM_UNUSED_KSYMS),1),0)
ifeq ($(pp_kmi),1)
ccflags-y += -DPOWERPIN_KMI
endif
# A KMI build uses a call not every branch exports where the tree's own
# KMI lists name it (one symbol a line, indented in Android's files)
pp_kmi_has = $(if $(filter 1,$(pp_kmi)),$(shell cat $(srctree)/android/abi_gki_aarch64* 2>/dev/null | \
	grep -qxE '[[:space:]]*$(1)' && echo -D$(2)))
ccflags-y += $(call pp_kmi_has,inode_owner_or_capable,POWERPIN_KMI_HAS_INODE_OWNER_OR_CAPABLE)
ccflags-y += $(call pp_kmi_has,generic_permission,POWERPIN_KMI_HAS_GENERIC_PERMISSION)
# 6.1 on: the residency walk steps with xas_find() (kmod/compat.h)
ccflags-y += $(call pp_kmi_has,xas_find,POWERPIN_KMI_HAS_XAS_FIND)
ccflags-y += $(call pp_kmi_has,xas_pause,POWERPIN_KMI_HAS_XAS_PAUSE)
