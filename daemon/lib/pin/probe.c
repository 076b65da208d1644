// SPDX-License-Identifier: GPL-2.0
/* Residency probing: /dev/powerpin ioctl first, truthful mincore second. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/fsuid.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/capability.h>
#include <linux/powerpin.h>

#include "probe.h"

#define RUNS_PER_CALL	4096
#define BITMAP_BYTES	(128 * 1024)

const char *probe_method_name(enum probe_method m)
{
	switch (m) {
	case PROBE_IOCTL_RUNS:		return "ioctl-runs";
	case PROBE_IOCTL_BITMAP:	return "ioctl-bitmap";
	case PROBE_MINCORE:		return "mincore";
	default:			return "none";
	}
}

void probe_result_free(struct probe_result *res)
{
	pin_ranges_free(&res->resident);
}

/* Add one page-granular run, merging with the previous one when adjacent. */
static int add_run(struct probe_result *res, uint64_t off, uint64_t len)
{
	struct pin_ranges *r = &res->resident;

	if (off >= res->file_size || !len)
		return 0;
	if (len > res->file_size - off)
		len = res->file_size - off;
	if (r->nr && r->v[r->nr - 1].offset + r->v[r->nr - 1].length == off) {
		r->v[r->nr - 1].length += len;
		return 0;
	}
	return pin_ranges_add(r, off, len, 0);
}

static int ioctl_runs(int dev, int fd, struct probe_result *res)
{
	struct powerpin_run *runs;
	uint64_t cursor = 0;
	int ret = -1;

	runs = calloc(RUNS_PER_CALL, sizeof(*runs));
	if (!runs)
		return -1;
	for (;;) {
		struct powerpin_residency arg = {
			.size = sizeof(arg),
			.mode = POWERPIN_RES_RUNS,
			.fd = fd,
			.offset = 0,
			.length = 0,
			.buf = (uintptr_t)runs,
			.buf_len = RUNS_PER_CALL * sizeof(*runs),
			.cursor = cursor,
		};
		uint64_t i;

		if (ioctl(dev, POWERPIN_IOC_RESIDENCY, &arg))
			goto out;
		if (arg.nr_runs > RUNS_PER_CALL) {
			errno = EPROTO;
			goto out;
		}
		/* counts describe the pages this call walked: add them up */
		res->nr_pages += arg.nr_pages;
		res->nr_resident += arg.nr_resident;
		if (arg.file_size > res->file_size)
			res->file_size = arg.file_size;
		for (i = 0; i < arg.nr_runs; i++)
			if (add_run(res, runs[i].offset, runs[i].length))
				goto out;
		/* out cursor 0: the range is done; else resume there */
		if (!arg.cursor)
			break;
		if (arg.cursor <= cursor) {
			errno = EPROTO;
			goto out;
		}
		cursor = arg.cursor;
	}
	ret = 0;
out:
	free(runs);
	return ret;
}

static int ioctl_bitmap(int dev, int fd, struct probe_result *res)
{
	uint64_t ps = res->page_size, chunk = (uint64_t)BITMAP_BYTES * 8 * ps;
	uint64_t off, resident = 0;
	uint8_t *bits;
	int ret = -1;

	bits = malloc(BITMAP_BYTES);
	if (!bits)
		return -1;
	for (off = 0; off < res->file_size; off += chunk) {
		struct powerpin_residency arg = {
			.size = sizeof(arg),
			.mode = POWERPIN_RES_BITMAP,
			.fd = fd,
			.offset = off,
			.length = chunk,
			.buf = (uintptr_t)bits,
			.buf_len = BITMAP_BYTES,
		};
		uint64_t i;

		memset(bits, 0, BITMAP_BYTES);
		if (ioctl(dev, POWERPIN_IOC_RESIDENCY, &arg))
			goto out;
		if (arg.nr_pages > (uint64_t)BITMAP_BYTES * 8) {
			errno = EPROTO;
			goto out;
		}
		resident += arg.nr_resident;
		for (i = 0; i < arg.nr_pages; i++)
			if ((bits[i / 8] >> (i % 8)) & 1 &&
			    add_run(res, off + i * ps, ps))
				goto out;
	}
	res->nr_pages = (res->file_size + ps - 1) / ps;
	res->nr_resident = resident;
	ret = 0;
out:
	free(bits);
	return ret;
}

/* Whether CAP_FOWNER is in this thread's effective set. */
static bool cap_fowner(void)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3] = { { 0 } };

	if (syscall(SYS_capget, &hdr, data))
		return false;
	return data[CAP_TO_INDEX(CAP_FOWNER)].effective & CAP_TO_MASK(CAP_FOWNER);
}

static unsigned long read_ulong(const char *path, unsigned long dflt)
{
	unsigned long v = dflt;
	FILE *fp = fopen(path, "re");

	if (fp) {
		if (fscanf(fp, "%lu", &v) != 1)
			v = dflt;
		fclose(fp);
	}
	return v;
}

/* Whether this process is in the initial user namespace (every id mapped). */
static bool initial_userns(void)
{
	unsigned long inside, outside, count;
	bool ret = false;
	FILE *fp = fopen("/proc/self/uid_map", "re");

	if (!fp)
		return false;
	if (fscanf(fp, "%lu %lu %lu", &inside, &outside, &count) == 3)
		ret = !inside && !outside && count == 4294967295UL;
	fclose(fp);
	return ret;
}

/*
 * Whether @uid, as stat() showed it, is a uid mapped into this user
 * namespace.  stat() shows an unmapped owner as the overflow uid, so that
 * value is taken as mapped only in the initial namespace, where all are.
 */
static bool uid_mapped(uid_t uid)
{
	if (uid != read_ulong("/proc/sys/kernel/overflowuid", 65534))
		return true;
	return initial_userns();
}

