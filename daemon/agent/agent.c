// SPDX-License-Identifier: GPL-2.0
/*
 * The agent's life: Agent_OnLoad (-agentpath:, or ART's -Xplugin + -agentpath)
 * and Agent_OnAttach (jcmd PID JVMTI.agent_load, or ART's attach-agent) parse
 * the options, open every output before touching the VM (so a bad option or
 * an unwritable file fails with JNI_ERR and one line on stderr, and the VM
 * runs on or stops untouched), then take the capabilities and events each
 * part needs.  At VMDeath (System.exit included) the outputs are finished.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"

/* ART's JVMTI for processes that are not debuggable (its own version tag) */
#define ART_TI_VERSION	(JVMTI_VERSION_1_2 | 0x40000000)

static struct {
	bool started;
	jvmtiEnv *jvmti;
	struct agent_options opt;
	bool alloc_events, map, markers, gc_events;
} agent;

static void JNICALL on_vm_init(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread)
{
	if (agent.map)
		perf_map_live(jvmti, jni);
}

static void JNICALL on_vm_death(jvmtiEnv *jvmti, JNIEnv *jni)
{
	if (agent.alloc_events)
		alloc_sampler_stop(jvmti);
	if (agent.opt.log_path)
		alloc_writer_close(jvmti);
	if (agent.map)
		perf_map_close(jvmti);
	if (agent.markers)
		markers_close();
}

static int get_env(JavaVM *vm, jvmtiEnv **jvmti)
{
	/* 11 for SampledObjectAlloc; ART answers 1.2, or its own tag */
	static const jint versions[] = { JVMTI_VERSION_11, JVMTI_VERSION_1_2, ART_TI_VERSION };
	size_t i;

	for (i = 0; i < sizeof(versions) / sizeof(versions[0]); i++)
		if ((*vm)->GetEnv(vm, (void **)jvmti, versions[i]) == JNI_OK && *jvmti)
			return 0;
	agent_say("this VM offers no JVMTI environment (on ART, load libopenjdkjvmti.so with -Xplugin)");
	return -1;
}

/* Open the outputs the options ask for; nothing in the VM is changed yet. */
static int open_outputs(jvmtiEnv *jvmti)
{
	char err[PATH_MAX + 128], path[PATH_MAX];
	const char *map_path = agent.opt.perfmap_path;

	if (agent.opt.log_path && alloc_writer_open(jvmti, agent.opt.log_path, err, sizeof(err))) {
		agent_say("%s", err);
		return -1;
	}
	if (agent.opt.perfmap != AGENT_PERFMAP_OFF) {
		if (agent.opt.perfmap == AGENT_PERFMAP_AUTO) {
			perf_map_default_path(path, sizeof(path));
			map_path = path;
		}
		if (perf_map_open(jvmti, map_path, err, sizeof(err))) {
			agent_say("%s", err);
			return -1;
		}
		agent.map = true;
	}
	if (agent.opt.markers)
		agent.markers = !markers_open();
	return 0;
}

