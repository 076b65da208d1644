/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers for the tests that run a real JVM with libpowerpin_agent.so:
 * where java, the agent and the workload are, running a command, starting
 * the workload in the background with its standard input as a pipe.
 */
#ifndef POWERPIN_JAVA_HELPERS_H
#define POWERPIN_JAVA_HELPERS_H

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cmd_helpers.h"
#include "base/base.h"

struct java_env {
	char java[512], jcmd[512];
	char agent[512], classes[512], powerpin[512];
};

/* NULL when all is there, else why the Java tests cannot run. */
static inline const char *java_env_find(struct java_env *e)
{
	char path[PATH_MAX];
	char *p;

	if (!realpath("build/lib/libpowerpin_agent.so", path) || strlen(path) >= sizeof(e->agent))
		return "build/lib/libpowerpin_agent.so not built";
	strcpy(e->agent, path);
	if (!realpath("build/java", path) || access("build/java/Workload.class", R_OK) ||
	    strlen(path) >= sizeof(e->classes))
		return "build/java/Workload.class not built (no javac when building)";
	strcpy(e->classes, path);
	if (!realpath("build/bin/powerpin", path) || strlen(path) >= sizeof(e->powerpin))
		return "build/bin/powerpin not built";
	strcpy(e->powerpin, path);
	/*
	 * JAVA_HOME, else a JDK under /usr/lib/jvm: /usr/bin/java is a link
	 * through /etc/alternatives, which a guest that borrows the host's
	 * /usr does not have.
	 */
	p = getenv("JAVA_HOME");
	if (p && strlen(p) < 400 && !access(p, X_OK)) {
		snprintf(e->java, sizeof(e->java), "%s/bin/java", p);
		snprintf(e->jcmd, sizeof(e->jcmd), "%s/bin/jcmd", p);
	} else {
		glob_t g;
		size_t i;

		e->jcmd[0] = '\0';
		if (!glob("/usr/lib/jvm/*/bin/jcmd", 0, NULL, &g)) {
			/* Debian's OpenJDK first, whatever else is there after */
			for (i = 0; i < g.gl_pathc && !e->jcmd[0]; i++)
				if (strstr(g.gl_pathv[i], "-openjdk-") && strlen(g.gl_pathv[i]) < 400)
					snprintf(e->jcmd, sizeof(e->jcmd), "%s", g.gl_pathv[i]);
			if (!e->jcmd[0] && strlen(g.gl_pathv[0]) < 400)
				snprintf(e->jcmd, sizeof(e->jcmd), "%s", g.gl_pathv[0]);
			globfree(&g);
		}
		if (e->jcmd[0]) {
			snprintf(e->java, sizeof(e->java), "%.*s/java",
				 (int)(strrchr(e->jcmd, '/') - e->jcmd), e->jcmd);
		} else {
			snprintf(e->java, sizeof(e->java), "/usr/bin/java");
			snprintf(e->jcmd, sizeof(e->jcmd), "/usr/bin/jcmd");
		}
	}
	if (access(e->java, X_OK))
		return "no java in this system (install openjdk-17-jdk-headless)";
	return NULL;
}

static inline int read_all(const char *path, char **buf, size_t *len)
{
	void *b;

	if (read_bounded_file(path, 1ULL << 31, &b, len))
		return -1;
	*buf = b;
	return 0;
}

struct java_bg {
	pid_t pid;
	int stdin_fd;
	char out[256];
};

/* Start "java @jvm_args -cp classes Workload @args" with stdout+stderr in @out. */
static inline int java_start(struct java_bg *bg, const struct java_env *e, const char *jvm_args,
			     const char *args, const char *out)
{
	char cmd[8192];
	int fds[2];

	snprintf(bg->out, sizeof(bg->out), "%s", out);
	snprintf(cmd, sizeof(cmd), "exec %s %s -cp %s Workload %s >%s 2>&1", e->java, jvm_args,
		 e->classes, args, out);
	if (pipe2(fds, O_CLOEXEC))
		return -1;
	bg->pid = fork();
	if (bg->pid < 0)
		return -1;
	if (!bg->pid) {
		dup2(fds[0], STDIN_FILENO);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	close(fds[0]);
	bg->stdin_fd = fds[1];
	return 0;
}

/* Wait up to @secs for @text in the workload's output; 0 when seen. */
static inline int java_wait_for(struct java_bg *bg, const char *text, double secs)
{
	struct timespec ts = { 0, 50 * 1000 * 1000 };
	int i;

	for (i = 0; i < secs * 20; i++) {
		char *buf;
		size_t len;
		int found = 0;

		if (!read_all(bg->out, &buf, &len)) {
			found = len && memmem(buf, len, text, strlen(text)) != NULL;
			free(buf);
		}
		if (found)
			return 0;
		if (waitpid(bg->pid, NULL, WNOHANG) == bg->pid) {
			bg->pid = -1;
			return -1;
		}
		nanosleep(&ts, NULL);
	}
	return -1;
}

/* Close its standard input (the workload stops) and reap it; exit status or -1. */
static inline int java_stop(struct java_bg *bg)
{
	int st;

	if (bg->stdin_fd >= 0)
		close(bg->stdin_fd);
	bg->stdin_fd = -1;
	if (bg->pid <= 0)
		return -1;
	if (waitpid(bg->pid, &st, 0) != bg->pid)
		return -1;
	bg->pid = -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

#endif
