// SPDX-License-Identifier: GPL-2.0
/*
 * Which allocations are sampled, and what is recorded of each.
 *
 * Where the VM has SampledObjectAlloc (OpenJDK 11 and later), the VM picks
 * the samples: SetHeapSamplingInterval(0) samples every allocation, and
 * "1 in N" becomes an interval of N x AVG_OBJECT_BYTES bytes, so samples
 * fall in proportion to the bytes a stack allocates.  Elsewhere (ART) every
 * allocation reaches VMObjectAlloc, and every Nth one on each thread is
 * recorded, as tiallocsample does.
 *
 * A sample records tiallocsample's thread/type/size line
 * "jthread[NAME], jclass[SIG file: SOURCE], size[N, hex: 0xN]" and up to
 * depth frames of the allocating thread's stack.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"

/* a typical Java object on a 64-bit VM with compressed pointers */
#define AVG_OBJECT_BYTES	32

static struct {
	bool sampled;
	bool log;
	unsigned long every;
	unsigned int depth;
	jlong interval_bytes;
} s;

static __thread unsigned long countdown;
static __thread bool inside;	/* the agent's own allocations are not sampled */

static void tts_line(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jclass klass, jlong size,
		     char *buf, size_t len)
{
	jvmtiThreadInfo ti;
	char *sig = NULL, *file = NULL, cls[1024];
	const char *tname = "<NULLPTR>";
	jvmtiError e_sig, e_file;
	bool have_ti = false;

	memset(&ti, 0, sizeof(ti));
	if (thread) {
		if ((*jvmti)->GetThreadInfo(jvmti, thread, &ti) == JVMTI_ERROR_NONE) {
			tname = ti.name ? ti.name : "";
			have_ti = true;
		} else {
			tname = "<UNKNOWN THREAD>";
		}
	}
	if (!klass) {
		snprintf(cls, sizeof(cls), "<NONE><<NONE>> file: <UNKNOWN_FILE>");
	} else {
		e_file = (*jvmti)->GetSourceFileName(jvmti, klass, &file);
		e_sig = (*jvmti)->GetClassSignature(jvmti, klass, &sig, NULL);
		if (e_sig != JVMTI_ERROR_NONE || e_file == JVMTI_ERROR_MUST_POSSESS_CAPABILITY ||
		    e_file == JVMTI_ERROR_INVALID_CLASS)
			snprintf(cls, sizeof(cls), "TYPE UNKNOWN");
		else
			snprintf(cls, sizeof(cls), "%s file: %s", sig,
				 e_file == JVMTI_ERROR_NONE && file ? file : "<UNKNOWN_FILE>");
	}
	snprintf(buf, len, "jthread[%s], jclass[%s], size[%lld, hex: 0x%llx]", tname, cls,
		 (long long)size, (unsigned long long)size);
	agent_one_line(buf);
	if (sig)
		(*jvmti)->Deallocate(jvmti, (unsigned char *)sig);
	if (file)
		(*jvmti)->Deallocate(jvmti, (unsigned char *)file);
	if (have_ti) {
		(*jvmti)->Deallocate(jvmti, (unsigned char *)ti.name);
		if (jni && ti.thread_group)
			(*jni)->DeleteLocalRef(jni, ti.thread_group);
		if (jni && ti.context_class_loader)
			(*jni)->DeleteLocalRef(jni, ti.context_class_loader);
	}
}

static void record(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jclass klass, jlong size)
{
	jvmtiFrameInfo frames_small[64], *frames = frames_small;
	char tts[1536];
	jint n = 0;

	if (s.depth > 64) {
		frames = malloc(s.depth * sizeof(*frames));
		if (!frames)
			return;
	}
	if ((*jvmti)->GetStackTrace(jvmti, thread, 0, (jint)s.depth, frames, &n) != JVMTI_ERROR_NONE)
		n = 0;
	tts_line(jvmti, jni, thread, klass, size, tts, sizeof(tts));
	alloc_writer_record(jvmti, jni, tts, frames, n);
	if (frames != frames_small)
		free(frames);
}

static void JNICALL on_sampled_alloc(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread,
				     jobject object, jclass klass, jlong size)
{
	if (inside)
		return;
	inside = true;
	/* each sample stands for about one interval's bytes */
	markers_alloc_bytes((uint64_t)(size > s.interval_bytes ? size : s.interval_bytes));
	if (s.log)
		record(jvmti, jni, thread, klass, size);
	inside = false;
}

static void JNICALL on_vm_object_alloc(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread,
				       jobject object, jclass klass, jlong size)
{
	if (inside)
		return;
	markers_alloc_bytes((uint64_t)size);
	if (!countdown)
		countdown = s.every;
	if (--countdown || !s.log)
		return;
	inside = true;
	record(jvmti, jni, thread, klass, size);
	inside = false;
}

/*
 * POWERPIN_AGENT_ALLOC_EVENTS=vm takes allocations through VMObjectAlloc,
 * every Nth, as on ART, even where the VM could sample them: ART's path,
 * run on OpenJDK (which reports there only what the VM allocates itself:
 * reflection, clone(), JNI, and in compiled code not even those).
 */
static bool vm_events_asked(void)
{
	const char *e = getenv("POWERPIN_AGENT_ALLOC_EVENTS");

	return e && !strcmp(e, "vm");
}

void alloc_sampler_wanted(const jvmtiCapabilities *potential, jvmtiCapabilities *want)
{
	if (potential->can_generate_sampled_object_alloc_events && !vm_events_asked())
		want->can_generate_sampled_object_alloc_events = 1;
	else if (potential->can_generate_vm_object_alloc_events)
		want->can_generate_vm_object_alloc_events = 1;
	if (potential->can_get_source_file_name)
		want->can_get_source_file_name = 1;
}

int alloc_sampler_start(jvmtiEnv *jvmti, const jvmtiCapabilities *have, unsigned long every,
			unsigned int depth, bool log, jvmtiEventCallbacks *cb)
{
	s.every = every;
	s.depth = depth;
	s.log = log;
	if (have->can_generate_sampled_object_alloc_events) {
		s.sampled = true;
		s.interval_bytes = every == 1 ? 0 : (jlong)every * AVG_OBJECT_BYTES;
		if (s.interval_bytes > 0x7fffffff)
			s.interval_bytes = 0x7fffffff;
		cb->SampledObjectAlloc = on_sampled_alloc;
		return 0;
	}
	if (have->can_generate_vm_object_alloc_events) {
		cb->VMObjectAlloc = on_vm_object_alloc;
		return 0;
	}
	agent_say("this VM reports no allocations (neither SampledObjectAlloc nor VMObjectAlloc)");
	return -1;
}

int alloc_sampler_enable(jvmtiEnv *jvmti)
{
	if (s.sampled) {
		if ((*jvmti)->SetHeapSamplingInterval(jvmti, (jint)s.interval_bytes) !=
		    JVMTI_ERROR_NONE)
			return -1;
		return (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE,
							  JVMTI_EVENT_SAMPLED_OBJECT_ALLOC, NULL);
	}
	return (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE,
						  JVMTI_EVENT_VM_OBJECT_ALLOC, NULL);
}

void alloc_sampler_stop(jvmtiEnv *jvmti)
{
	(*jvmti)->SetEventNotificationMode(jvmti, JVMTI_DISABLE,
					   s.sampled ? JVMTI_EVENT_SAMPLED_OBJECT_ALLOC :
						       JVMTI_EVENT_VM_OBJECT_ALLOC, NULL);
}
