// SPDX-License-Identifier: GPL-2.0
/*
 * JIT symbols for perf and simpleperf: perf-<pid>.map, one
 * "0x<start> 0x<size> <name>" line per piece of code the VM reports
 * (CompiledMethodLoad: "Lpkg/Class;::name(sig)", as the allocation log
 * names frames; DynamicCodeGenerated: the VM's own name for a stub).
 *
 * The rule for code that goes away: the file only ever names code that is
 * there now.  A load is appended at once.  An unload, or a load that
 * replaces an entry at the same address, leaves a line that would name
 * the range wrongly, so the file is rewritten without it (a temporary file
 * beside it, renamed over it): by the keeper thread, COALESCE_MS after the
 * first unload of a burst, and at VM death.  A rewrite also keeps only the
 * newest of entries whose ranges overlap.  perf and simpleperf read the map
 * after the run and know nothing of time: with every range named at most
 * once, a sample in code unloaded earlier stays unnamed instead of taking
 * the name of whatever was loaded there later.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent.h"

#define COALESCE_MS	20

struct code_sym {
	uint64_t start, size, seq;
	char *name;
	bool live;
};

static struct {
	jrawMonitorID lock;
	int fd;
	char *path;
	char *tmp;		/* the file until the agent starts */
	bool committed;		/* the file has its name */
	struct code_sym *syms;
	uint32_t nr, cap;
	uint32_t *hash;		/* by start: index + 1 */
	uint32_t hcap;
	uint64_t seq;
	bool dirty, stop, keeper;
} m = { .fd = -1 };

static uint32_t slot_of(uint64_t start, uint32_t cap)
{
	return (uint32_t)((start >> 4) * 0x9e3779b97f4a7c15ULL >> 32) & (cap - 1);
}

static int rehash(uint32_t cap)
{
	uint32_t *h = calloc(cap, sizeof(*h)), i, j;

	if (!h)
		return -1;
	for (i = 0; i < m.nr; i++) {
		if (!m.syms[i].live)
			continue;
		for (j = slot_of(m.syms[i].start, cap); h[j]; j = (j + 1) & (cap - 1))
			if (m.syms[h[j] - 1].start == m.syms[i].start)
				break;
		h[j] = i + 1;
	}
	free(m.hash);
	m.hash = h;
	m.hcap = cap;
	return 0;
}

/* The hash slot for @start: holding it, or free. */
static uint32_t *find_slot(uint64_t start)
{
	uint32_t j;

	for (j = slot_of(start, m.hcap); m.hash[j]; j = (j + 1) & (m.hcap - 1))
		if (m.syms[m.hash[j] - 1].start == start)
			break;
	return &m.hash[j];
}

