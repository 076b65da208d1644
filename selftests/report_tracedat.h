/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A trace.dat (file version 6, uncompressed) built without a kernel, for
 * `powerpin report` tests and its benchmark on a host with no tracing.
 *
 * libtracecmd writes trace.dat only from a live tracefs (formats from
 * events/, data from trace_pipe_raw), and the ring-buffer pages are the
 * kernel's own; neither exists here, so this header lays out both by hand,
 * following trace-cmd.dat.v6(5) and the kernel's ring_buffer.c:
 *
 *   magic "\027\010\104tracing" "6\0", endian, long size, page size,
 *   header_page, header_event, ftrace formats, event system formats,
 *   kallsyms, printk formats, cmdlines, CPU count, "options  " (CPUSTAT,
 *   UNAME, BUFFER as set),
 *   "flyrecord" with one (offset, size) per CPU, then page-aligned pages of
 *   { u64 timestamp, u64 commit, events }, each event a u32 header
 *   (type_len:5, time_delta:27) and its 4-byte aligned payload.
 *
 * Only the events powerpin report reads are described: powerpin:battery,
 * powerpin:counter, sched:sched_switch (with the kernel's own print format
 * for prev_state), sched_process_fork, sched_process_exit and ftrace:print.
 * The trace clock (tdat_clock(), "local" by default) goes after the CPU
 * offsets, where libtracecmd's v6 writer puts it.  No TRACECLOCK option:
 * libtracecmd 1.3 then parses the clock of a v6 file twice (the option and
 * that copy) and leaks the first name; readers get the clock from
 * powerpin record's clock line (tdat_cpustat()) instead.  Little-endian,
 * 64-bit longs, 4 KiB pages.
 */
#ifndef POWERPIN_REPORT_TRACEDAT_H
#define POWERPIN_REPORT_TRACEDAT_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_seed.h"

#define TDAT_PAGE		4096
#define TDAT_PAGE_DATA		(TDAT_PAGE - 16)
#define TDAT_MAX_CPUS		8
#define TDAT_TS_BITS		27
#define TDAT_TYPE_TIME_EXTEND	30

#define TDAT_ID_PRINT		5
#define TDAT_ID_SWITCH		372
#define TDAT_ID_FORK		369
#define TDAT_ID_EXIT		370
#define TDAT_ID_BATTERY		1664
#define TDAT_ID_COUNTER		1665
#define TDAT_ID_NEWTASK		130

#define TDAT_COMMON \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n" \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"

static const char tdat_header_page[] =
	"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
	"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
	"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
	"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n";

static const char tdat_header_event[] =
	"# compressed entry header\n"
	"\ttype_len    :    5 bits\n"
	"\ttime_delta  :   27 bits\n"
	"\tarray       :   32 bits\n\n"
	"\tpadding     : type == 29\n"
	"\ttime_extend : type == 30\n"
	"\ttime_stamp : type == 31\n"
	"\tdata max type_len  == 28\n";

static const char tdat_fmt_print[] =
	"name: print\nID: 5\nformat:\n" TDAT_COMMON
	"\tfield:unsigned long ip;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:char buf[];\toffset:16;\tsize:0;\tsigned:0;\n\n"
	"print fmt: \"%ps: %s\", (void *)REC->ip, REC->buf\n";

static const char tdat_fmt_switch[] =
	"name: sched_switch\nID: 372\nformat:\n" TDAT_COMMON
	"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
	"\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"
	"\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s%s ==> next_comm=%s next_pid=%d next_prio=%d\", "
	"REC->prev_comm, REC->prev_pid, REC->prev_prio, "
	"(REC->prev_state & ((0x00000100) - 1)) ? __print_flags(REC->prev_state & ((0x00000100) - 1), \"|\", "
	"{ 0x00000001, \"S\" }, { 0x00000002, \"D\" }, { 0x00000004, \"T\" }, { 0x00000008, \"t\" }, "
	"{ 0x00000010, \"X\" }, { 0x00000020, \"Z\" }, { 0x00000040, \"P\" }, { 0x00000080, \"I\" }) : \"R\", "
	"REC->prev_state & (0x00000100) ? \"+\" : \"\", REC->next_comm, REC->next_pid, REC->next_prio\n";