/* Capabilities and callbacks; no event is enabled yet. */
static int setup_events(jvmtiEnv *jvmti)
{
	jvmtiCapabilities pot, want, have;
	jvmtiEventCallbacks cb;
	bool alloc = agent.opt.log_path || agent.markers;

	memset(&want, 0, sizeof(want));
	memset(&cb, 0, sizeof(cb));
	if ((*jvmti)->GetPotentialCapabilities(jvmti, &pot) != JVMTI_ERROR_NONE) {
		agent_say("the VM does not say what it can do (GetPotentialCapabilities)");
		return -1;
	}
	if (alloc)
		alloc_sampler_wanted(&pot, &want);
	if (agent.map)
		want.can_generate_compiled_method_load_events = pot.can_generate_compiled_method_load_events;
	if (agent.markers)
		want.can_generate_garbage_collection_events = pot.can_generate_garbage_collection_events;
	if ((*jvmti)->AddCapabilities(jvmti, &want) != JVMTI_ERROR_NONE ||
	    (*jvmti)->GetCapabilities(jvmti, &have) != JVMTI_ERROR_NONE) {
		agent_say("the VM refused the capabilities the agent needs");
		return -1;
	}
	if (alloc) {
		unsigned long every = agent.opt.alloc;

		if (!agent.opt.log_path && !agent.opt.alloc_given)
			every = AGENT_COUNTER_ALLOC;	/* the counter alone */
		if (alloc_sampler_start(jvmti, &have, every, agent.opt.depth,
					agent.opt.log_path != NULL, &cb)) {
			if (agent.opt.log_path)
				return -1;
		} else {
			agent.alloc_events = true;
		}
	}
	if (agent.map && !have.can_generate_compiled_method_load_events)
		agent_say("perf map: this VM does not report compiled code; only stubs are named");
	if (agent.markers && !have.can_generate_garbage_collection_events)
		agent_say("this VM does not report garbage collections: no GC slices");
	if (agent.map)
		perf_map_callbacks(&cb);
	if (agent.markers)
		markers_callbacks(&cb);
	cb.VMInit = on_vm_init;
	cb.VMDeath = on_vm_death;
	if ((*jvmti)->SetEventCallbacks(jvmti, &cb, sizeof(cb)) != JVMTI_ERROR_NONE) {
		agent_say("the VM refused the agent's event callbacks");
		return -1;
	}
	agent.gc_events = agent.markers && have.can_generate_garbage_collection_events;
	return 0;
}

/* The outputs take their places: the log is emptied, the map gets its name. */
static int commit_outputs(void)
{
	char err[PATH_MAX + 128];

	if (agent.map && perf_map_commit(err, sizeof(err))) {
		agent_say("%s", err);
		return -1;
	}
	if (agent.opt.log_path)
		alloc_writer_commit();
	return 0;
}

static int enable_events(jvmtiEnv *jvmti, bool attach)
{
	if ((agent.alloc_events && alloc_sampler_enable(jvmti)) ||
	    (agent.map && perf_map_enable(jvmti)) ||
	    (agent.gc_events && markers_enable(jvmti)) ||
	    (!attach && (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE,
							  JVMTI_EVENT_VM_INIT, NULL)) ||
	    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_VM_DEATH, NULL)) {
		agent_say("the VM refused to enable the agent's events");
		return -1;
	}
	return 0;
}

/*
 * A start that failed: every output as it was before, the environment
 * given back (with its capabilities and events), so that a later attach
 * starts afresh.
 */
static void abort_start(void)
{
	if (agent.opt.log_path)
		alloc_writer_abort(agent.jvmti, agent.opt.log_path);
	if (agent.map)
		perf_map_abort(agent.jvmti);
	if (agent.markers)
		markers_close();
	if (agent.jvmti)
		(*agent.jvmti)->DisposeEnvironment(agent.jvmti);
	agent_options_free(&agent.opt);
	memset(&agent, 0, sizeof(agent));
}

static jint agent_start(JavaVM *vm, const char *options, bool attach)
{
	char err[PATH_MAX + 256];
	JNIEnv *jni = NULL;

	if (agent.started) {
		agent_say("already running in this VM; options '%s' ignored", options ? options : "");
		return JNI_ERR;
	}
	if (agent_options_parse(options, &agent.opt, err, sizeof(err))) {
		char *line, *save = NULL;

		for (line = strtok_r(err, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
			agent_say("%s", line);
		return JNI_ERR;
	}
	if (get_env(vm, &agent.jvmti) || open_outputs(agent.jvmti) || setup_events(agent.jvmti) ||
	    commit_outputs() || enable_events(agent.jvmti, attach)) {
		abort_start();
		return JNI_ERR;
	}
	agent.started = true;
	if (attach && agent.map) {
		if ((*vm)->GetEnv(vm, (void **)&jni, JNI_VERSION_1_6) == JNI_OK && jni)
			perf_map_live(agent.jvmti, jni);
	}
	return JNI_OK;
}

JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *options, void *reserved)
{
	return agent_start(vm, options, false);
}

JNIEXPORT jint JNICALL Agent_OnAttach(JavaVM *vm, char *options, void *reserved)
{
	return agent_start(vm, options, true);
}

JNIEXPORT void JNICALL Agent_OnUnload(JavaVM *vm)
{
}