static void write_all(int fd, const char *s, size_t len)
{
	ssize_t n;

	while (len) {
		n = write(fd, s, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		s += n;
		len -= n;
	}
}

static void append_line(const struct code_sym *c)
{
	char line[2304];
	int n = snprintf(line, sizeof(line), "0x%llx 0x%llx %s\n", (unsigned long long)c->start,
			 (unsigned long long)c->size, c->name);

	if (n >= (int)sizeof(line)) {
		line[sizeof(line) - 2] = '\n';
		n = sizeof(line) - 1;
	}
	write_all(m.fd, line, (size_t)n);
}

static int cmp_start(const void *a, const void *b)
{
	const struct code_sym *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* A new file at @path (a symlink there is replaced, not followed). */
static int create_file(const char *path)
{
	char *tmp;
	int fd;

	if (asprintf(&tmp, "%s.tmp.XXXXXX", path) < 0)
		return -1;
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd >= 0 && (fchmod(fd, 0644) || rename(tmp, path))) {
		int e = errno;

		close(fd);
		unlink(tmp);
		errno = e;
		fd = -1;
	}
	free(tmp);
	return fd;
}

/* Drop dead entries and overlaps (the newest stays); write the file anew. */
static void rewrite(void)
{
	uint32_t i, n = 0;
	int fd;

	if (m.fd < 0) {
		m.dirty = false;	/* given up on the map */
		return;
	}
	qsort(m.syms, m.nr, sizeof(*m.syms), cmp_start);
	for (i = 0; i < m.nr; i++) {
		struct code_sym *c = &m.syms[i];

		/* overlapping ranges: the newest code is what is there now */
		while (c->live && n && m.syms[n - 1].start + m.syms[n - 1].size > c->start) {
			if (m.syms[n - 1].seq > c->seq) {
				c->live = false;
			} else {
				n--;
				free(m.syms[n].name);
			}
		}
		if (!c->live) {
			free(c->name);
			continue;
		}
		m.syms[n++] = *c;
	}
	m.nr = n;
	m.dirty = false;
	if (rehash(m.hcap)) {
		/* the old hash holds indices from before the compaction: drop it all */
		agent_say("perf map %s: out of memory; no more symbols are written", m.path);
		memset(m.hash, 0, m.hcap * sizeof(*m.hash));
		close(m.fd);
		m.fd = -1;
		return;
	}
	fd = create_file(m.path);
	if (fd < 0) {
		agent_say("perf map %s: cannot rewrite: %s", m.path, strerror(errno));
		return;
	}
	if (m.fd >= 0)
		close(m.fd);
	m.fd = fd;
	for (i = 0; i < m.nr; i++)
		append_line(&m.syms[i]);
}

static void mark_dirty(jvmtiEnv *jvmti)
{
	if (m.dirty)
		return;
	m.dirty = true;
	if (m.keeper)
		(*jvmti)->RawMonitorNotifyAll(jvmti, m.lock);
	else
		rewrite();	/* before the keeper runs: rare */
}

static void add(jvmtiEnv *jvmti, uint64_t start, uint64_t size, char *name)
{
	struct code_sym *c;
	uint32_t *slot;

	if (!size || (*jvmti)->RawMonitorEnter(jvmti, m.lock) != JVMTI_ERROR_NONE) {
		free(name);
		return;
	}
	if (m.fd < 0)
		goto drop;
	if (((m.nr + 1) * 2 > m.hcap && rehash(m.hcap ? m.hcap * 2 : 4096)))
		goto drop;
	slot = find_slot(start);
	if (*slot) {
		c = &m.syms[*slot - 1];
		/* the same code told again (GenerateEvents): nothing to do */
		if (c->live && c->size == size && !strcmp(c->name, name))
			goto drop;
		if (c->live) {
			c->live = false;
			mark_dirty(jvmti);
		}
	}
	if (m.nr == m.cap) {
		uint32_t cap = m.cap ? m.cap * 2 : 4096;
		struct code_sym *s = realloc(m.syms, cap * sizeof(*s));

		if (!s)
			goto drop;
		m.syms = s;
		m.cap = cap;
	}
	c = &m.syms[m.nr];
	c->start = start;
	c->size = size;
	c->seq = ++m.seq;
	c->name = name;
	c->live = true;
	slot = find_slot(start);	/* a rewrite may have moved things */
	*slot = ++m.nr;
	append_line(c);
	(*jvmti)->RawMonitorExit(jvmti, m.lock);
	return;
drop:
	(*jvmti)->RawMonitorExit(jvmti, m.lock);
	free(name);
}

static void JNICALL on_compiled_load(jvmtiEnv *jvmti, jmethodID method, jint code_size,
				     const void *code_addr, jint map_length,
				     const jvmtiAddrLocationMap *map, const void *compile_info)
{
	char name[2048];

	agent_method_name(jvmti, NULL, method, name, sizeof(name));
	add(jvmti, (uintptr_t)code_addr, (uint64_t)code_size, strdup(name));
}

static void JNICALL on_compiled_unload(jvmtiEnv *jvmti, jmethodID method, const void *code_addr)
{
	uint32_t *slot;

	if ((*jvmti)->RawMonitorEnter(jvmti, m.lock) != JVMTI_ERROR_NONE)
		return;
	if (m.hcap) {
		slot = find_slot((uintptr_t)code_addr);
		if (*slot && m.syms[*slot - 1].live) {
			m.syms[*slot - 1].live = false;
			mark_dirty(jvmti);
		}
	}
	(*jvmti)->RawMonitorExit(jvmti, m.lock);
}

static void JNICALL on_dynamic_code(jvmtiEnv *jvmti, const char *name, const void *address,
				    jint length)
{
	char *n = strdup(name ? name : "<dynamic code>");

	if (n)
		agent_one_line(n);
	add(jvmti, (uintptr_t)address, (uint64_t)length, n);
}

/* Android: an app's map goes in its data directory, anything else's in /data/local/tmp. */
static void android_dir(char *dir, size_t len)
{
	char cmd[256] = "", *colon;
	struct stat st;
	ssize_t n;
	int fd;

	snprintf(dir, len, "/data/local/tmp");
	fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, cmd, sizeof(cmd) - 1);
	close(fd);
	if (n <= 0)
		return;
	cmd[n] = '\0';
	colon = strchr(cmd, ':');	/* "pkg:service" runs in pkg's directory */
	if (colon)
		*colon = '\0';
	if (!cmd[0] || strchr(cmd, '/') || !strchr(cmd, '.'))
		return;
	snprintf(dir, len, "/data/data/%s", cmd);
	if (stat(dir, &st) || !S_ISDIR(st.st_mode) || access(dir, W_OK))
		snprintf(dir, len, "/data/local/tmp");
}