static const char tdat_fmt_fork[] =
	"name: sched_process_fork\nID: 369\nformat:\n" TDAT_COMMON
	"\tfield:char parent_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t parent_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:char child_comm[16];\toffset:28;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t child_pid;\toffset:44;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"comm=%s pid=%d child_comm=%s child_pid=%d\", REC->parent_comm, REC->parent_pid, "
	"REC->child_comm, REC->child_pid\n";

static const char tdat_fmt_exit[] =
	"name: sched_process_exit\nID: 370\nformat:\n" TDAT_COMMON
	"\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:int prio;\toffset:28;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"comm=%s pid=%d prio=%d\", REC->comm, REC->pid, REC->prio\n";

static const char tdat_fmt_battery[] =
	"name: battery\nID: 1664\nformat:\n" TDAT_COMMON
	"\tfield:u32 seq;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:s64 voltage_uv;\toffset:16;\tsize:8;\tsigned:1;\n"
	"\tfield:s64 current_ua;\toffset:24;\tsize:8;\tsigned:1;\n"
	"\tfield:s64 charge_uah;\toffset:32;\tsize:8;\tsigned:1;\n"
	"\tfield:s64 power_uw;\toffset:40;\tsize:8;\tsigned:1;\n"
	"\tfield:s64 current_avg_ua;\toffset:48;\tsize:8;\tsigned:1;\n"
	"\tfield:s32 capacity;\toffset:56;\tsize:4;\tsigned:1;\n"
	"\tfield:s32 temp_dc;\toffset:60;\tsize:4;\tsigned:1;\n"
	"\tfield:u64 read_ns;\toffset:64;\tsize:8;\tsigned:0;\n"
	"\tfield:u32 flags;\toffset:72;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"seq=%u voltage_uv=%lld current_ua=%lld charge_uah=%lld power_uw=%lld current_avg_ua=%lld capacity=%d temp_dc=%d read_ns=%llu flags=0x%x\", "
	"REC->seq, REC->voltage_uv, REC->current_ua, REC->charge_uah, REC->power_uw, REC->current_avg_ua, REC->capacity, REC->temp_dc, REC->read_ns, REC->flags\n";

static const char tdat_fmt_counter[] =
	"name: counter\nID: 1665\nformat:\n" TDAT_COMMON
	"\tfield:__data_loc char[] track_name;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:s64 counter_value;\toffset:16;\tsize:8;\tsigned:1;\n\n"
	"print fmt: \"track_name=%s counter_value=%lld\", __get_str(track_name), REC->counter_value\n";

static const char tdat_fmt_newtask[] =
	"name: task_newtask\nID: 130\nformat:\n" TDAT_COMMON
	"\tfield:pid_t pid;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:char comm[16];\toffset:12;\tsize:16;\tsigned:0;\n"
	"\tfield:unsigned long clone_flags;\toffset:32;\tsize:8;\tsigned:0;\n"
	"\tfield:short oom_score_adj;\toffset:40;\tsize:2;\tsigned:1;\n\n"
	"print fmt: \"pid=%d comm=%s clone_flags=%lx oom_score_adj=%hd\", REC->pid, REC->comm, "
	"REC->clone_flags, REC->oom_score_adj\n";

#define TDAT_MISSED_EVENTS	(1ULL << 31)
#define TDAT_MISSED_STORED	(1ULL << 30)

struct tdat_cpu {
	FILE *data;		/* this CPU's pages */
	uint8_t page[TDAT_PAGE];
	uint32_t used;		/* bytes of page data */
	uint64_t lost;		/* events dropped before this page */
	uint64_t last_ts;
	uint64_t pages;
	uint64_t file_offset;	/* where tdat_close put this CPU's pages */
};

struct tdat {
	int nr_cpus;
	struct tdat_cpu cpu[TDAT_MAX_CPUS];
	char *cmdlines;
	size_t cmdlines_len;
	FILE *cmdlines_f;
	const char *cpustat[TDAT_MAX_CPUS + 2];	/* CPUSTAT option texts */
	int nr_cpustat;
	const char *clock;	/* trace clock name, NULL: local */
	const char *extra_format;	/* one more event format, of system "extra" */
	size_t extra_format_len;
	const char *extra_system;	/* the extra format's system, NULL: "extra" */
	const char *printk;		/* the printk formats section, NULL: empty */
	const char *uname;		/* the UNAME option's text, NULL: none */
	const char *switch_format;	/* sched_switch's format, NULL: tdat_fmt_switch */
	int task_events;		/* task:task_newtask written: its system goes in */
	/* a second buffer, as trace-cmd record -B NAME writes it (tdat_instance) */
	struct tdat *instance;
	const char *instance_name;
	const char *event_prefix;	/* "powerpin_": today's event names; NULL:
					 * battery and counter, as older modules */
};

