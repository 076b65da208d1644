/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Trace input readers for `powerpin report`: one callback per event the
 * report cares about, in timestamp order, from any of the formats below.
 * Nothing is buffered beyond the event being delivered, so a capture of any
 * length is read in constant memory.
 */
#ifndef POWERPIN_TRACE_INPUT_H
#define POWERPIN_TRACE_INPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum trace_format {
	TRACE_FORMAT_UNKNOWN,
	TRACE_FORMAT_TEXT,	/* ftrace `trace`/`trace_pipe`, trace-cmd report, systrace */
	TRACE_FORMAT_TRACEDAT,	/* trace-cmd record output (and powerpin record captures) */
};

enum trace_event_kind {
	TRACE_EV_POWER,		/* powerpin:powerpin_battery (or battery), the seed's write_power_ringbuffer */
	TRACE_EV_SWITCH,	/* sched:sched_switch */
	TRACE_EV_MARK,		/* trace_marker write (atrace B/E/C, powerpin markers) */
	TRACE_EV_COUNTER,	/* powerpin:powerpin_counter or counter (track_name, counter_value) */
	TRACE_EV_LOST,		/* the ring buffer dropped events before this point */
	TRACE_EV_FORK,		/* sched:sched_process_fork */
	TRACE_EV_EXIT,		/* sched:sched_process_exit */
	/*
	 * task:task_newtask: read by the readers for thread groups
	 * (trace_threads.h), never delivered to ops->event.
	 */
	TRACE_EV_NEWTASK,
	TRACE_EV_CPU_FREQ,	/* power:cpu_frequency (a CPU's new frequency) */
};

/* Which of the power fields the source carried. */
#define TRACE_POWER_HAS_CHARGE	(1U << 0)
#define TRACE_POWER_HAS_SEQ	(1U << 1)
#define TRACE_POWER_HAS_FLAGS	(1U << 2)
#define TRACE_POWER_HAS_CAPACITY	(1U << 3)
#define TRACE_POWER_HAS_TEMP		(1U << 4)
#define TRACE_POWER_HAS_CURRENT_AVG	(1U << 5)
/*
 * Not a sample: a --from/--to window's edge (report_filter.c), at ts_ns,
 * between two samples.  Its values are those of the sample on the other
 * side of the edge, at edge_ns; the report prices the edge's partial
 * interval as it prices a slice's, with power interpolated between them.
 */
#define TRACE_POWER_WINDOW_EDGE	(1U << 6)

/*
 * A task's state as sched_switch prints prev_state, one bit per letter,
 * whatever the kernel's own bit layout (which changed in 4.8 and 4.14).
 * 0 is R (runnable); TRACE_TASK_PREEMPTED is R's "+".
 */
#define TRACE_TASK_S		(1U << 0)	/* interruptible sleep */
#define TRACE_TASK_D		(1U << 1)	/* uninterruptible sleep */
#define TRACE_TASK_T		(1U << 2)	/* stopped */
#define TRACE_TASK_t		(1U << 3)	/* traced */
#define TRACE_TASK_X		(1U << 4)	/* exit dead */
#define TRACE_TASK_Z		(1U << 5)	/* zombie */
#define TRACE_TASK_P		(1U << 6)	/* parked */
#define TRACE_TASK_I		(1U << 7)	/* idle (D without load) */
#define TRACE_TASK_x		(1U << 8)	/* dead (before 4.14) */
#define TRACE_TASK_K		(1U << 9)	/* wakekill (before 4.14) */
#define TRACE_TASK_W		(1U << 10)	/* waking (before 4.14) */
#define TRACE_TASK_N		(1U << 11)	/* noload (before 4.14) */
#define TRACE_TASK_PREEMPTED	(1U << 12)	/* "R+" */
#define TRACE_TASK_UNKNOWN	(1U << 15)	/* not printed, or a letter not above */

/* "S", "R+", "D|K", "I" -> TRACE_TASK_* bits (at most @len bytes). */
unsigned int trace_task_state_parse(const char *s, size_t len);

