// SPDX-License-Identifier: GPL-2.0
/* Default paths for Linux and Android, and Android's logd protocol. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>

#include "platform.h"

#define LINUX_CONFIG	"/etc/powerpin/powerpind.conf"
#define LINUX_SPOOL	"/var/lib/powerpin/spool"
/* the home when PP_ANDROID_DIR is a file: the binary pushed to /data/local/tmp/ */
#define ANDROID_ALT	PP_ANDROID_DIR ".d"

bool pp_on_android(void)
{
	const char *root = getenv("ANDROID_ROOT");

	return (root && *root) || !access("/system/build.prop", F_OK);
}

/* Whether powerpin's Android home moved aside: PP_ANDROID_DIR is a file. */
static bool android_home_moved(void)
{
	struct stat st;

	return !stat(PP_ANDROID_DIR, &st) && !S_ISDIR(st.st_mode);
}

const char *pp_android_dir(void)
{
	return android_home_moved() ? ANDROID_ALT : PP_ANDROID_DIR;
}

const char *pp_default_config(void)
{
	if (!pp_on_android())
		return LINUX_CONFIG;
	return android_home_moved() ? ANDROID_ALT "/powerpind.conf" : PP_ANDROID_DIR "/powerpind.conf";
}

const char *pp_run_dir(void)
{
	if (!pp_on_android())
		return "/run/powerpin";
	return android_home_moved() ? ANDROID_ALT "/run" : PP_ANDROID_DIR "/run";
}

const char *pp_default_spool(void)
{
	if (!pp_on_android())
		return LINUX_SPOOL;
	return android_home_moved() ? ANDROID_ALT "/spool" : PP_ANDROID_DIR "/spool";
}

const char *pp_tmp_dir(void)
{
	const char *dir = getenv("TMPDIR");

	if (dir && *dir)
		return dir;
	if (!pp_on_android())
		return "/tmp";
	/* the phone's shell may be the first to come: make it, for root and shell */
	dir = android_home_moved() ? ANDROID_ALT "/tmp" : PP_ANDROID_DIR "/tmp";
	pp_mkdirs(dir, 01777);
	return dir;
}

const char *pp_perf_map_dir(void)
{
	return pp_on_android() ? "/data/local/tmp" : "/tmp";
}

/* mkdir @dir, with @mode whole (the umask takes nothing), unless it is one */
static int make_dir(const char *dir, unsigned int mode)
{
	struct stat st;

	if (!mkdir(dir, mode))
		return chmod(dir, mode);
	if (errno != EEXIST || stat(dir, &st))
		return -1;
	if (!S_ISDIR(st.st_mode)) {
		errno = ENOTDIR;
		return -1;
	}
	return 0;
}

int pp_dir_check(const char *dir, char *msg, size_t len)
{
	struct stat st;

	if (stat(dir, &st) || S_ISDIR(st.st_mode))
		return 0;
	snprintf(msg, len,
		 "%s is a file, not powerpin's directory: move it away, or give --config "
		 "and --spool elsewhere and TMPDIR for the temporary files",
		 dir);
	return -1;
}