#define TDAT_OPTION_CPUSTAT	2
#define TDAT_OPTION_BUFFER	3
#define TDAT_OPTION_UNAME	5

/*
 * Events of @inst (opened with the same CPU count, its formats and
 * cmdlines unused) go into @w's file as the ftrace instance @name: a
 * BUFFER option naming it and where its "flyrecord" and CPU offsets are,
 * after the top buffer's pages, as trace-cmd's v6 writer lays it out.
 */
static inline void tdat_instance(struct tdat *w, const char *name, struct tdat *inst)
{
	w->instance = inst;
	w->instance_name = name;
}


/* The capture's trace clock ("local", "boot", ...). */
static inline void tdat_clock(struct tdat *w, const char *clock)
{
	w->clock = clock;
}

/* The UNAME option, "SYSNAME NODENAME RELEASE MACHINE" as trace-cmd record stores it. */
static inline void tdat_uname(struct tdat *w, const char *text)
{
	w->uname = text;
}

/* Add a CPUSTAT option (the text `trace-cmd record` stores per CPU). */
static inline void tdat_cpustat(struct tdat *w, const char *text)
{
	if (w->nr_cpustat <= TDAT_MAX_CPUS + 1)
		w->cpustat[w->nr_cpustat++] = text;
}

static inline int tdat_open(struct tdat *w, int nr_cpus)
{
	int i;

	memset(w, 0, sizeof(*w));
	if (nr_cpus < 1 || nr_cpus > TDAT_MAX_CPUS)
		return -1;
	w->nr_cpus = nr_cpus;
	for (i = 0; i < nr_cpus; i++) {
		w->cpu[i].data = tmpfile();
		if (!w->cpu[i].data)
			return -1;
	}
	w->cmdlines_f = open_memstream(&w->cmdlines, &w->cmdlines_len);
	return w->cmdlines_f ? 0 : -1;
}

static inline void tdat_comm(struct tdat *w, int pid, const char *comm)
{
	fprintf(w->cmdlines_f, "%d %s\n", pid, comm);
}

static inline void tdat_flush_page(struct tdat_cpu *c)
{
	uint64_t commit = c->used;

	if (!c->used)
		return;
	memset(c->page + 16 + c->used, 0, TDAT_PAGE_DATA - c->used);
	if (c->lost) {
		/* as the kernel does: flags in commit, the count after the data */
		commit |= TDAT_MISSED_EVENTS | TDAT_MISSED_STORED;
		memcpy(c->page + 16 + c->used, &c->lost, 8);
		c->lost = 0;
	}
	memcpy(c->page + 8, &commit, 8);
	if (fwrite(c->page, TDAT_PAGE, 1, c->data) != 1)
		abort();
	c->pages++;
	c->used = 0;
}

static inline void tdat_put32(struct tdat_cpu *c, uint32_t v)
{
	memcpy(c->page + 16 + c->used, &v, 4);
	c->used += 4;
}

/* One event of @len payload bytes (common header included) at @ts on @cpu. */
static inline void tdat_event(struct tdat *w, int cpu, uint64_t ts, const void *payload,
			      uint32_t len)
{
	struct tdat_cpu *c = &w->cpu[cpu];
	/* room for the event, a time extend and a stored lost count */
	uint32_t words = (len + 3) / 4, need = 4 + words * 4 + 8 + 8;
	uint64_t delta;

	if (words > 28)
		abort();	/* larger events need the type_len 0 form */
	if (c->used && ts < c->last_ts)
		abort();	/* a CPU's events are in time order */
	if (c->used && c->used + need > TDAT_PAGE_DATA)
		tdat_flush_page(c);
	if (!c->used) {
		memcpy(c->page, &ts, 8);
		c->last_ts = ts;
	}
	delta = ts - c->last_ts;
	if (delta >> TDAT_TS_BITS) {
		tdat_put32(c, TDAT_TYPE_TIME_EXTEND |
			      (uint32_t)(delta & ((1U << TDAT_TS_BITS) - 1)) << 5);
		tdat_put32(c, (uint32_t)(delta >> TDAT_TS_BITS));
		delta = 0;
	}
	tdat_put32(c, words | (uint32_t)delta << 5);
	memset(c->page + 16 + c->used, 0, words * 4);
	memcpy(c->page + 16 + c->used, payload, len);
	c->used += words * 4;
	c->last_ts = ts;
}