int perf_map_default_path(char *buf, size_t len)
{
	char dir[PATH_MAX];

	if (getenv("ANDROID_ROOT") || !access("/system/build.prop", F_OK))
		android_dir(dir, sizeof(dir));
	else
		snprintf(dir, sizeof(dir), "/tmp");
	return snprintf(buf, len, "%s/perf-%d.map", dir, (int)getpid()) < (int)len ? 0 : -1;
}

/*
 * Make the map's file, as a temporary file beside @path: perf_map_commit()
 * puts it in place when the agent starts, perf_map_abort() removes it
 * when it does not, and whatever was at @path stays as it was.
 */
int perf_map_open(jvmtiEnv *jvmti, const char *path, char *err, size_t errlen)
{
	m.path = strdup(path);
	if (!m.path || asprintf(&m.tmp, "%s.tmp.XXXXXX", path) < 0) {
		m.tmp = NULL;
		snprintf(err, errlen, "out of memory");
		goto err;
	}
	m.fd = mkostemp(m.tmp, O_CLOEXEC);
	if (m.fd < 0 || fchmod(m.fd, 0644)) {
		snprintf(err, errlen, "cannot write perf map '%s': %s", path, strerror(errno));
		goto err;
	}
	if ((*jvmti)->CreateRawMonitor(jvmti, "powerpin perf map", &m.lock) != JVMTI_ERROR_NONE) {
		snprintf(err, errlen, "cannot create a raw monitor for the perf map");
		goto err;
	}
	return 0;
err:
	perf_map_abort(jvmti);
	return -1;
}

/* The agent starts: the (still empty) map goes where it was asked for. */
int perf_map_commit(char *err, size_t errlen)
{
	/* a symlink planted at the name is replaced, not followed */
	if (rename(m.tmp, m.path)) {
		snprintf(err, errlen, "cannot write perf map '%s': %s", m.path, strerror(errno));
		return -1;
	}
	free(m.tmp);
	m.tmp = NULL;
	m.committed = true;
	return 0;
}

/* The agent does not start: no map of ours is left, nothing of the path changed. */
void perf_map_abort(jvmtiEnv *jvmti)
{
	if (m.fd >= 0) {
		close(m.fd);
		/* the temporary file, or the map once it took the name */
		unlink(m.committed ? m.path : m.tmp);
	}
	if (m.lock)
		(*jvmti)->DestroyRawMonitor(jvmti, m.lock);
	free(m.tmp);
	free(m.path);
	memset(&m, 0, sizeof(m));
	m.fd = -1;
}

