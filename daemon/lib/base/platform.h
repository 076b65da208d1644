/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where powerpin keeps its files on the system it runs on, and where
 * powerpind's messages go.  Every default path of the tools comes from
 * here, so that a phone (no /etc, /tmp, /var or /usr) and a Linux machine
 * each get their own, and nothing needs more than the kernel's /proc,
 * /sys and /dev.
 */
#ifndef POWERPIN_PLATFORM_H
#define POWERPIN_PLATFORM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

/* Android's own test, as its tools make it: $ANDROID_ROOT or /system/build.prop. */
bool pp_on_android(void);

/*
 * Android's home of everything powerpin writes by default: PP_ANDROID_DIR,
 * or PP_ANDROID_DIR ".d" when that name is a file (the powerpin binary
 * pushed as `adb push powerpin /data/local/tmp/`, the habit from pintool
 * and simpleperf), so the defaults never collide with it.
 */
#define PP_ANDROID_DIR		"/data/local/tmp/powerpin"
const char *pp_android_dir(void);

/*
 * The defaults, for this system: powerpind's configuration, its runtime
 * directory and spool, the
 * directory of temporary files ($TMPDIR when set, else /tmp, or
 * pp_android_dir()/tmp on Android) and where a JIT's perf-PID.map files
 * are looked for (/tmp, or /data/local/tmp on Android, as the agent
 * writes them there).  Static strings.
 */
const char *pp_default_config(void);
/* where the capture lock lives: /run/powerpin, or pp_android_dir()/run */
const char *pp_run_dir(void);
const char *pp_default_spool(void);
const char *pp_tmp_dir(void);
const char *pp_perf_map_dir(void);

/*
 * Whether @dir (pp_android_dir() for the defaults) can be powerpin's
 * directory: 0 when it is one or does not exist yet; -1 with a message
 * in @msg when it is something else.
 */
int pp_dir_check(const char *dir, char *msg, size_t len);

/* mkdir -p @path with @mode for what it creates; 0 or -1 with errno. */
int pp_mkdirs(const char *path, unsigned int mode);

/*
 * A new unlinked temporary file in pp_tmp_dir() (made when missing, as on
 * a phone), open for reading and writing: what tmpfile(3) does, but
 * tmpfile(3) only knows /tmp.  NULL with errno on failure.
 */
FILE *pp_tmpfile(void);

/*
 * Android's logger: one datagram per message to logd's /dev/socket/logdw
 * (what `logcat` shows), in liblog's format: a packed header (log id,
 * thread id, realtime seconds and nanoseconds, little-endian), then the
 * priority byte, the tag and the message, each NUL-terminated.
 */
#define PP_LOGD_SOCKET		"/dev/socket/logdw"
#define PP_LOGD_HEADER_BYTES	11
#define PP_LOGD_MAX_BYTES	4068	/* LOGGER_ENTRY_MAX_PAYLOAD */
enum pp_logd_prio {
	PP_LOGD_DEBUG = 3,
	PP_LOGD_INFO = 4,
	PP_LOGD_WARN = 5,
	PP_LOGD_ERROR = 6,
};

/*
 * Lay out one entry of the main log in @buf (@len bytes); a message too
 * long for logd is cut.  Returns the bytes used, or 0 if @len cannot hold
 * the header, the tag and an empty message.
 */
size_t pp_logd_format(void *buf, size_t len, const struct timespec *realtime,
		      uint16_t tid, int prio, const char *tag, const char *msg);
/* A datagram socket connected to @path (PP_LOGD_SOCKET), or -1 with errno. */
int pp_logd_open(const char *path);
/* Send one entry now; 0 or -1 with errno (logd gone, socket full). */
int pp_logd_write(int fd, int prio, const char *tag, const char *msg);

/*
 * A logd connection that outlives logd's restarts: a write that finds the
 * socket gone (ECONNREFUSED, ENOTCONN, ENOENT, EPIPE) reconnects and sends
 * again once, as liblog does; one that still fails (logd down, or full:
 * EAGAIN) goes to @keep, a file of the last lines (moved to @keep.1 past
 * PP_LOGD_KEEP_BYTES), so that they stay readable after daemon().
 */
#define PP_LOGD_KEEP_BYTES	(64 << 10)
struct pp_logd {
	const char *path;	/* PP_LOGD_SOCKET */
	const char *keep;	/* the file of lines logd did not take; NULL: none */
	int fd;			/* -1: not connected */
};
/* 0 sent to logd; 1 kept in the file; -1 with errno: neither. */
int pp_logd_send(struct pp_logd *l, int prio, const char *tag, const char *msg);

#endif