/* @count events were lost on @cpu before its next event (starts a page). */
static inline void tdat_lost(struct tdat *w, int cpu, uint64_t count)
{
	tdat_flush_page(&w->cpu[cpu]);
	w->cpu[cpu].lost = count;
}

static inline void tdat_common(uint8_t *p, uint16_t type, int pid)
{
	int32_t p32 = pid;

	memcpy(p, &type, 2);
	p[2] = 0;
	p[3] = 0;
	memcpy(p + 4, &p32, 4);
}

static inline void tdat_battery(struct tdat *w, int cpu, uint64_t ts, int pid, uint32_t seq,
				int64_t uv, int64_t ua, int64_t uah, uint32_t flags)
{
	uint8_t p[76];
	int64_t pw = uv * ua / 1000000, zero = 0;
	int32_t cap = 80, temp = 250;
	uint64_t read_ns = 20000;

	memset(p, 0, sizeof(p));
	tdat_common(p, TDAT_ID_BATTERY, pid);
	memcpy(p + 8, &seq, 4);
	memcpy(p + 16, &uv, 8);
	memcpy(p + 24, &ua, 8);
	memcpy(p + 32, &uah, 8);
	memcpy(p + 40, &pw, 8);
	memcpy(p + 48, &zero, 8);
	memcpy(p + 56, &cap, 4);
	memcpy(p + 60, &temp, 4);
	memcpy(p + 64, &read_ns, 8);
	memcpy(p + 72, &flags, 4);
	tdat_event(w, cpu, ts, p, sizeof(p));
}

/* sched_switch; @prev_state in the kernel's bits (0x1 S, 0x2 D, 0x80 I, 0x100 +) */
static inline void tdat_switch_state(struct tdat *w, int cpu, uint64_t ts, const char *prev_comm,
				     int prev_pid, int64_t prev_state, const char *next_comm,
				     int next_pid)
{
	uint8_t p[64];
	int32_t pp = prev_pid, np = next_pid, prio = 120;
	int64_t state = prev_state;

	memset(p, 0, sizeof(p));
	tdat_common(p, TDAT_ID_SWITCH, prev_pid);
	strncpy((char *)p + 8, prev_comm, 15);
	memcpy(p + 24, &pp, 4);
	memcpy(p + 28, &prio, 4);
	memcpy(p + 32, &state, 8);
	strncpy((char *)p + 40, next_comm, 15);
	memcpy(p + 56, &np, 4);
	memcpy(p + 60, &prio, 4);
	tdat_event(w, cpu, ts, p, sizeof(p));
}

static inline void tdat_switch(struct tdat *w, int cpu, uint64_t ts, const char *prev_comm,
			       int prev_pid, const char *next_comm, int next_pid)
{
	tdat_switch_state(w, cpu, ts, prev_comm, prev_pid, 0, next_comm, next_pid);
}

static inline void tdat_fork(struct tdat *w, int cpu, uint64_t ts, const char *comm, int pid,
			     int child_pid)
{
	uint8_t p[48];
	int32_t pp = pid, cp = child_pid;

	memset(p, 0, sizeof(p));
	tdat_common(p, TDAT_ID_FORK, pid);
	strncpy((char *)p + 8, comm, 15);
	memcpy(p + 24, &pp, 4);
	strncpy((char *)p + 28, comm, 15);
	memcpy(p + 44, &cp, 4);
	tdat_event(w, cpu, ts, p, sizeof(p));
}

/* task:task_newtask: @pid made @child with @clone_flags (0x10000 CLONE_THREAD) */
static inline void tdat_newtask(struct tdat *w, int cpu, uint64_t ts, int pid, int child,
				const char *comm, uint64_t clone_flags)
{
	uint8_t p[48];
	int32_t c = child;

	memset(p, 0, sizeof(p));
	tdat_common(p, TDAT_ID_NEWTASK, pid);
	memcpy(p + 8, &c, 4);
	strncpy((char *)p + 12, comm, 15);
	memcpy(p + 32, &clone_flags, 8);
	tdat_event(w, cpu, ts, p, 42);
	w->task_events = 1;
}

