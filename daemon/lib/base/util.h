/* SPDX-License-Identifier: GPL-2.0 */
/* Small helpers shared by the powerpin library and its front ends. */
#ifndef POWERPIN_UTIL_H
#define POWERPIN_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "output.h"

/*
 * Read all of @path, a regular file of at most @max bytes, into a new
 * buffer (*@buf, always allocated, *@len bytes; free() it).  Returns 0, or
 * -1 with errno: EISDIR, EINVAL (a device, FIFO or socket: opened without
 * blocking and not read), EFBIG (larger than @max, also when it grows past
 * @max while being read), or what open/read/malloc said.
 */
int read_bounded_file(const char *path, size_t max, void **buf, size_t *len);

/*
 * Parse an unsigned number with an optional K/M/G suffix (powers of 1024):
 * decimal, or hexadecimal after "0x", as Android's ParseUint (and so
 * pintool) reads one.  A leading zero is decimal: "010" is ten, never
 * octal eight.  Returns 0, or -1 with errno = EINVAL/ERANGE.
 */
int parse_size(const char *s, unsigned long long *out);

/*
 * @bytes as people read sizes (du -h, fincore): under 1024 as is, else in
 * K, M, G, T, P, E of 1024, one decimal below 10 ("1.5K", "4K", "12M",
 * rounded half up).  Returns @buf (at least 8 bytes).
 */
char *format_size_human(unsigned long long bytes, char *buf, size_t len);

/*
 * Write @s as a JSON string literal: at most @len bytes, stopping at a NUL
 * (pass SIZE_MAX for a plain C string).  Control characters are escaped,
 * and bytes that are not well-formed UTF-8 (a task name the kernel cut at
 * 16 bytes inside a character, say) become U+FFFD, so strict parsers
 * accept the output.  The outputs are flat objects, so escaping is the
 * only part of JSON the project needs; no library for it.
 */
void json_string(FILE *out, const char *s, size_t len);

/* @s as HTML text: <, > and & as entities (not for attribute values). */
void html_text(FILE *out, const char *s);

/*
 * Wrapped commands (record -- CMD, pin capture -- CMD) end the way a shell
 * reports them, as `time` and `perf record` do.
 *
 * wait_exit_status: the status for wait status @wstatus: the command's exit
 * code, or 128 + N when signal N ended it.
 *
 * exec_command, in a child after fork(): run @argv from $PATH; when that
 * fails, say why on stderr (after "@who: ") and _exit(127) if the command
 * was not found, 126 if it was found but cannot be run.
 */
#define EXIT_NOT_FOUND		127
#define EXIT_NOT_EXECUTABLE	126
int wait_exit_status(int wstatus);
void exec_command(const char *who, char *const argv[]) __attribute__((noreturn));

/*
 * The last line of a usage error, after the message that says what is
 * wrong: "Try '@cmd --help' for more information." (@cmd as "powerpin
 * report").  Returns 2, the exit status of a usage error.
 */
int usage_error(const char *cmd);

/*
 * The one rule for --json in every command: "--json FILE" writes the JSON
 * to FILE, "-" being standard output (where it takes the place of the
 * text); "--json" followed by nothing, by another option or by "--" is
 * "--json -".  Rewrites such a "--json" (and "-j" where @short_j: the
 * command's -j is --json) in @argv to "--json=-", for a getopt_long()
 * that gives --json a required argument.  Stops at "--".
 */
void json_option_normalize(int argc, char **argv, bool short_j);

/*
 * A --json FILE of command @cmd ("powerpin status"), checked before any
 * work (output_check()): 0; 2 after a usage message for ""; 1 after a
 * message for an output that could not be written.
 */
int json_output_check(const char *cmd, const char *name);
/* Open it (output_open()): 0, or 1 after a message. */
int json_output_open(const char *cmd, const char *name, struct output_file *out);
/* Commit it (output_commit()): 0, or 1 after a message. */
int json_output_commit(const char *cmd, struct output_file *out);

/*
 * Standard output at the end of a program, as coreutils' close_stdout():
 * flush and close it; when that fails, or a write to it failed before,
 * print one message ("@who: write error on standard output: REASON") and
 * return 1 if @status was 0.  Otherwise return @status.  A standard output
 * closed from the start (>&-) with nothing written to it is no error.  A
 * failure already returned by output_commit() or output_abort() for
 * standard output is the caller's to report, and not reported again.
 */
int close_stdout(const char *who, int status);

/*
 * fflush(stdout), keeping the reason of a failure for close_stdout()'s
 * message (stdio forgets it); 0 or EOF.  stdout_error() keeps @e, the
 * errno of a failed write to stdout, for the same message.
 */
int flush_stdout(void);
void stdout_error(int e);

/*
 * A new NUL-terminated copy of at most @len bytes of @s (stopping at a
 * NUL), with what is not well-formed UTF-8 replaced by U+FFFD as in
 * json_string(); NULL when out of memory.  For names written into binary
 * formats whose readers expect UTF-8 strings (Perfetto's protobuf).
 */
char *utf8_sanitize(const char *s, size_t len);

/*
 * Base64 (RFC 4648, with padding) written as it comes, in lines of at most
 * 4096 characters: b64_put() any number of times, then b64_end().
 */
struct b64_stream {
	FILE *out;
	unsigned char pending[3];
	int npending;
	size_t column;
};

void b64_put(struct b64_stream *b, const void *data, size_t len);
void b64_end(struct b64_stream *b);

#endif