struct trace_event {
	enum trace_event_kind kind;
	uint64_t ts_ns;
	int cpu;
	int pid;		/* task that wrote the event */
	int tgid;		/* its thread group, or -1 when the input does not say */
	const char *comm;	/* its name, or NULL */
	union {
		struct {
			int64_t voltage_uv;
			int64_t current_ua;
			int64_t charge_uah;
			uint32_t seq;
			uint32_t flags;		/* POWERPIN_SAMPLE_* */
			unsigned int has;	/* TRACE_POWER_HAS_* */
			int64_t current_avg_ua;
			int32_t capacity;	/* percent */
			int32_t temp_dc;	/* tenths of a degree Celsius */
			uint64_t edge_ns;	/* TRACE_POWER_WINDOW_EDGE */
		} power;
		struct {
			int prev_pid;
			int next_pid;
			const char *prev_comm;
			const char *next_comm;
			int prev_prio, next_prio;	/* -1 when the input does not say */
			unsigned int prev_state;	/* TRACE_TASK_* */
		} sw;
		struct {
			int parent_pid;
			int child_pid;
			const char *parent_comm;
			const char *child_comm;
		} fork;
		struct {
			int pid;
			int prio;		/* -1 when the input does not say */
			const char *comm;
		} exit;
		struct {
			int pid;		/* the new task; ev->pid made it */
			uint64_t clone_flags;
		} newtask;
		struct {
			const char *text;	/* not NUL-terminated past len */
			size_t len;
		} mark;
		struct {
			const char *track;
			int64_t value;
		} counter;
		struct {
			uint64_t count;		/* 0 when the input does not say how many */
		} lost;
		struct {
			int cpu;		/* cpu_id: the CPU whose frequency changed */
			unsigned int khz;	/* state: its frequency from now on */
		} freq;
	};
};

/*
 * The clock of the input's timestamps and, when the capture recorded one, a
 * reading of it paired with CLOCK_BOOTTIME and CLOCK_REALTIME taken at the
 * same moment (docs/capture-format.md).
 */
struct trace_clock_pair {
	uint64_t trace_ns;	/* the trace clock ... */
	uint64_t boottime_ns;	/* ... and CLOCK_BOOTTIME at the same moment */
	uint64_t realtime_ns;	/* ... and CLOCK_REALTIME (0: not recorded) */
};

struct trace_clock_info {
	char name[16];		/* trace_clock: "local", "boot", "mono", ...; "" unknown */
	bool have_pair;
	uint64_t trace_ns;	/* the first pair: the trace clock ... */
	uint64_t boottime_ns;	/* ... and CLOCK_BOOTTIME at the same moment */
	uint64_t realtime_ns;	/* ... and CLOCK_REALTIME (0: not recorded) */
	/*
	 * The pairs taken during the capture, the first included, in trace
	 * clock order (drift and suspend between the clocks show there); valid
	 * during the callback only.  nr_pairs is 0 without a pair.
	 */
	const struct trace_clock_pair *pairs;
	size_t nr_pairs;
};

/*
 * The kernel the capture was made on, as uname(2) named it: a trace.dat's
 * UNAME option ("SYSNAME NODENAME RELEASE MACHINE", written by
 * `trace-cmd record` and `powerpin record`).  Fields the input does not
 * give are "".
 */
struct trace_kernel_info {
	char sysname[65];	/* "Linux" */
	char release[65];	/* "6.12.38+deb13-amd64" */
	char machine[65];	/* "x86_64", "aarch64", ... */
};

/*
 * Read a UNAME option's text into @k: its first word is the system's name,
 * its last two the release and the machine (a host name between them is
 * not kept).  Returns 0, or -1 when @s has fewer than three words.
 */
int trace_kernel_parse(const char *s, struct trace_kernel_info *k);