static inline void tdat_exit(struct tdat *w, int cpu, uint64_t ts, const char *comm, int pid)
{
	uint8_t p[32];
	int32_t pp = pid, prio = 120;

	memset(p, 0, sizeof(p));
	tdat_common(p, TDAT_ID_EXIT, pid);
	strncpy((char *)p + 8, comm, 15);
	memcpy(p + 24, &pp, 4);
	memcpy(p + 28, &prio, 4);
	tdat_event(w, cpu, ts, p, sizeof(p));
}

/* A trace_marker write (at most 90 bytes of text) */
static inline void tdat_print(struct tdat *w, int cpu, uint64_t ts, int pid, const char *text)
{
	uint8_t p[112];
	size_t len = strlen(text);
	uint64_t ip = 0xffffffff81000000ULL;

	if (len > 90)
		abort();
	memset(p, 0, sizeof(p));
	tdat_common(p, TDAT_ID_PRINT, pid);
	memcpy(p + 8, &ip, 8);
	memcpy(p + 16, text, len);
	p[16 + len] = '\n';
	tdat_event(w, cpu, ts, p, 16 + len + 2);
}

static inline void tdat_u32(FILE *f, uint32_t v)
{
	fwrite(&v, 4, 1, f);
}

static inline void tdat_u64(FILE *f, uint64_t v)
{
	fwrite(&v, 8, 1, f);
}

static inline void tdat_blob64(FILE *f, const char *s, size_t len)
{
	tdat_u64(f, len);
	fwrite(s, 1, len, f);
}

/* A powerpin event's format, its name after "name: " with @prefix. */
static inline void tdat_powerpin_format(FILE *f, const char *fmt, const char *prefix)
{
	size_t at = strlen("name: "), plen = prefix ? strlen(prefix) : 0;

	tdat_u64(f, strlen(fmt) + plen);
	fwrite(fmt, 1, at, f);
	fwrite(prefix ? prefix : "", 1, plen, f);
	fwrite(fmt + at, 1, strlen(fmt) - at, f);
}

/* Write the whole file to @path; frees the writer. */
/* An instance's "flyrecord", CPU offsets and pages, at the end of @f. */
static inline void tdat_write_instance(struct tdat *w, FILE *f, long option_at)
{
	struct tdat *in = w->instance;
	uint64_t at, off;
	char buf[65536];
	size_t n;
	int i;

	fseek(f, 0, SEEK_END);
	at = ftell(f);
	for (i = 0; i < in->nr_cpus; i++)
		tdat_flush_page(&in->cpu[i]);
	fwrite("flyrecord", 1, 10, f);
	off = (at + 10 + 16 * in->nr_cpus + TDAT_PAGE - 1) / TDAT_PAGE * TDAT_PAGE;
	for (i = 0; i < in->nr_cpus; i++) {
		tdat_u64(f, off);
		tdat_u64(f, in->cpu[i].pages * TDAT_PAGE);
		off += in->cpu[i].pages * TDAT_PAGE;
	}
	fseek(f, (ftell(f) + TDAT_PAGE - 1) / TDAT_PAGE * TDAT_PAGE, SEEK_SET);
	for (i = 0; i < in->nr_cpus; i++) {
		rewind(in->cpu[i].data);
		while ((n = fread(buf, 1, sizeof(buf), in->cpu[i].data)) > 0)
			fwrite(buf, 1, n, f);
		fclose(in->cpu[i].data);
	}
	fclose(in->cmdlines_f);
	free(in->cmdlines);
	/* the option's offset, now known */
	fseek(f, option_at, SEEK_SET);
	tdat_u64(f, at);
}

