// SPDX-License-Identifier: GPL-2.0
/*
 * Output files: standard output, streams written through, regular files
 * replaced atomically (output.h).
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include "output.h"

/* Symlinks followed before giving up, as the kernel's own limit. */
#define OUTPUT_MAX_LINKS	40

/*
 * Temporary files of one process at once: report has seven outputs,
 * record one per CPU besides its output.
 */
#define OUTPUT_MAX_TEMPS	4096

enum resolved_kind {
	RESOLVED_FD,		/* one of our own descriptors */
	RESOLVED_STREAM,	/* a FIFO, device or socket, by path */
	RESOLVED_FILE,		/* a regular file, or a name to create */
};

struct resolved {
	enum resolved_kind kind;
	int fd;			/* RESOLVED_FD */
	bool socket;		/* RESOLVED_STREAM: a socket, to connect to */
	char *path;		/* RESOLVED_STREAM, RESOLVED_FILE */
};

/* N if @s is all digits and fits an int, else -1. */
static int parse_fd(const char *s)
{
	long n = 0;

	if (!*s)
		return -1;
	for (; *s; s++) {
		if (!isdigit((unsigned char)*s))
			return -1;
		n = n * 10 + (*s - '0');
		if (n > INT_MAX)
			return -1;
	}
	return (int)n;
}

/*
 * The descriptor @path names if it is one of this process's own
 * (/dev/stdout, /dev/fd/N, /proc/self/fd/N, /proc/<our pid>/fd/N), else -1.
 * Judged by name: /proc's links to pipes and sockets lead nowhere a path
 * can follow, and a redirection to a regular file must be written through
 * the descriptor the shell opened (its offset, O_APPEND), not replaced.
 */
static int own_fd(const char *path)
{
	static const char * const std[] = { "/dev/stdin", "/dev/stdout", "/dev/stderr" };
	char self[64];
	size_t i, n;

	for (i = 0; i < 3; i++)
		if (!strcmp(path, std[i]))
			return (int)i;
	if (!strncmp(path, "/dev/fd/", 8))
		return parse_fd(path + 8);
	if (!strncmp(path, "/proc/self/fd/", 14))
		return parse_fd(path + 14);
	if (!strncmp(path, "/proc/thread-self/fd/", 21))
		return parse_fd(path + 21);
	n = snprintf(self, sizeof(self), "/proc/%d/fd/", (int)getpid());
	if (!strncmp(path, self, n))
		return parse_fd(path + n);
	return -1;
}

/* @link as read from the symlink @path, made absolute or relative to its dir. */
static char *link_target(const char *path, const char *link)
{
	const char *slash = strrchr(path, '/');
	char *out;

	if (link[0] == '/' || !slash)
		return strdup(link);
	if (asprintf(&out, "%.*s/%s", (int)(slash - path), path, link) < 0)
		return NULL;
	return out;
}

static char *read_link(const char *path, off_t size_hint)
{
	size_t cap = size_hint > 0 ? (size_t)size_hint + 1 : PATH_MAX;
	char *buf;
	ssize_t n;

	for (;;) {
		buf = malloc(cap);
		if (!buf)
			return NULL;
		n = readlink(path, buf, cap);
		if (n < 0) {
			free(buf);
			return NULL;
		}
		if ((size_t)n < cap) {
			buf[n] = '\0';
			return buf;
		}
		free(buf);
		cap *= 2;
	}
}

