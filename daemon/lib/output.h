/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Output files named on a command line, the way a shell's redirection would
 * treat them, and never half-written:
 *
 *   "-"                       standard output (flushed, never closed)
 *   /dev/stdout, /dev/fd/N,   that descriptor of this process, written
 *   /proc/self/fd/N           through as the caller set it up (>(...) too)
 *   an existing FIFO, tty,    opened and written through, never replaced
 *   device or socket
 *   a regular file, or a      written to a temporary file beside it and
 *   name that does not exist  renamed over it by output_commit(); after a
 *                             failure it is as it was
 *   a symlink                 followed, and its target replaced that way in
 *                             the target's directory; the link stays
 *   a directory               EISDIR
 *
 * A file replaced keeps its mode (and, for root, its owner); a new one gets
 * 0666 less the umask, as open(2) would give it.
 */
#ifndef POWERPIN_OUTPUT_H
#define POWERPIN_OUTPUT_H

#include <stdbool.h>
#include <stdio.h>

enum output_kind {
	OUTPUT_REPLACE,		/* temporary file, renamed over target */
	OUTPUT_THROUGH,		/* a stream: written as it comes */
};

struct output_file {
	FILE *fp;		/* write here */
	enum output_kind kind;
	bool is_stdout;		/* fp is stdout ("-", /dev/stdout, /dev/fd/1) */
	char *name;		/* as given, for messages */
	char *target;		/* OUTPUT_REPLACE: the file renamed over */
	char *tmp;		/* OUTPUT_REPLACE: the temporary beside it */
};

/*
 * Open @name for writing as above.  Returns 0, or -1 with errno (EISDIR,
 * ELOOP, EBADF for a descriptor that is not open for writing, or what
 * open/mkstemp/connect said) and @out zeroed.  Opening a FIFO waits for
 * its reader, as a shell's redirection does.
 */
int output_open(struct output_file *out, const char *name);

/*
 * Finish: flush, and for OUTPUT_REPLACE fsync and rename into place.
 * Returns 0, or -1 with errno (the temporary file is then removed and the
 * target left as it was).  @out is released either way.
 */
int output_commit(struct output_file *out);

/* Give up: the temporary file is removed; a stream keeps what it got. */
void output_abort(struct output_file *out);

/* True when @name would be standard output (checked without opening it). */
bool output_is_stdout(const char *name);

#endif
