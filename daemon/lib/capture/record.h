/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Capture writer: reads the per-CPU raw ring buffers with libtracefs and
 * writes a trace-cmd trace.dat through libtracecmd (docs/capture-format.md).
 * No policy here: when to start and stop is the caller's business.
 */
#ifndef POWERPIN_RECORD_H
#define POWERPIN_RECORD_H

#include <stdbool.h>
#include <stdint.h>

struct tracefs_instance;

/* The events a capture wants, as "system/event" ("system/" = all of it). */
extern const char *const pp_capture_events[];

/* Saved enable state of pp_capture_events, to put back later. */
struct pp_events_saved;

/*
 * Enable every capture event, noting each event's own enable state first
 * (a system such as powerpin is taken event by event), so that
 * pp_events_restore() disables exactly the events that were off.  Events
 * that do not exist are skipped; *missing_powerpin is set when the powerpin
 * system is absent (module not loaded).  Returns NULL with errno on failure
 * (EACCES: no tracefs access).
 */
struct pp_events_saved *pp_events_enable(bool *missing_powerpin);
void pp_events_restore(struct pp_events_saved *saved);

struct pp_capture;

struct pp_capture_stats {
	uint64_t bytes;		/* raw ring-buffer bytes captured */
	uint64_t lost_events;	/* overrun + dropped during the capture */
	uint64_t duration_ns;	/* CLOCK_MONOTONIC, start to finish */
	int64_t samples;	/* given by the caller, -1 unknown */
};

/*
 * Start a capture into @path (created atomically at pp_capture_finish).
 * Does not touch tracing_on or events; the caller does that around it.
 * @compression is libtracecmd's: PP_CAPTURE_COMPRESSION ("any", the best
 * it has, zstd before zlib; none if it has neither), "none", or one by
 * name ("zstd", "zlib"), which must be available.  Every libtracecmd
 * reader (trace-cmd report, powerpin report) decompresses on its own.
 * On failure returns NULL, errno set and a message in @err.
 */
#define PP_CAPTURE_COMPRESSION	"any"
struct pp_capture *pp_capture_start(const char *path, const char *compression,
				    char *err, size_t errlen);
/*
 * Move what the kernel has buffered into the capture; never blocks.
 * Returns bytes moved, or -1 with errno when writing the capture failed
 * (ENOSPC, EIO, ...).  Such an error is final: the data is incomplete, every
 * later drain returns it again and pp_capture_finish() fails with it.
 */
long pp_capture_drain(struct pp_capture *c);
/* Events lost since the start, from the kernel's per-CPU stats. */
uint64_t pp_capture_lost(struct pp_capture *c);
uint64_t pp_capture_bytes(const struct pp_capture *c);
/*
 * Drain the rest, append the data and rename the file into place.  @samples
 * goes into the summary option (-1 unknown).  Frees @c whatever happens.
 * Returns -1 with a message in @err, and leaves no file, if anything could
 * not be written, a drain error earlier in the capture included.
 */
int pp_capture_finish(struct pp_capture *c, int64_t samples,
		      struct pp_capture_stats *st, char *err, size_t errlen);
/* Drop the capture and its temporary files. */
void pp_capture_abort(struct pp_capture *c);

/*
 * One capture at a time: captures read the ring buffer destructively, so two
 * of them would split its pages between their files.  powerpind and
 * powerpin record both hold this flock while capturing.
 */
/* capture.lock in pp_run_dir(): /run/powerpin, or Android's */
#define PP_CAPTURE_LOCK_NAME "capture.lock"
/* Returns an fd holding the lock; -1 with EWOULDBLOCK if another capture
 * holds it; -1 with another errno if no lock file can be made. */
int pp_capture_lock(void);
void pp_capture_unlock(int fd);

/* Remove stale temporary files a killed capture left in @dir. */
void pp_capture_clean_dir(const char *dir);

/* Clear the capture's ring buffer (before a fresh capture). */
int pp_trace_clear(void);

/*
 * Capture into ftrace instance @name (trace-cmd record -B) rather than the
 * top-level buffer: what follows (events, clearing, the per-CPU buffers,
 * the clock and stats) is the instance's, made if it does not exist, and
 * removed again by pp_record_instance_end() if it was made here.  The
 * capture file holds the instance's events as its top buffer.  0, or -1
 * with errno.  One instance per process at a time.
 */
int pp_record_instance(const char *name);
/* The instance in use (for tracefs_trace_on() and friends), NULL the top level. */
struct tracefs_instance *pp_record_tracefs_instance(void);
void pp_record_instance_end(void);

/*
 * libtracefs mounts tracefs (or, where there is none, debugfs) by itself
 * when it finds neither mounted.  A command that puts everything back as it
 * found it calls pp_tracing_mounts_note() before its first libtracefs call
 * and pp_tracing_mounts_undo() at its end: what was mounted in between, of
 * those two types, is unmounted again (lazily: an open file keeps it alive
 * until closed).
 */
void pp_tracing_mounts_note(void);
void pp_tracing_mounts_undo(void);

#endif