/* What @name leads to, following symlinks; -1 with errno. */
static int resolve(const char *name, struct resolved *res)
{
	char *cur = strdup(name), *next, *link;
	struct stat st, tgt;
	int hops;

	memset(res, 0, sizeof(*res));
	if (!cur)
		return -1;
	for (hops = 0; hops <= OUTPUT_MAX_LINKS; hops++) {
		res->fd = own_fd(cur);
		if (res->fd >= 0) {
			free(cur);
			res->kind = RESOLVED_FD;
			return 0;
		}
		if (lstat(cur, &st)) {
			if (errno != ENOENT)
				goto err;
			/* a new file, or a dangling link's target to create */
			res->kind = RESOLVED_FILE;
			res->path = cur;
			return 0;
		}
		if (S_ISLNK(st.st_mode)) {
			link = read_link(cur, st.st_size);
			if (!link)
				goto err;
			next = link_target(cur, link);
			free(link);
			if (!next)
				goto err;
			/*
			 * A /proc link to a pipe, socket or deleted file
			 * ("pipe:[1234]") leads to no path, but the kernel
			 * opens it: write through it.
			 */
			if (own_fd(next) < 0 && lstat(next, &tgt) && errno == ENOENT &&
			    !stat(cur, &tgt)) {
				free(next);
				if (S_ISDIR(tgt.st_mode)) {
					errno = EISDIR;
					goto err;
				}
				st = tgt;
				goto stream;
			}
			free(cur);
			cur = next;
			continue;
		}
		if (S_ISDIR(st.st_mode)) {
			errno = EISDIR;
			goto err;
		}
		if (S_ISREG(st.st_mode)) {
			res->kind = RESOLVED_FILE;
			res->path = cur;
			return 0;
		}
stream:
		res->kind = RESOLVED_STREAM;
		res->socket = S_ISSOCK(st.st_mode);
		res->path = cur;
		return 0;
	}
	errno = ELOOP;
err:
	free(cur);
	return -1;
}

/* ---- inputs no output may be -------------------------------------- */

struct file_id {
	dev_t dev;
	ino_t ino;
};

static struct file_id *inputs;
static size_t nr_inputs;

int output_add_input(const char *path)
{
	struct file_id *n;
	struct stat st;

	if (strcmp(path, "-") ? stat(path, &st) : fstat(STDIN_FILENO, &st))
		return 0;
	if (!S_ISREG(st.st_mode))
		return 0;
	n = reallocarray(inputs, nr_inputs + 1, sizeof(*n));
	if (!n)
		return -1;
	inputs = n;
	inputs[nr_inputs].dev = st.st_dev;
	inputs[nr_inputs].ino = st.st_ino;
	nr_inputs++;
	return 0;
}

static bool is_input(const struct stat *st)
{
	size_t i;

	if (!S_ISREG(st->st_mode))
		return false;
	for (i = 0; i < nr_inputs; i++)
		if (inputs[i].dev == st->st_dev && inputs[i].ino == st->st_ino)
			return true;
	return false;
}

/* -1 with EEXIST when what @res leads to is an input, else 0. */
static int refuse_input(const struct resolved *res)
{
	struct stat st;
	int r;

	if (!nr_inputs)
		return 0;
	r = res->kind == RESOLVED_FD ? fstat(res->fd, &st) : stat(res->path, &st);
	if (r || !is_input(&st))
		return 0;
	errno = EEXIST;
	return -1;
}

/*
 * Whether output_open() could write what @res leads to, looked at without
 * creating anything: a descriptor open for writing, a stream that may be
 * written, or a file whose directory exists and may take the temporary
 * file.  0, or -1 with errno.
 */
static int check_writable(const struct resolved *res)
{
	char *dir, *slash;
	struct stat st;
	int ret;

	if (res->kind == RESOLVED_FD) {
		ret = fcntl(res->fd, F_GETFL);
		if (ret >= 0 && (ret & O_ACCMODE) == O_RDONLY)
			errno = EBADF;
		return ret < 0 || (ret & O_ACCMODE) == O_RDONLY ? -1 : 0;
	}
	if (res->kind == RESOLVED_STREAM)
		return faccessat(AT_FDCWD, res->path, W_OK, AT_EACCESS);
	if (!*res->path) {
		errno = ENOENT;
		return -1;
	}
	slash = strrchr(res->path, '/');
	if (!slash)
		return faccessat(AT_FDCWD, ".", W_OK | X_OK, AT_EACCESS);
	dir = strndup(res->path, slash == res->path ? 1 : (size_t)(slash - res->path));
	if (!dir)
		return -1;
	ret = stat(dir, &st);
	if (!ret && !S_ISDIR(st.st_mode)) {
		errno = ENOTDIR;
		ret = -1;
	}
	if (!ret)
		ret = faccessat(AT_FDCWD, dir, W_OK | X_OK, AT_EACCESS);
	free(dir);
	return ret;
}

