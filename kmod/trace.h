/* SPDX-License-Identifier: GPL-2.0 */
/*
 * powerpin trace events, system "powerpin".
 *
 * powerpin:battery  one per sample: the battery readings, the time the read
 *                   took and POWERPIN_SAMPLE_* flags (uapi/linux/powerpin.h).
 * powerpin:counter  one per property per sample, in Perfetto's kernel track
 *                   event shape (a __string track_name and an s64
 *                   counter_value), so Perfetto draws one counter track per
 *                   property without knowing about powerpin.
 *
 * Both events are TRACE_EVENT_FN: enabling the first one wakes the sampler
 * kthread, disabling the last one lets it sleep without a timer.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM powerpin

#if !defined(_POWERPIN_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _POWERPIN_TRACE_H

#include <linux/tracepoint.h>

#ifndef _POWERPIN_TRACE_ONCE
#define _POWERPIN_TRACE_ONCE

/* One sample as the battery event records it. */
struct powerpin_sample {
	u32 seq;
	s64 voltage_uv;
	s64 current_ua;
	s64 charge_uah;
	s64 power_uw;
	s64 current_avg_ua;
	s32 capacity;
	s32 temp_dc;
	u64 read_ns;
	u32 flags;
};

int powerpin_trace_reg(void);
void powerpin_trace_unreg(void);

/* __assign_str() lost its source argument in 6.10 (see kmod/Kbuild). */
#ifdef POWERPIN_ASSIGN_STR_ONE_ARG
#define powerpin_assign_track_name()	__assign_str(track_name)
#else
#define powerpin_assign_track_name()	__assign_str(track_name, track_name)
#endif

#endif /* _POWERPIN_TRACE_ONCE */

TRACE_EVENT_FN(battery,
	       TP_PROTO(const struct powerpin_sample *s),
	       TP_ARGS(s),
	       TP_STRUCT__entry(__field(u32, seq)
				__field(s64, voltage_uv)
				__field(s64, current_ua)
				__field(s64, charge_uah)
				__field(s64, power_uw)
				__field(s64, current_avg_ua)
				__field(s32, capacity)
				__field(s32, temp_dc)
				__field(u64, read_ns)
				__field(u32, flags)),
	       TP_fast_assign(__entry->seq = s->seq;
			      __entry->voltage_uv = s->voltage_uv;
			      __entry->current_ua = s->current_ua;
			      __entry->charge_uah = s->charge_uah;
			      __entry->power_uw = s->power_uw;
			      __entry->current_avg_ua = s->current_avg_ua;
			      __entry->capacity = s->capacity;
			      __entry->temp_dc = s->temp_dc;
			      __entry->read_ns = s->read_ns;
			      __entry->flags = s->flags;),
	       TP_printk("seq=%u voltage_uv=%lld current_ua=%lld charge_uah=%lld power_uw=%lld current_avg_ua=%lld capacity=%d temp_dc=%d read_ns=%llu flags=0x%x",
			 __entry->seq, __entry->voltage_uv, __entry->current_ua,
			 __entry->charge_uah, __entry->power_uw,
			 __entry->current_avg_ua, __entry->capacity,
			 __entry->temp_dc, __entry->read_ns, __entry->flags),
	       powerpin_trace_reg, powerpin_trace_unreg);

TRACE_EVENT_FN(counter,
	       TP_PROTO(const char *track_name, s64 counter_value),
	       TP_ARGS(track_name, counter_value),
	       TP_STRUCT__entry(__string(track_name, track_name)
				__field(s64, counter_value)),
	       TP_fast_assign(powerpin_assign_track_name();
			      __entry->counter_value = counter_value;),
	       TP_printk("track_name=%s counter_value=%lld",
			 __get_str(track_name), __entry->counter_value),
	       powerpin_trace_reg, powerpin_trace_unreg);

#endif /* _POWERPIN_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