int pp_mkdirs(const char *path, unsigned int mode)
{
	char buf[PATH_MAX], *p;

	if (!*path) {
		errno = ENOENT;
		return -1;
	}
	if (snprintf(buf, sizeof(buf), "%s", path) >= (int)sizeof(buf)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	for (p = strchr(buf + 1, '/'); p && p[strspn(p, "/")]; p = strchr(p + 1, '/')) {
		*p = '\0';
		if (make_dir(buf, 0755))
			return -1;
		*p = '/';
	}
	return make_dir(buf, mode);
}

FILE *pp_tmpfile(void)
{
	char path[PATH_MAX];
	FILE *fp;
	int fd;

	if (snprintf(path, sizeof(path), "%s/powerpin.XXXXXX", pp_tmp_dir()) >=
	    (int)sizeof(path)) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	fd = mkostemp(path, O_CLOEXEC);
	if (fd < 0)
		return NULL;
	unlink(path);
	fp = fdopen(fd, "w+");
	if (!fp) {
		int e = errno;

		close(fd);
		errno = e;
	}
	return fp;
}

static void put_le16(unsigned char *p, uint16_t v)
{
	p[0] = v & 0xff;
	p[1] = v >> 8;
}

static void put_le32(unsigned char *p, uint32_t v)
{
	put_le16(p, v & 0xffff);
	put_le16(p + 2, v >> 16);
}

size_t pp_logd_format(void *buf, size_t len, const struct timespec *realtime,
		      uint16_t tid, int prio, const char *tag, const char *msg)
{
	size_t tag_len = strlen(tag) + 1, msg_len = strlen(msg) + 1;
	size_t fixed = PP_LOGD_HEADER_BYTES + 1 + tag_len;
	unsigned char *p = buf;

	if (len > PP_LOGD_MAX_BYTES + PP_LOGD_HEADER_BYTES)
		len = PP_LOGD_MAX_BYTES + PP_LOGD_HEADER_BYTES;
	if (len < fixed + 1)
		return 0;
	if (fixed + msg_len > len)
		msg_len = len - fixed;
	p[0] = 0;			/* LOG_ID_MAIN */
	put_le16(p + 1, tid);
	put_le32(p + 3, (uint32_t)realtime->tv_sec);
	put_le32(p + 7, (uint32_t)realtime->tv_nsec);
	p[PP_LOGD_HEADER_BYTES] = prio;
	memcpy(p + PP_LOGD_HEADER_BYTES + 1, tag, tag_len);
	memcpy(p + fixed, msg, msg_len - 1);
	p[fixed + msg_len - 1] = '\0';
	return fixed + msg_len;
}

int pp_logd_open(const char *path)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(sun.sun_path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	strcpy(sun.sun_path, path);
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun))) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

int pp_logd_write(int fd, int prio, const char *tag, const char *msg)
{
	unsigned char buf[PP_LOGD_HEADER_BYTES + PP_LOGD_MAX_BYTES];
	struct timespec now;
	size_t n;

	clock_gettime(CLOCK_REALTIME, &now);
	n = pp_logd_format(buf, sizeof(buf), &now, (uint16_t)syscall(SYS_gettid),
			   prio, tag, msg);
	if (!n) {
		errno = EINVAL;
		return -1;
	}
	return send(fd, buf, n, MSG_NOSIGNAL) == (ssize_t)n ? 0 : -1;
}

static bool logd_gone(int e)
{
	return e == ECONNREFUSED || e == ENOTCONN || e == ENOENT || e == EPIPE;
}

/* One line "PRIO TAG: MSG" appended to @keep, moved aside when it is full. */
static int logd_keep(const char *keep, int prio, const char *tag, const char *msg)
{
	char old[PATH_MAX];
	struct stat st;
	FILE *f;
	int ret;

	if (!stat(keep, &st) && st.st_size > PP_LOGD_KEEP_BYTES &&
	    snprintf(old, sizeof(old), "%s.1", keep) < (int)sizeof(old))
		rename(keep, old);
	f = fopen(keep, "ae");
	if (!f)
		return -1;
	fprintf(f, "%c %s: %s\n", "??VDIWEF"[prio & 7], tag, msg);
	ret = fclose(f);
	return ret ? -1 : 1;
}

int pp_logd_send(struct pp_logd *l, int prio, const char *tag, const char *msg)
{
	int e;

	if (l->fd >= 0 && !pp_logd_write(l->fd, prio, tag, msg))
		return 0;
	e = l->fd >= 0 ? errno : ENOTCONN;
	if (logd_gone(e)) {
		if (l->fd >= 0)
			close(l->fd);
		l->fd = pp_logd_open(l->path);
		if (l->fd >= 0 && !pp_logd_write(l->fd, prio, tag, msg))
			return 0;
	}
	if (!l->keep)
		return -1;
	return logd_keep(l->keep, prio, tag, msg);
}