/*
 * The checks of output_check() (@writable) and output_check_not_input():
 * standard output or the file @name leads to is no input of the command,
 * and, for the first, could be written.  A name that does not resolve is
 * an error for the first and left to output_open() by the second.
 */
static int check_output(const char *name, bool writable)
{
	struct resolved res;
	int ret;

	if (!strcmp(name, "-")) {
		res.kind = RESOLVED_FD;
		res.fd = STDOUT_FILENO;
		return refuse_input(&res);
	}
	if (resolve(name, &res))
		return writable ? -1 : 0;
	ret = refuse_input(&res);
	if (!ret && writable)
		ret = check_writable(&res);
	free(res.path);
	return ret;
}

int output_check_not_input(const char *name)
{
	return check_output(name, false);
}

int output_check(const char *name)
{
	return check_output(name, true);
}

const char *output_strerror(int e)
{
	if (e == EEXIST)
		return "the same file as an input: refusing to write over it";
	return strerror(e);
}

/* ---- temporary files and signals ------------------------------------- */

/*
 * Every temporary file of the process, for the signal handler: slots are
 * filled and emptied with the signals blocked, and the handler only reads
 * them and calls unlink(), which is async-signal-safe.
 */
static const char *volatile temps[OUTPUT_MAX_TEMPS];
static bool handlers_set;

/*
 * Whether @sig's default action ends the process (signal(7): "Term" or
 * "Core"), so that a temporary file would be left behind by it: every
 * signal but those whose default is to ignore, stop or continue, and
 * SIGKILL and SIGSTOP, which cannot be caught.  Real-time signals end
 * the process too.
 */
static bool ends_process(int sig)
{
	switch (sig) {
	case SIGKILL: case SIGSTOP: case SIGTSTP: case SIGTTIN: case SIGTTOU:
	case SIGCONT: case SIGCHLD: case SIGURG: case SIGWINCH:
		return false;
	}
	return true;
}

/* The signals temporary files are removed on: those ending the process. */
static void cleanup_set(sigset_t *set)
{
	int sig;

	sigemptyset(set);
	for (sig = 1; sig <= SIGRTMAX; sig++)
		if (ends_process(sig))
			sigaddset(set, sig);	/* glibc's internal ones: refused, fine */
}

static void on_fatal_signal(int sig)
{
	int e = errno;
	size_t i;

	for (i = 0; i < OUTPUT_MAX_TEMPS; i++)
		if (temps[i])
			unlink(temps[i]);
	/*
	 * SA_RESETHAND put back the default action: end as the signal would
	 * (a fault's signal, SIGSEGV or SIGFPE, comes again at the return)
	 */
	raise(sig);
	errno = e;
}

/*
 * Catch the cleanup signals whose action is the default, once: one the
 * process ignores stays ignored (nohup), one with a handler (a fuzzer's,
 * a sanitizer's) keeps it.
 */
static void set_handlers(void)
{
	struct sigaction sa = { .sa_handler = on_fatal_signal,
				.sa_flags = SA_RESETHAND }, old;
	int sig;

	if (handlers_set)
		return;
	handlers_set = true;
	cleanup_set(&sa.sa_mask);
	for (sig = 1; sig <= SIGRTMAX; sig++)
		if (sigismember(&sa.sa_mask, sig) == 1 && !sigaction(sig, NULL, &old) &&
		    old.sa_handler == SIG_DFL && !(old.sa_flags & SA_SIGINFO))
			sigaction(sig, &sa, NULL);
}

/* Hold off the cleanup signals while the table and the files change. */
static void block_signals(sigset_t *old)
{
	sigset_t set;

	cleanup_set(&set);
	sigprocmask(SIG_BLOCK, &set, old);
}