void perf_map_callbacks(jvmtiEventCallbacks *cb)
{
	cb->CompiledMethodLoad = on_compiled_load;
	cb->CompiledMethodUnload = on_compiled_unload;
	cb->DynamicCodeGenerated = on_dynamic_code;
}

int perf_map_enable(jvmtiEnv *jvmti)
{
	if ((*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE,
					       JVMTI_EVENT_COMPILED_METHOD_LOAD, NULL) ||
	    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE,
					       JVMTI_EVENT_COMPILED_METHOD_UNLOAD, NULL) ||
	    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE,
					       JVMTI_EVENT_DYNAMIC_CODE_GENERATED, NULL))
		return -1;
	return 0;
}

/* Rewrites the file after unloads, so no lock is held for long in a callback. */
static void JNICALL keeper(jvmtiEnv *jvmti, JNIEnv *jni, void *arg)
{
	(*jvmti)->RawMonitorEnter(jvmti, m.lock);
	while (!m.stop) {
		if (!m.dirty) {
			(*jvmti)->RawMonitorWait(jvmti, m.lock, 0);
			continue;
		}
		/* let the rest of a burst of unloads arrive */
		(*jvmti)->RawMonitorWait(jvmti, m.lock, COALESCE_MS);
		if (m.dirty && !m.stop)
			rewrite();
	}
	m.keeper = false;
	(*jvmti)->RawMonitorExit(jvmti, m.lock);
}

static int start_keeper(jvmtiEnv *jvmti, JNIEnv *jni)
{
	jclass cls = (*jni)->FindClass(jni, "java/lang/Thread");
	jmethodID init;
	jstring name;
	jobject thread;

	if (!cls)
		goto err;
	init = (*jni)->GetMethodID(jni, cls, "<init>", "(Ljava/lang/String;)V");
	name = init ? (*jni)->NewStringUTF(jni, "powerpin perf map") : NULL;
	thread = name ? (*jni)->NewObject(jni, cls, init, name) : NULL;
	if (!thread)
		goto err;
	(*jvmti)->RawMonitorEnter(jvmti, m.lock);
	m.keeper = true;
	(*jvmti)->RawMonitorExit(jvmti, m.lock);
	if ((*jvmti)->RunAgentThread(jvmti, thread, keeper, NULL, JVMTI_THREAD_MIN_PRIORITY) !=
	    JVMTI_ERROR_NONE) {
		(*jvmti)->RawMonitorEnter(jvmti, m.lock);
		m.keeper = false;
		(*jvmti)->RawMonitorExit(jvmti, m.lock);
		goto err;
	}
	return 0;
err:
	if ((*jni)->ExceptionCheck(jni))
		(*jni)->ExceptionClear(jni);
	agent_say("perf map: no keeper thread; unloads are rewritten at once");
	return -1;
}

int perf_map_live(jvmtiEnv *jvmti, JNIEnv *jni)
{
	if (!m.path)
		return 0;
	start_keeper(jvmti, jni);
	/* code made before the agent came, or before its events were on */
	if ((*jvmti)->GenerateEvents(jvmti, JVMTI_EVENT_DYNAMIC_CODE_GENERATED) ||
	    (*jvmti)->GenerateEvents(jvmti, JVMTI_EVENT_COMPILED_METHOD_LOAD)) {
		agent_say("perf map: the VM cannot replay code loaded earlier");
		return -1;
	}
	return 0;
}

void perf_map_close(jvmtiEnv *jvmti)
{
	if (!m.path)
		return;
	(*jvmti)->RawMonitorEnter(jvmti, m.lock);
	m.stop = true;
	if (m.dirty)
		rewrite();
	(*jvmti)->RawMonitorNotifyAll(jvmti, m.lock);
	(*jvmti)->RawMonitorExit(jvmti, m.lock);
}
