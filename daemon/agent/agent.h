/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libpowerpin_agent.so: a JVMTI agent for OpenJDK and ART that samples
 * allocations into a tiallocsample-format log, names JIT code in a
 * perf-<pid>.map, and writes GC slices and an allocation counter into
 * trace_marker.  One file per concern:
 *
 *   agent.c          Agent_OnLoad/OnAttach, environment, capabilities, VM death
 *   options.c        the option string
 *   alloc_sampler.c  allocation events: which allocations, thread/class/stack
 *   alloc_writer.c   the log: interned definitions, one write per record
 *   perf_map.c       CompiledMethodLoad/Unload, DynamicCodeGenerated -> map
 *   markers.c        trace_marker: GC slices, alloc_bytes counter
 *   util.c           what they all use: messages, method names (a leaf)
 */
#ifndef POWERPIN_AGENT_H
#define POWERPIN_AGENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jvmti.h>

#define AGENT_NAME		"powerpin agent"
/* tiallocsample's defaults */
#define AGENT_DEFAULT_ALLOC	10
#define AGENT_DEFAULT_DEPTH	50
/* sampling for the alloc_bytes counter alone (no log, no alloc=) */
#define AGENT_COUNTER_ALLOC	10000
#define AGENT_MAX_DEPTH		4096
#define AGENT_MAX_ALLOC		(1UL << 26)

enum agent_perfmap {
	AGENT_PERFMAP_AUTO,	/* where perf or simpleperf looks for it */
	AGENT_PERFMAP_OFF,
	AGENT_PERFMAP_PATH,
};

struct agent_options {
	unsigned long alloc;		/* sample 1 in alloc allocations */
	bool alloc_given;
	unsigned int depth;		/* frames per stack at most */
	char *log_path;			/* NULL: no allocation log */
	enum agent_perfmap perfmap;
	char *perfmap_path;		/* AGENT_PERFMAP_PATH */
	bool markers;
};

/*
 * Parse @opts (NULL or "" for the defaults): tiallocsample's positional
 * "sample_rate,stack_depth_limit,log_path" (the path is the rest of the
 * string, commas included), or named "key=value" options separated by
 * commas.  Returns 0, or -1 with a line in @err naming each bad option
 * (lines separated by '\n').
 */
int agent_options_parse(const char *opts, struct agent_options *o, char *err, size_t errlen);
void agent_options_free(struct agent_options *o);

/* util.c: print one line on stderr, prefixed with the agent's name. */
void agent_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Replace line breaks, which would end a log or map line early. */
void agent_one_line(char *s);

/*
 * "Lpkg/Class;::name(sig)", as tiallocsample names a frame, into @buf;
 * "ERROR" when the VM cannot say.  @jni may be NULL.
 */
void agent_method_name(jvmtiEnv *jvmti, JNIEnv *jni, jmethodID m, char *buf, size_t len);

/* alloc_writer.c */
int alloc_writer_open(jvmtiEnv *jvmti, const char *path, char *err, size_t errlen);
void alloc_writer_commit(void);
void alloc_writer_abort(jvmtiEnv *jvmti, const char *path);
void alloc_writer_record(jvmtiEnv *jvmti, JNIEnv *jni, const char *tts,
			 const jvmtiFrameInfo *frames, int nframes);
void alloc_writer_close(jvmtiEnv *jvmti);

/* alloc_sampler.c */
struct alloc_sampler_caps {
	bool sampled;		/* SampledObjectAlloc + SetHeapSamplingInterval */
	bool vm_object;		/* VMObjectAlloc, every Nth */
};
void alloc_sampler_wanted(const jvmtiCapabilities *potential, jvmtiCapabilities *want);
int alloc_sampler_start(jvmtiEnv *jvmti, const jvmtiCapabilities *have, unsigned long every,
			unsigned int depth, bool log, jvmtiEventCallbacks *cb);
int alloc_sampler_enable(jvmtiEnv *jvmti);
void alloc_sampler_stop(jvmtiEnv *jvmti);

/* perf_map.c */
int perf_map_default_path(char *buf, size_t len);
int perf_map_open(jvmtiEnv *jvmti, const char *path, char *err, size_t errlen);
int perf_map_commit(char *err, size_t errlen);
void perf_map_abort(jvmtiEnv *jvmti);
void perf_map_callbacks(jvmtiEventCallbacks *cb);
int perf_map_enable(jvmtiEnv *jvmti);
/* Live phase: the keeper thread (needs JNI) and events for earlier code. */
int perf_map_live(jvmtiEnv *jvmti, JNIEnv *jni);
void perf_map_close(jvmtiEnv *jvmti);

/* markers.c */
int markers_open(void);
void markers_callbacks(jvmtiEventCallbacks *cb);
int markers_enable(jvmtiEnv *jvmti);
void markers_alloc_bytes(uint64_t bytes);
void markers_close(void);

#endif