static void restore_signals(const sigset_t *old)
{
	sigprocmask(SIG_SETMASK, old, NULL);
}

/* Call with the signals blocked.  0, or -1 with EMFILE when the table is full. */
static int temp_add(const char *path)
{
	size_t i;

	set_handlers();
	for (i = 0; i < OUTPUT_MAX_TEMPS; i++)
		if (!temps[i]) {
			temps[i] = path;
			return 0;
		}
	errno = EMFILE;
	return -1;
}

/* Call with the signals blocked. */
static void temp_forget(const char *path)
{
	size_t i;

	for (i = 0; i < OUTPUT_MAX_TEMPS; i++)
		if (temps[i] == path)
			temps[i] = NULL;
}

void output_temp_remove(const char *path)
{
	sigset_t old;

	block_signals(&old);
	unlink(path);
	temp_forget(path);
	restore_signals(&old);
}

int output_temp_create(char *tmpl)
{
	sigset_t old;
	int fd, e;

	block_signals(&old);
	fd = mkostemp(tmpl, O_CLOEXEC);
	if (fd >= 0 && temp_add(tmpl)) {
		e = errno;
		close(fd);
		unlink(tmpl);
		errno = e;
		fd = -1;
	}
	restore_signals(&old);
	return fd;
}

bool output_is_stdout(const char *name)
{
	struct resolved res;

	if (!strcmp(name, "-"))
		return true;
	if (resolve(name, &res))
		return false;
	free(res.path);
	return res.kind == RESOLVED_FD && res.fd == STDOUT_FILENO;
}

/* A stream socket in the file system: connect to it and write. */
static int connect_socket(const char *path)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd, e;

	if (strlen(path) >= sizeof(sun.sun_path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	strcpy(sun.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun))) {
		e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

/* A duplicate of our own descriptor @fd, which must be open for writing. */
static int dup_writable(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0)
		return -1;
	if ((fl & O_ACCMODE) == O_RDONLY) {
		errno = EBADF;
		return -1;
	}
	return fcntl(fd, F_DUPFD_CLOEXEC, 3);
}