struct trace_input_ops {
	/* Return 0 to go on, non-zero to stop reading (returned by trace_input_read). */
	int (*event)(const struct trace_event *ev, void *arg);
	/* Number of CPUs as soon as the input tells it (may not be called). */
	void (*cpus)(int nr_cpus, void *arg);
	/* Thread names as the input learns them (may be called repeatedly). */
	void (*comm)(int pid, const char *comm, void *arg);
	/*
	 * @pid's thread group, before the first event that names @pid once
	 * the input says it (trace_threads.h: what the kernel recorded); again
	 * if it changes.  Never called for a thread whose group is unknown.
	 */
	void (*tgid)(int pid, int tgid, void *arg);
	/*
	 * Events the kernel's ring buffer dropped or overwrote during the
	 * capture, from the counters a trace.dat stores (may not be called).
	 */
	void (*kernel_lost)(uint64_t lost, void *arg);
	/* The input's clock, before the first event (may not be called). */
	void (*clock)(const struct trace_clock_info *clock, void *arg);
	/* The capture's kernel, before the first event, when the input names it. */
	void (*kernel)(const struct trace_kernel_info *kernel, void *arg);
	/*
	 * Text: the last line, number @lineno, has no newline and is not a
	 * whole event, so its writer was stopped inside it (`... current_ua=-6`
	 * cut from -600000): it is left out (may be NULL).
	 */
	void (*cut_line)(unsigned long lineno, void *arg);
	/*
	 * A trace.dat with several buffers (trace-cmd record -B NAME): the
	 * ftrace instance to read instead of the top one; NULL the top one.
	 * Text has one buffer: naming one is an error.
	 */
	const char *instance;
};

/*
 * Sniff @path's content.  Returns the format, or TRACE_FORMAT_UNKNOWN with a
 * reason in @err (not a regular file, empty file, binary data, not a trace).
 * The input is read from its start again after sniffing, so it must be a
 * regular file; a front end copies a pipe or FIFO to one first.
 */
enum trace_format trace_input_detect(const char *path, char *err, size_t errlen);

/*
 * The same judgement on the first @n bytes of an input (at most
 * TRACE_SNIFF_BYTES are looked at), named @name in the message: a front end
 * copying a pipe can refuse binary data (/dev/zero) at its first block.
 */
#define TRACE_SNIFF_BYTES	4096
enum trace_format trace_input_sniff(const void *buf, size_t n, const char *name, char *err,
				    size_t errlen);

/*
 * Read every event of @path in timestamp order.  Returns 0, the non-zero
 * value a callback returned, or -1 with a message in @err (unreadable,
 * truncated, timestamps going backwards, ...).
 */
int trace_input_read(const char *path, const struct trace_input_ops *ops, void *arg,
		     char *err, size_t errlen);

/*
 * True when the trace.dat event format in @buf (@size bytes) has an array
 * field whose '[' is followed by nothing libtraceevent can read (the end of
 * the format, or a byte that is not printable): libtraceevent 1.7.1-1.8.4
 * crashes on it.  The trace.dat reader checks every format the file holds
 * before the library parses it, and refuses the file when one is unsafe.
 */
bool trace_format_unsafe(const char *buf, size_t size);

/*
 * True when the printk formats section @buf (NUL-terminated) has a line
 * libtraceevent would read past: no "ADDRESS : FORMAT" shape, or a format
 * shorter than 3 bytes.  The trace.dat reader hands the library only the
 * other lines (they name the strings behind events' %s pointers, which
 * the report never prints).
 */
bool trace_printk_formats_unsafe(const char *buf);

/* The readers behind trace_input_read, for tests. */
int trace_input_read_text(const char *path, const struct trace_input_ops *ops, void *arg,
			  char *err, size_t errlen);
int trace_input_read_tracedat(const char *path, const struct trace_input_ops *ops,
			      void *arg, char *err, size_t errlen);

/*
 * Parse one line of ftrace text.  Returns 1 and fills @ev for an event the
 * report uses, 2 for another event (only ts_ns, cpu, pid are filled), 0 for
 * a line to skip (comment, header), -1 for a line that is not ftrace text
 * or an event of ours that is malformed, and for a line the reader must
 * refuse: TRACE_LINE_TIME_RANGE (a timestamp past 2^64 - 1 ns, which would
 * otherwise wrap round to a small time) or TRACE_LINE_VALUE_RANGE (a number
 * of a power or counter event past int64).  String pointers in @ev point
 * into @line, which is modified.
 */
#define TRACE_LINE_TIME_RANGE	(-2)
#define TRACE_LINE_VALUE_RANGE	(-3)
int trace_text_parse_line(char *line, struct trace_event *ev);

/*
 * Lines longer than this are refused with their number: no ftrace line
 * comes near it (a trace_marker write is at most a page), and an endless
 * "line" (a run of NUL bytes, /dev/zero) must not be read into memory.
 */
#define TRACE_TEXT_LINE_MAX	(64 * 1024)

#endif
