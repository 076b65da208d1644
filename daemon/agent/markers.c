// SPDX-License-Identifier: GPL-2.0
/*
 * trace_marker writes in atrace's form, which powerpin report reads:
 * "B|pid|GC" at GarbageCollectionStart and "E|pid" at its Finish (both
 * arrive on the thread that runs the collection, so they nest as one
 * slice), and "C|pid|alloc_bytes|N" with N the bytes allocated since the
 * agent started (estimated from the samples where the VM samples by bytes),
 * at most every COUNTER_PERIOD_NS while allocations go on, and at each GC.
 *
 * The GC callbacks run with the world stopped and may use no JNI and
 * almost no JVMTI: they only make one write(2) each, and the counter is a
 * lock-free atomic.  Without tracefs nothing is written, and that is said
 * once.  A write that fails (tracing off: the kernel answers EBADF) is
 * simply lost, like any trace event while tracing is off.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"

#define COUNTER_PERIOD_NS	10000000ULL

static const char *const marker_paths[] = {
	"/sys/kernel/tracing/trace_marker",
	"/sys/kernel/debug/tracing/trace_marker",
};

static int marker_fd = -1;
static int pid;
static atomic_uint_fast64_t alloc_bytes;
static atomic_uint_fast64_t last_counter_ns;
static atomic_uint_fast64_t last_counter_value;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void mark(const char *s, int len)
{
	ssize_t n;

	if (marker_fd < 0 || len <= 0)
		return;
	do
		n = write(marker_fd, s, (size_t)len);
	while (n < 0 && errno == EINTR);
}

static void write_counter(void)
{
	uint64_t v = atomic_load(&alloc_bytes);
	char buf[64];

	if (atomic_exchange(&last_counter_value, v) == v)
		return;
	mark(buf, snprintf(buf, sizeof(buf), "C|%d|alloc_bytes|%llu", pid,
			   (unsigned long long)v));
}

void markers_alloc_bytes(uint64_t bytes)
{
	uint64_t now, last;

	atomic_fetch_add_explicit(&alloc_bytes, bytes, memory_order_relaxed);
	if (marker_fd < 0)
		return;
	now = now_ns();
	last = atomic_load_explicit(&last_counter_ns, memory_order_relaxed);
	/* one thread wins the period and writes */
	if (now - last >= COUNTER_PERIOD_NS &&
	    atomic_compare_exchange_strong(&last_counter_ns, &last, now))
		write_counter();
}

static void JNICALL on_gc_start(jvmtiEnv *jvmti)
{
	char buf[32];

	write_counter();
	mark(buf, snprintf(buf, sizeof(buf), "B|%d|GC", pid));
}

static void JNICALL on_gc_finish(jvmtiEnv *jvmti)
{
	char buf[32];

	mark(buf, snprintf(buf, sizeof(buf), "E|%d", pid));
}

int markers_open(void)
{
	size_t i;

	pid = getpid();
	for (i = 0; i < sizeof(marker_paths) / sizeof(marker_paths[0]); i++) {
		marker_fd = open(marker_paths[i], O_WRONLY | O_CLOEXEC);
		if (marker_fd >= 0)
			return 0;
	}
	agent_say("no trace_marker (tracefs not mounted or not writable: %s); GC slices and the alloc_bytes counter are not written",
		  strerror(errno));
	return -1;
}

void markers_callbacks(jvmtiEventCallbacks *cb)
{
	cb->GarbageCollectionStart = on_gc_start;
	cb->GarbageCollectionFinish = on_gc_finish;
}

int markers_enable(jvmtiEnv *jvmti)
{
	if ((*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE,
					       JVMTI_EVENT_GARBAGE_COLLECTION_START, NULL) ||
	    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE,
					       JVMTI_EVENT_GARBAGE_COLLECTION_FINISH, NULL))
		return -1;
	return 0;
}

void markers_close(void)
{
	write_counter();
	if (marker_fd >= 0)
		close(marker_fd);
	marker_fd = -1;
}