/*
 * The kernel's rule, can_do_mincore() in mm/mincore.c (6.1 and 6.12 alike):
 * the page cache of a mapped file is described when
 *   file_owner_or_capable(file): the caller's fsuid owns the inode, or the
 *     caller has CAP_FOWNER in its user namespace and the owner is mapped
 *     there;
 *   or file_permission(file, MAY_WRITE) == 0: write permission on the inode
 *     for the caller's fsuid, fsgid, groups and capabilities.
 * How the fd was opened does not count, and neither does euid 0 by itself.
 */
bool probe_mincore_truthful(int fd)
{
	char proc[64];
	struct stat st;
	uid_t fsuid;

	if (fstat(fd, &st))
		return false;
	fsuid = setfsuid(-1);	/* an invalid id changes nothing: the current one */
	if (uid_mapped(st.st_uid) && (st.st_uid == fsuid || cap_fowner()))
		return true;
	/*
	 * Ask rather than open for writing (that would bump i_writecount and
	 * send IN_CLOSE_WRITE to watchers).  AT_EACCESS checks with the ids
	 * and capabilities the kernel uses for inode permission.  A read-only
	 * mount makes faccessat() say no where the kernel might say yes: the
	 * safe direction, a refusal rather than a made-up answer.
	 */
	if (!faccessat(fd, "", W_OK, AT_EACCESS | AT_EMPTY_PATH))
		return true;
	if (errno != EINVAL && errno != ENOSYS)
		return false;
	/* a kernel without faccessat2(): through the fd's /proc link */
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	return faccessat(AT_FDCWD, proc, W_OK, AT_EACCESS) == 0;
}

static int probe_mincore(int fd, struct probe_result *res)
{
	uint64_t ps = res->page_size, pages, i, resident = 0;
	unsigned char *vec;
	void *map;

	pages = (res->file_size + ps - 1) / ps;
	res->nr_pages = pages;
	if (!pages)
		return 0;
	/*
	 * PROT_NONE: mincore() needs no access, and a caller under
	 * mlockall(MCL_FUTURE) would have a readable mapping faulted in whole
	 * before the question is asked.
	 */
	map = mmap(NULL, res->file_size, PROT_NONE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		return -1;
	vec = malloc(pages);
	if (!vec) {
		munmap(map, res->file_size);
		return -1;
	}
	if (mincore(map, res->file_size, vec)) {
		int e = errno;

		free(vec);
		munmap(map, res->file_size);
		errno = e;
		return -1;
	}
	munmap(map, res->file_size);
	for (i = 0; i < pages; i++) {
		if (!(vec[i] & 1))
			continue;
		resident++;
		if (add_run(res, i * ps, ps)) {
			free(vec);
			return -1;
		}
	}
	free(vec);
	res->nr_resident = resident;
	return 0;
}

/* Errors that say nothing about mincore's view: no point falling back. */
static bool ioctl_fatal(int e)
{
	return e == ENOMEM || e == EINTR || e == EFAULT;
}

int probe_residency(int fd, const char *name, enum probe_want want,
		    const char *dev, struct probe_result *res, char *err,
		    size_t errlen)
{
	struct stat st;
	int dfd, e;

	memset(res, 0, sizeof(*res));
	res->page_size = sysconf(_SC_PAGESIZE);
	if (fstat(fd, &st)) {
		e = errno;
		snprintf(err, errlen, "%s: %s", name, strerror(e));
		errno = e;
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s: not a regular file", name);
		errno = EINVAL;
		return -1;
	}
	res->file_size = st.st_size;
	if (!dev)
		dev = POWERPIN_DEVICE;

	if (want != PROBE_WANT_MINCORE) {
		dfd = open(dev, O_RDONLY | O_CLOEXEC);
		if (dfd >= 0) {
			bool bitmap = want == PROBE_WANT_BITMAP;
			int ret;

			ret = bitmap ? ioctl_bitmap(dfd, fd, res) : ioctl_runs(dfd, fd, res);
			e = errno;
			close(dfd);
			if (!ret) {
				res->method = bitmap ? PROBE_IOCTL_BITMAP : PROBE_IOCTL_RUNS;
				return 0;
			}
			pin_ranges_free(&res->resident);
			res->nr_pages = res->nr_resident = 0;
			if (want != PROBE_AUTO || ioctl_fatal(e)) {
				snprintf(err, errlen, "%s: residency ioctl on %s: %s%s", name, dev,
					 strerror(e), e == EPERM ?
					 " (needs write access to the file, or ownership)" : "");
				errno = e;
				return -1;
			}
			snprintf(res->fallback_reason, sizeof(res->fallback_reason),
				 "%s refused the residency ioctl: %s", dev, strerror(e));
		} else {
			e = errno;
			if (want != PROBE_AUTO) {
				snprintf(err, errlen, "%s: cannot open %s: %s", name, dev,
					 strerror(e));
				errno = e;
				return -1;
			}
			snprintf(res->fallback_reason, sizeof(res->fallback_reason),
				 "%s: %s", dev, strerror(e));
		}
	}
	if (!probe_mincore_truthful(fd)) {
		snprintf(err, errlen,
			 "%s: cannot probe residency: %s%sand mincore would not tell the truth (it describes the page cache only to callers that own or can write the file); load powerpin.ko or run as the file's owner",
			 name, res->fallback_reason,
			 res->fallback_reason[0] ? "; " : "");
		errno = EPERM;
		return -1;
	}
	if (probe_mincore(fd, res)) {
		e = errno;
		snprintf(err, errlen, "%s: mmap/mincore: %s", name, strerror(e));
		pin_ranges_free(&res->resident);
		errno = e;
		return -1;
	}
	res->method = PROBE_MINCORE;
	return 0;
}
