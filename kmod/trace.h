/* SPDX-License-Identifier: GPL-2.0 */
/*
 * powerpin trace events, system "powerpin".
 *
 * powerpin:powerpin_battery  one per sample: the battery readings, the
 *     time the read took and POWERPIN_SAMPLE_* flags (uapi/linux/powerpin.h).
 * powerpin:powerpin_counter  one per property per sample, in Perfetto's
 *     kernel track event shape (a __string track_name and an s64
 *     counter_value), so Perfetto draws one counter track per property
 *     without knowing about powerpin.
 *
 * The event name is the tracepoint's name, and before 3.15 tracepoints are
 * matched by name across the whole kernel: a vendor tree's own "battery"
 * tracepoint would get this one's probes, with another prototype.  Hence
 * the powerpin_ prefix.  Captures made with older modules name the events
 * powerpin:battery and powerpin:counter; the readers take both names.
 *
 * Record layout: the 8-byte fields first, then the 4-byte ones, so neither
 * record has a hole (checked by the guest tests against the format files).
 * The text form (TP_printk) keeps its own order.
 *
 * Who consumes the events (tracefs instances, perf, triggers, other probes)
 * is followed by kmod/gate.c, which is also where CREATE_TRACE_POINTS is.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM powerpin

#if !defined(_POWERPIN_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _POWERPIN_TRACE_H

#include <linux/tracepoint.h>

#include "compat.h"

#ifndef _POWERPIN_TRACE_ONCE
#define _POWERPIN_TRACE_ONCE

/* One sample as the battery event records it. */
struct powerpin_sample {
	s64 voltage_uv;
	s64 current_ua;
	s64 charge_uah;
	s64 power_uw;
	s64 current_avg_ua;
	u64 read_ns;
	u32 seq;
	s32 capacity;
	s32 temp_dc;
	u32 flags;
};

/* Tracepoint-level first probe / last probe of each event (gate.c). */
POWERPIN_TP_REG_TYPE powerpin_battery_tp_reg(void);
void powerpin_battery_tp_unreg(void);
POWERPIN_TP_REG_TYPE powerpin_counter_tp_reg(void);
void powerpin_counter_tp_unreg(void);
/* a record of the events was filled in (gate.c: a KMI build's gate) */
void powerpin_gate_landed(void);

#endif /* _POWERPIN_TRACE_ONCE */

TRACE_EVENT_FN(powerpin_battery,
	       TP_PROTO(const struct powerpin_sample *s),
	       TP_ARGS(s),
	       TP_STRUCT__entry(__field(s64, voltage_uv)
				__field(s64, current_ua)
				__field(s64, charge_uah)
				__field(s64, power_uw)
				__field(s64, current_avg_ua)
				__field(u64, read_ns)
				__field(u32, seq)
				__field(s32, capacity)
				__field(s32, temp_dc)
				__field(u32, flags)),
	       TP_fast_assign(__entry->voltage_uv = s->voltage_uv;
			      __entry->current_ua = s->current_ua;
			      __entry->charge_uah = s->charge_uah;
			      __entry->power_uw = s->power_uw;
			      __entry->current_avg_ua = s->current_avg_ua;
			      __entry->read_ns = s->read_ns;
			      __entry->seq = s->seq;
			      __entry->capacity = s->capacity;
			      __entry->temp_dc = s->temp_dc;
			      __entry->flags = s->flags;
			      powerpin_gate_landed();),
	       TP_printk("seq=%u voltage_uv=%lld current_ua=%lld charge_uah=%lld power_uw=%lld current_avg_ua=%lld capacity=%d temp_dc=%d read_ns=%llu flags=0x%x",
			 __entry->seq, __entry->voltage_uv, __entry->current_ua,
			 __entry->charge_uah, __entry->power_uw,
			 __entry->current_avg_ua, __entry->capacity,
			 __entry->temp_dc, __entry->read_ns, __entry->flags),
	       powerpin_battery_tp_reg, powerpin_battery_tp_unreg);

TRACE_EVENT_FN(powerpin_counter,
	       TP_PROTO(const char *track_name, s64 counter_value),
	       TP_ARGS(track_name, counter_value),
	       TP_STRUCT__entry(__field(s64, counter_value)
				__string(track_name, track_name)),
	       TP_fast_assign(__entry->counter_value = counter_value;
			      powerpin_assign_track_name();
			      powerpin_gate_landed();),
	       TP_printk("track_name=%s counter_value=%lld",
			 __get_str(track_name), __entry->counter_value),
	       powerpin_counter_tp_reg, powerpin_counter_tp_unreg);

#endif /* _POWERPIN_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
