// SPDX-License-Identifier: GPL-2.0
/*
 * The allocation log, in tiallocsample's format:
 *
 *   +N,text      defines N: a thread/type/size line or a frame
 *   =N,t;f;f;f   defines stack N: the thread/type/size index, then frame
 *                indices from the outermost caller to the allocating method
 *   N            one sample of stack N
 *
 * Indices count from 0 over all definitions, each defined on the line
 * before its first use.  A record (the definitions it needs and its sample
 * line) is written with one write(2) under the log's raw monitor, so the
 * file always ends at a whole record, whatever stops the VM, except when
 * a SIGKILL lands inside a write that crosses a page: then the last line
 * is cut, and readers drop it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent.h"

#define NAME_MAX_BYTES	2048

struct intern {
	uint64_t hash;
	char *text;		/* NULL: free slot */
	uint32_t index;
};

struct method_slot {
	jmethodID method;	/* NULL: free slot */
	uint32_t index;
};

static struct {
	jrawMonitorID lock;
	int fd;
	bool failed;		/* a write failed: said once, log closed */
	bool created;		/* by alloc_writer_open(): removed if the start fails */
	uint32_t next_index;
	struct intern *strings;
	uint32_t nr_strings, cap_strings;
	struct method_slot *methods;
	uint32_t nr_methods, cap_methods;
	char *buf;		/* the record being built */
	size_t len, cap;
} w = { .fd = -1 };

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ULL;	/* FNV-1a */

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

static uint32_t hash_ptr(const void *p, uint32_t cap)
{
	return (uint32_t)(((uintptr_t)p >> 3) * 0x9e3779b97f4a7c15ULL >> 32) & (cap - 1);
}

static int buf_add(const char *s, size_t n)
{
	if (w.len + n + 1 > w.cap) {
		size_t cap = w.cap ? w.cap : 4096;
		char *b;

		while (cap < w.len + n + 1)
			cap *= 2;
		b = realloc(w.buf, cap);
		if (!b)
			return -1;
		w.buf = b;
		w.cap = cap;
	}
	memcpy(w.buf + w.len, s, n);
	w.len += n;
	return 0;
}

static int buf_num(uint32_t n, char after)
{
	char tmp[16];
	int len = snprintf(tmp, sizeof(tmp), "%u%c", n, after);

	return buf_add(tmp, len);
}

static int strings_grow(void)
{
	uint32_t cap = w.cap_strings ? w.cap_strings * 2 : 1024, i, j;
	struct intern *t = calloc(cap, sizeof(*t));

	if (!t)
		return -1;
	for (i = 0; i < w.cap_strings; i++) {
		if (!w.strings[i].text)
			continue;
		j = (uint32_t)w.strings[i].hash & (cap - 1);
		while (t[j].text)
			j = (j + 1) & (cap - 1);
		t[j] = w.strings[i];
	}
	free(w.strings);
	w.strings = t;
	w.cap_strings = cap;
	return 0;
}

/*
 * The index of @text, defining it ("<header>N,text" into the record) when
 * it is new.  Returns -1 when out of memory.
 */
static int64_t intern(char header, const char *text)
{
	uint64_t h = hash_str(text);
	uint32_t j;

	if ((w.nr_strings + 1) * 2 > w.cap_strings && strings_grow())
		return -1;
	for (j = (uint32_t)h & (w.cap_strings - 1); w.strings[j].text;
	     j = (j + 1) & (w.cap_strings - 1))
		if (w.strings[j].hash == h && !strcmp(w.strings[j].text, text))
			return w.strings[j].index;
	w.strings[j].text = strdup(text);
	if (!w.strings[j].text)
		return -1;
	w.strings[j].hash = h;
	w.strings[j].index = w.next_index;
	w.nr_strings++;
	if (buf_add(&header, 1) || buf_num(w.next_index, ',') ||
	    buf_add(text, strlen(text)) || buf_add("\n", 1))
		return -1;
	return w.next_index++;
}

static int methods_grow(void)
{
	uint32_t cap = w.cap_methods ? w.cap_methods * 2 : 1024, i, j;
	struct method_slot *t = calloc(cap, sizeof(*t));

	if (!t)
		return -1;
	for (i = 0; i < w.cap_methods; i++) {
		if (!w.methods[i].method)
			continue;
		j = hash_ptr(w.methods[i].method, cap);
		while (t[j].method)
			j = (j + 1) & (cap - 1);
		t[j] = w.methods[i];
	}
	free(w.methods);
	w.methods = t;
	w.cap_methods = cap;
	return 0;
}

/*
 * A frame's index: jmethodIDs stay valid (and are not reused) while their
 * class is loaded, so the name is asked of the VM once per method.
 */
