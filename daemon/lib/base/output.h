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
 *
 * An output is never one of the command's inputs: output_add_input()
 * names them, and output_open() refuses any output that leads to the same
 * file (device and inode), by whatever name, link or descriptor.
 *
 * Temporary files are never left behind by a signal: while one exists,
 * every signal whose default action ends the process (SIGHUP, SIGINT,
 * SIGQUIT, SIGPIPE, SIGTERM, SIGUSR1/2, SIGALRM, SIGXFSZ, SIGXCPU, ...,
 * those whose action is still the default) removes every temporary file
 * of the process and then ends it as the signal would have.  Only
 * SIGKILL can leave one.
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
 * ELOOP, EBADF for a descriptor that is not open for writing, EEXIST for
 * an input, or what open/mkstemp/connect said) and @out zeroed.  Opening
 * a FIFO waits for its reader, as a shell's redirection does.
 */
int output_open(struct output_file *out, const char *name);

/*
 * Remember @path ("-": standard input) as an input of the command, if it
 * is a regular file: no output may then be that file.  Returns 0, or -1
 * with errno ENOMEM.  A path that cannot be looked at is not remembered
 * (reading it will say why).
 */
int output_add_input(const char *path);

/*
 * Whether output_open(@name) would be refused, checked before anything is
 * created: -1 with errno EEXIST for an input, EISDIR for a directory,
 * ENOENT or ENOTDIR for a directory that is not there, EACCES or EROFS
 * for one that cannot be written, EBADF for a descriptor not open for
 * writing; else 0.  For commands to check every output before they read
 * their input.
 */
int output_check(const char *name);

/*
 * output_check()'s first part alone: -1 with EEXIST when @name is an
 * input, else 0.  For an output in a directory the command makes later
 * (pin capture's -o DIR).
 */
int output_check_not_input(const char *name);

/* strerror(), with EEXIST worded for an output that is an input. */
const char *output_strerror(int e);

/*
 * A temporary file of another kind (record's per-CPU ring-buffer data):
 * mkostemp(@tmpl, O_CLOEXEC), kept in the same table as the outputs'
 * temporary files so that the same signals remove it.  @tmpl must stay
 * valid until output_temp_remove(@tmpl), which unlinks and forgets it.
 * Returns the descriptor, or -1 with errno (EMFILE: the table is full).
 */
int output_temp_create(char *tmpl);
void output_temp_remove(const char *path);

/*
 * Finish: flush, and for OUTPUT_REPLACE fsync and rename into place.
 * Returns 0, or -1 with errno (the temporary file is then removed and the
 * target left as it was).  @out is released either way.  A failure of
 * standard output is the caller's to report: what stdout still buffers is
 * dropped and its error cleared, so close_stdout() does not say it again.
 */
int output_commit(struct output_file *out);

/*
 * Give up: the temporary file is removed; a stream keeps what it got.
 * Standard output is flushed, and on an error treated as in output_commit().
 */
void output_abort(struct output_file *out);

/* True when @name would be standard output (checked without opening it). */
bool output_is_stdout(const char *name);

#endif