static inline int tdat_close(struct tdat *w, const char *path)
{
	static const char magic[] = "\027\010\104tracing6";
	uint64_t off, sizes[TDAT_MAX_CPUS];
	char clock[96];
	char buf[65536];
	long option_at = 0;
	FILE *f;
	size_t n;
	int i;

	for (i = 0; i < w->nr_cpus; i++) {
		tdat_flush_page(&w->cpu[i]);
		sizes[i] = w->cpu[i].pages * TDAT_PAGE;
	}
	fclose(w->cmdlines_f);
	f = fopen(path, "w");
	if (!f)
		return -1;
	fwrite(magic, 1, sizeof(magic), f);	/* with its NUL */
	fputc(0, f);				/* little endian */
	fputc(8, f);				/* long size */
	tdat_u32(f, TDAT_PAGE);
	fwrite("header_page", 1, 12, f);
	tdat_blob64(f, tdat_header_page, strlen(tdat_header_page));
	fwrite("header_event", 1, 13, f);
	tdat_blob64(f, tdat_header_event, strlen(tdat_header_event));
	tdat_u32(f, 1);				/* ftrace events */
	tdat_blob64(f, tdat_fmt_print, strlen(tdat_fmt_print));
	tdat_u32(f, (w->extra_format ? 3 : 2) + w->task_events);	/* systems */
	if (w->task_events) {
		fwrite("task", 1, 5, f);
		tdat_u32(f, 1);
		tdat_blob64(f, tdat_fmt_newtask, strlen(tdat_fmt_newtask));
	}
	if (w->extra_format) {
		fwrite(w->extra_system ? w->extra_system : "extra", 1,
		       strlen(w->extra_system ? w->extra_system : "extra") + 1, f);
		tdat_u32(f, 1);
		tdat_blob64(f, w->extra_format, w->extra_format_len);
	}
	fwrite("sched", 1, 6, f);
	tdat_u32(f, 3);
	tdat_blob64(f, w->switch_format ? w->switch_format : tdat_fmt_switch,
		    strlen(w->switch_format ? w->switch_format : tdat_fmt_switch));
	tdat_blob64(f, tdat_fmt_fork, strlen(tdat_fmt_fork));
	tdat_blob64(f, tdat_fmt_exit, strlen(tdat_fmt_exit));
	fwrite("powerpin", 1, 9, f);
	tdat_u32(f, 2);
	tdat_powerpin_format(f, tdat_fmt_battery, w->event_prefix);
	tdat_powerpin_format(f, tdat_fmt_counter, w->event_prefix);
	tdat_u32(f, 0);				/* kallsyms */
	tdat_u32(f, w->printk ? strlen(w->printk) : 0);	/* printk formats */
	if (w->printk)
		fwrite(w->printk, 1, strlen(w->printk), f);
	tdat_blob64(f, w->cmdlines, w->cmdlines_len);
	free(w->cmdlines);
	tdat_u32(f, w->nr_cpus);
	fwrite("options  ", 1, 10, f);
	for (i = 0; i < w->nr_cpustat; i++) {
		uint16_t id = TDAT_OPTION_CPUSTAT;

		fwrite(&id, 2, 1, f);
		tdat_u32(f, strlen(w->cpustat[i]) + 1);
		fwrite(w->cpustat[i], 1, strlen(w->cpustat[i]) + 1, f);
	}
	if (w->uname) {
		uint16_t id = TDAT_OPTION_UNAME;

		fwrite(&id, 2, 1, f);
		tdat_u32(f, strlen(w->uname) + 1);
		fwrite(w->uname, 1, strlen(w->uname) + 1, f);
	}
	if (w->instance) {
		uint16_t id = TDAT_OPTION_BUFFER;

		fwrite(&id, 2, 1, f);
		tdat_u32(f, 8 + strlen(w->instance_name) + 1);
		option_at = ftell(f);
		tdat_u64(f, 0);			/* filled in by tdat_write_instance */
		fwrite(w->instance_name, 1, strlen(w->instance_name) + 1, f);
	}
	fputc(0, f);				/* option id 0: end */
	fputc(0, f);
	fwrite("flyrecord", 1, 10, f);
	/* then the clock, "[local]", as a sized string after the offsets */
	snprintf(clock, sizeof(clock), "[%s]", w->clock ? w->clock : "local");
	off = ftell(f) + 16 * w->nr_cpus + 8 + strlen(clock);
	off = (off + TDAT_PAGE - 1) / TDAT_PAGE * TDAT_PAGE;
	for (i = 0; i < w->nr_cpus; i++) {
		w->cpu[i].file_offset = off;
		tdat_u64(f, off);
		tdat_u64(f, sizes[i]);
		off += sizes[i];
	}
	tdat_blob64(f, clock, strlen(clock));
	fseek(f, (ftell(f) + TDAT_PAGE - 1) / TDAT_PAGE * TDAT_PAGE, SEEK_SET);
	for (i = 0; i < w->nr_cpus; i++) {
		rewind(w->cpu[i].data);
		while ((n = fread(buf, 1, sizeof(buf), w->cpu[i].data)) > 0)
			fwrite(buf, 1, n, f);
		fclose(w->cpu[i].data);
	}
	if (w->instance)
		tdat_write_instance(w, f, option_at);
	if (fclose(f))
		return -1;
	fuzz_seed_file("tracedat", path);
	fuzz_seed_file("report", path);
	return 0;
}

#endif