static int64_t frame_index(jvmtiEnv *jvmti, JNIEnv *jni, jmethodID m)
{
	char name[NAME_MAX_BYTES];
	int64_t idx;
	uint32_t j;

	if ((w.nr_methods + 1) * 2 > w.cap_methods && methods_grow())
		return -1;
	for (j = hash_ptr(m, w.cap_methods); w.methods[j].method; j = (j + 1) & (w.cap_methods - 1))
		if (w.methods[j].method == m)
			return w.methods[j].index;
	agent_method_name(jvmti, jni, m, name, sizeof(name));
	idx = intern('+', name);
	if (idx < 0)
		return -1;
	w.methods[j].method = m;
	w.methods[j].index = (uint32_t)idx;
	w.nr_methods++;
	return idx;
}

static void write_record(void)
{
	size_t off = 0;
	ssize_t n;

	while (off < w.len) {
		n = write(w.fd, w.buf + off, w.len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			agent_say("allocation log: write failed (%s); no more samples are logged",
				  n < 0 ? strerror(errno) : "no space");
			w.failed = true;
			return;
		}
		off += n;
	}
}

/* Build the record into w.buf; the stack text goes into @stack. */
static int build_record(jvmtiEnv *jvmti, JNIEnv *jni, const char *tts,
			const jvmtiFrameInfo *frames, int nframes, char **stack, size_t *cap)
{
	size_t slen;
	int64_t idx;
	int i;

	idx = intern('+', tts);
	if (idx < 0)
		return -1;
	slen = (size_t)snprintf(*stack, *cap, "%u", (uint32_t)idx);
	/* tiallocsample writes the outermost caller first */
	for (i = nframes - 1; i >= 0; i--) {
		idx = frame_index(jvmti, jni, frames[i].method);
		if (idx < 0)
			return -1;
		if (slen + 16 > *cap) {
			char *s = realloc(*stack, *cap * 2);

			if (!s)
				return -1;
			*stack = s;
			*cap *= 2;
		}
		slen += (size_t)snprintf(*stack + slen, *cap - slen, ";%u", (uint32_t)idx);
	}
	idx = intern('=', *stack);
	if (idx < 0)
		return -1;
	return buf_num((uint32_t)idx, '\n');
}

void alloc_writer_record(jvmtiEnv *jvmti, JNIEnv *jni, const char *tts,
			 const jvmtiFrameInfo *frames, int nframes)
{
	size_t cap = 256 + (size_t)nframes * 12;
	char *stack = malloc(cap);

	if (!stack)
		return;
	if ((*jvmti)->RawMonitorEnter(jvmti, w.lock) != JVMTI_ERROR_NONE) {
		free(stack);
		return;
	}
	if (w.fd >= 0 && !w.failed) {
		w.len = 0;
		if (build_record(jvmti, jni, tts, frames, nframes, &stack, &cap)) {
			/* definitions made but not written: nothing after is readable */
			agent_say("allocation log: out of memory; no more samples are logged");
			w.failed = true;
		} else {
			write_record();
		}
	}
	(*jvmti)->RawMonitorExit(jvmti, w.lock);
	free(stack);
}

/*
 * Open the log for writing, but leave what is there until
 * alloc_writer_commit(): a start that fails later must not have emptied
 * an earlier log.
 */
int alloc_writer_open(jvmtiEnv *jvmti, const char *path, char *err, size_t errlen)
{
	w.fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	w.created = w.fd >= 0;
	if (w.fd < 0 && errno == EEXIST)
		w.fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (w.fd < 0) {
		snprintf(err, errlen, "cannot write log '%s': %s", path, strerror(errno));
		return -1;
	}
	if ((*jvmti)->CreateRawMonitor(jvmti, "powerpin allocation log", &w.lock) !=
	    JVMTI_ERROR_NONE) {
		snprintf(err, errlen, "cannot create a raw monitor for the log");
		alloc_writer_abort(jvmti, path);
		return -1;
	}
	return 0;
}

/* The agent starts: the log begins empty, as tiallocsample's does. */
void alloc_writer_commit(void)
{
	/* a FIFO or a terminal has nothing to truncate */
	if (ftruncate(w.fd, 0) == 0)
		lseek(w.fd, 0, SEEK_SET);
}

/* The agent does not start: the log is as it was (gone if it was not there). */
void alloc_writer_abort(jvmtiEnv *jvmti, const char *path)
{
	if (w.fd >= 0)
		close(w.fd);
	if (w.created)
		unlink(path);
	if (w.lock)
		(*jvmti)->DestroyRawMonitor(jvmti, w.lock);
	w.fd = -1;
	w.lock = NULL;
	w.created = false;
}

/* At VM death: every record is already in the file; stop taking more. */
void alloc_writer_close(jvmtiEnv *jvmti)
{
	if (!w.lock)
		return;
	(*jvmti)->RawMonitorEnter(jvmti, w.lock);
	if (w.fd >= 0)
		close(w.fd);
	w.fd = -1;
	(*jvmti)->RawMonitorExit(jvmti, w.lock);
}
