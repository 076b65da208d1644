/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A FUSE file system in one process, speaking the /dev/fuse protocol
 * directly (no libfuse): a root directory holding one regular file, "big",
 * of TINY_FUSE_SIZE bytes that read as zeros.  It exists to put a file
 * larger than a 32-bit page cache can index (16 TiB of 4 KiB pages) in
 * front of the residency ioctl: FUSE takes the size the server gives.
 *
 *   pid = tiny_fuse_mount(dir);	forks the server, mounts at @dir
 *   ... open(dir "/big") ...
 *   tiny_fuse_unmount(dir, pid);
 *
 * Readahead is off (max_readahead 0), so a read of one page caches that
 * page only.
 *
 *   pid = tiny_fuse_mount_backed(dir, path);
 *
 * mounts it with FUSE passthrough (Linux 6.9+) instead: "big" has the size
 * of the file at @path, and each open of it is passed through to that file
 * (FUSE_DEV_IOC_BACKING_OPEN, FOPEN_PASSTHROUGH), whose page cache its
 * reads and mappings use.  An open fails with the errno that registering
 * the backing file gave (ENOTTY before 6.9, EOPNOTSUPP without
 * CONFIG_FUSE_PASSTHROUGH).
 */
#ifndef _TINY_FUSE_H
#define _TINY_FUSE_H

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/fuse.h>

#define TINY_FUSE_SIZE		(1ULL << 45)	/* 32 TiB */
#define TINY_FUSE_FILE_INO	2
#define TINY_FUSE_BUF		(1 << 20)
#define TINY_FUSE_MAX_WRITE	65536

/* Passthrough (protocol 7.40, Linux 6.9), which older headers lack. */
#ifndef FUSE_PASSTHROUGH
#define FUSE_PASSTHROUGH	(1ULL << 37)
#define FOPEN_PASSTHROUGH	(1 << 7)
struct fuse_backing_map {
	int32_t fd;
	uint32_t flags;
	uint64_t padding;
};

#define FUSE_DEV_IOC_BACKING_OPEN _IOW(229, 1, struct fuse_backing_map)
#endif
#ifndef FUSE_INIT_EXT
#define FUSE_INIT_EXT		(1 << 30)
#endif

/* The 7.40 layouts of the replies passthrough extends. */
struct tiny_fuse_init_out {
	uint32_t major, minor, max_readahead, flags;
	uint16_t max_background, congestion_threshold;
	uint32_t max_write, time_gran;
	uint16_t max_pages, map_alignment;
	uint32_t flags2, max_stack_depth;
	uint32_t unused[6];
};

struct tiny_fuse_open_out {
	uint64_t fh;
	uint32_t open_flags;
	int32_t backing_id;
};

/* passthrough: the backing file's path and size (set before the fork) */
static const char *tiny_fuse_backing;
static uint64_t tiny_fuse_size = TINY_FUSE_SIZE;

static void tiny_fuse_reply(int fd, uint64_t unique, int error,
			    const void *data, size_t len)
{
	struct fuse_out_header out = {
		.len = sizeof(out) + (error ? 0 : len),
		.error = error,
		.unique = unique,
	};
	struct iovec iov[2] = {
		{ &out, sizeof(out) },
		{ (void *)data, error ? 0 : len },
	};

	if (writev(fd, iov, 2) < 0 && errno != ENOENT)
		perror("tiny_fuse: reply");
}

static void tiny_fuse_attr(uint64_t ino, struct fuse_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->ino = ino;
	attr->nlink = 1;
	attr->blksize = 4096;
	if (ino == FUSE_ROOT_ID) {
		attr->mode = S_IFDIR | 0755;
		attr->nlink = 2;
	} else {
		attr->mode = S_IFREG | 0644;
		attr->size = tiny_fuse_size;
		attr->blocks = tiny_fuse_size / 512;
	}
}

static void tiny_fuse_init(int fd, const struct fuse_in_header *in,
			   const struct fuse_init_in *arg)
{
	struct tiny_fuse_init_out out = {
		.major = FUSE_KERNEL_VERSION,
		.minor = arg->minor < FUSE_KERNEL_MINOR_VERSION ?
			 arg->minor : FUSE_KERNEL_MINOR_VERSION,
		.max_readahead = 0,
		.max_background = 1,
		.congestion_threshold = 1,
		.max_write = TINY_FUSE_MAX_WRITE,
		.time_gran = 1,
	};

	if (tiny_fuse_backing) {
		/* a kernel that does not offer it ignores the flag */
		out.flags = FUSE_INIT_EXT;
		out.flags2 = FUSE_PASSTHROUGH >> 32;
		out.max_stack_depth = 1;
	}
	tiny_fuse_reply(fd, in->unique, 0, &out, sizeof(out));
}

/* An open: passed through to the backing file, when there is one. */
static void tiny_fuse_open(int fd, const struct fuse_in_header *in)
{
	struct tiny_fuse_open_out out = { .fh = 1 };
	struct fuse_backing_map map = { 0 };
	int id;

	if (!tiny_fuse_backing || in->opcode != FUSE_OPEN) {
		tiny_fuse_reply(fd, in->unique, 0, &out, sizeof(out));
		return;
	}
	map.fd = open(tiny_fuse_backing, O_RDONLY | O_CLOEXEC);
	if (map.fd < 0) {
		tiny_fuse_reply(fd, in->unique, -errno, NULL, 0);
		return;
	}
	id = ioctl(fd, FUSE_DEV_IOC_BACKING_OPEN, &map);
	if (id < 0) {
		tiny_fuse_reply(fd, in->unique, -errno, NULL, 0);
		close(map.fd);
		return;
	}
	close(map.fd);		/* the kernel holds its own reference */
	out.open_flags = FOPEN_PASSTHROUGH;
	out.backing_id = id;
	tiny_fuse_reply(fd, in->unique, 0, &out, sizeof(out));
}