static int open_through(struct output_file *out, const struct resolved *res)
{
	int fd, e;

	if (res->kind == RESOLVED_FD && res->fd == STDOUT_FILENO) {
		if (fcntl(STDOUT_FILENO, F_GETFL) < 0)
			return -1;
		out->fp = stdout;
		out->is_stdout = true;
		return 0;
	}
	if (res->kind == RESOLVED_FD)
		fd = dup_writable(res->fd);
	else if (res->socket)
		fd = connect_socket(res->path);
	else
		fd = open(res->path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -1;
	out->fp = fdopen(fd, "w");
	if (!out->fp) {
		e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return 0;
}

/* "<target>.tmp.XXXXXX", or "<dir>/.tmp.XXXXXX" when that name is too long. */
static int make_temp_file(struct output_file *out)
{
	const char *slash = strrchr(out->target, '/');
	int fd;

	if (asprintf(&out->tmp, "%s.tmp.XXXXXX", out->target) < 0) {
		out->tmp = NULL;
		return -1;
	}
	fd = mkostemp(out->tmp, O_CLOEXEC);
	if (fd >= 0 || errno != ENAMETOOLONG)
		return fd;
	free(out->tmp);
	if (asprintf(&out->tmp, "%.*s.tmp.XXXXXX", slash ? (int)(slash - out->target + 1) : 0,
		     out->target) < 0) {
		out->tmp = NULL;
		return -1;
	}
	return mkostemp(out->tmp, O_CLOEXEC);
}

/* The temporary file, in the table before a signal can see it exist. */
static int make_temp(struct output_file *out)
{
	sigset_t old;
	int fd, e;

	block_signals(&old);
	fd = make_temp_file(out);
	if (fd >= 0 && temp_add(out->tmp)) {
		e = errno;
		close(fd);
		unlink(out->tmp);
		errno = e;
		fd = -1;
	}
	restore_signals(&old);
	return fd;
}

static int open_replace(struct output_file *out, struct resolved *res)
{
	struct stat st;
	mode_t mask;
	int fd, e;

	out->kind = OUTPUT_REPLACE;
	out->target = res->path;
	res->path = NULL;
	fd = make_temp(out);
	if (fd < 0)
		return -1;
	if (!stat(out->target, &st) && S_ISREG(st.st_mode)) {
		/* replacing: keep what the file was */
		if (fchmod(fd, st.st_mode & 07777))
			goto err;
		if (!geteuid() && fchown(fd, st.st_uid, st.st_gid))
			goto err;
	} else {
		/* mkstemp makes 0600; give the mode open(2) would have */
		mask = umask(0);
		umask(mask);
		if (fchmod(fd, 0666 & ~mask))
			goto err;
	}
	out->fp = fdopen(fd, "w");
	if (out->fp)
		return 0;
err:
	e = errno;
	close(fd);
	output_temp_remove(out->tmp);
	errno = e;
	return -1;
}

static void output_release(struct output_file *out)
{
	free(out->name);
	free(out->target);
	free(out->tmp);
	memset(out, 0, sizeof(*out));
}

int output_open(struct output_file *out, const char *name)
{
	struct resolved res = { 0 };
	int ret, e;

	memset(out, 0, sizeof(*out));
	if (!*name) {
		errno = ENOENT;
		return -1;
	}
	out->name = strdup(name);
	if (!out->name)
		return -1;
	out->kind = OUTPUT_THROUGH;
	if (!strcmp(name, "-")) {
		res.kind = RESOLVED_FD;
		res.fd = STDOUT_FILENO;
	} else if (resolve(name, &res)) {
		goto err;
	}
	if (refuse_input(&res)) {
		free(res.path);
		goto err;
	}
	if (res.kind == RESOLVED_FILE)
		ret = open_replace(out, &res);
	else
		ret = open_through(out, &res);
	free(res.path);
	if (!ret)
		return 0;
err:
	e = errno;
	output_release(out);
	errno = e;
	return -1;
}

/* fsync the directory holding @path, so that the rename survives a crash. */
static void sync_dir(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir;
	int fd;

	if (!slash)
		dir = strdup(".");
	else
		dir = strndup(path, slash == path ? 1 : (size_t)(slash - path));
	if (!dir)
		return;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
	free(dir);
}

/*
 * Standard output failed, and the caller is told: drop what is left in its
 * buffer and its error, so that close_stdout() (util.h) does not say it
 * a second time at exit.
 */
static void stdout_failure_returned(void)
{
	__fpurge(stdout);
	clearerr(stdout);
}

int output_commit(struct output_file *out)
{
	int ret = 0, e = 0;
	sigset_t old;

	if (fflush(out->fp) || ferror(out->fp)) {
		ret = -1;
		e = errno ? errno : EIO;
		if (out->is_stdout)
			stdout_failure_returned();
	}
	if (out->kind == OUTPUT_REPLACE && !ret && fsync(fileno(out->fp))) {
		ret = -1;
		e = errno;
	}
	if (!out->is_stdout && fclose(out->fp) && !ret) {
		ret = -1;
		e = errno;
	}
	out->fp = NULL;
	if (out->kind == OUTPUT_REPLACE) {
		block_signals(&old);
		if (!ret && rename(out->tmp, out->target)) {
			ret = -1;
			e = errno;
		}
		if (ret)
			unlink(out->tmp);
		temp_forget(out->tmp);
		restore_signals(&old);
		if (!ret)
			sync_dir(out->target);
	}
	output_release(out);
	errno = e;
	return ret;
}

void output_abort(struct output_file *out)
{
	if (out->fp) {
		if (out->is_stdout && (fflush(out->fp) || ferror(out->fp)))
			stdout_failure_returned();
		else if (!out->is_stdout)
			fclose(out->fp);
	}
	if (out->tmp)
		output_temp_remove(out->tmp);
	output_release(out);
}