static void tiny_fuse_lookup(int fd, const struct fuse_in_header *in,
			     const char *name)
{
	struct fuse_entry_out out = { 0 };

	if (in->nodeid != FUSE_ROOT_ID || strcmp(name, "big")) {
		tiny_fuse_reply(fd, in->unique, -ENOENT, NULL, 0);
		return;
	}
	out.nodeid = TINY_FUSE_FILE_INO;
	out.entry_valid = 3600;
	out.attr_valid = 3600;
	tiny_fuse_attr(TINY_FUSE_FILE_INO, &out.attr);
	tiny_fuse_reply(fd, in->unique, 0, &out, sizeof(out));
}

static void tiny_fuse_getattr(int fd, const struct fuse_in_header *in)
{
	struct fuse_attr_out out = { .attr_valid = 3600 };

	tiny_fuse_attr(in->nodeid, &out.attr);
	tiny_fuse_reply(fd, in->unique, 0, &out, sizeof(out));
}

static void tiny_fuse_read(int fd, const struct fuse_in_header *in,
			   const struct fuse_read_in *arg)
{
	static char zeros[TINY_FUSE_MAX_WRITE * 2];
	uint64_t len = arg->size < sizeof(zeros) ? arg->size : sizeof(zeros);

	if (arg->offset >= tiny_fuse_size)
		len = 0;
	else if (len > tiny_fuse_size - arg->offset)
		len = tiny_fuse_size - arg->offset;
	tiny_fuse_reply(fd, in->unique, 0, zeros, len);
}

/* Answer one request; returns 0 to go on, -1 to stop. */
static int tiny_fuse_serve_one(int fd, const char *req)
{
	const struct fuse_in_header *in = (const void *)req;
	const void *arg = req + sizeof(*in);
	struct fuse_statfs_out statfs_out = { 0 };

	switch (in->opcode) {
	case FUSE_INIT:
		tiny_fuse_init(fd, in, arg);
		return 0;
	case FUSE_LOOKUP:
		tiny_fuse_lookup(fd, in, arg);
		return 0;
	case FUSE_GETATTR:
		tiny_fuse_getattr(fd, in);
		return 0;
	case FUSE_OPEN:
	case FUSE_OPENDIR:
		tiny_fuse_open(fd, in);
		return 0;
	case FUSE_READ:
		tiny_fuse_read(fd, in, arg);
		return 0;
	case FUSE_READDIR:
		tiny_fuse_reply(fd, in->unique, 0, NULL, 0);
		return 0;
	case FUSE_STATFS:
		statfs_out.st.bsize = 4096;
		statfs_out.st.namelen = 255;
		tiny_fuse_reply(fd, in->unique, 0, &statfs_out, sizeof(statfs_out));
		return 0;
	case FUSE_RELEASE:
	case FUSE_RELEASEDIR:
	case FUSE_FLUSH:
	case FUSE_ACCESS:
		tiny_fuse_reply(fd, in->unique, 0, NULL, 0);
		return 0;
	case FUSE_FORGET:
	case FUSE_BATCH_FORGET:
	case FUSE_INTERRUPT:
		return 0;		/* no reply */
	case FUSE_DESTROY:
		tiny_fuse_reply(fd, in->unique, 0, NULL, 0);
		return -1;
	default:
		tiny_fuse_reply(fd, in->unique, -ENOSYS, NULL, 0);
		return 0;
	}
}

static void tiny_fuse_serve(int fd)
{
	char *buf = malloc(TINY_FUSE_BUF);
	ssize_t n;

	while (buf) {
		n = read(fd, buf, TINY_FUSE_BUF);
		if (n < 0 && (errno == EINTR || errno == ENOENT))
			continue;	/* ENOENT: an interrupted request */
		if (n < (ssize_t)sizeof(struct fuse_in_header))
			break;		/* ENODEV: unmounted */
		if (tiny_fuse_serve_one(fd, buf))
			break;
	}
	free(buf);
}

/*
 * Mount the file system at @dir with a forked server.  Returns the
 * server's pid, or -1 with errno set (ENODEV: no FUSE in this kernel).
 */
static pid_t tiny_fuse_mount(const char *dir)
{
	char opts[128];
	pid_t pid;
	int fd;

	fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -1;
	snprintf(opts, sizeof(opts),
		 "fd=%d,rootmode=40000,user_id=0,group_id=0,allow_other", fd);
	if (mount("tinyfuse", dir, "fuse", MS_NOSUID | MS_NODEV, opts)) {
		int err = errno;

		close(fd);
		errno = err;
		return -1;
	}
	pid = fork();
	if (pid == 0) {
		tiny_fuse_serve(fd);
		_exit(0);
	}
	close(fd);
	if (pid < 0)
		umount2(dir, MNT_DETACH);
	return pid;
}

/* tiny_fuse_mount() with "big" passed through to the file at @path. */
static pid_t tiny_fuse_mount_backed(const char *dir, const char *path)
{
	struct stat st;

	if (stat(path, &st))
		return -1;
	tiny_fuse_backing = path;
	tiny_fuse_size = st.st_size;
	return tiny_fuse_mount(dir);
}

static void tiny_fuse_unmount(const char *dir, pid_t pid)
{
	umount2(dir, MNT_DETACH);
	kill(pid, SIGTERM);
	waitpid(pid, NULL, 0);
}

#endif /* _TINY_FUSE_H */
