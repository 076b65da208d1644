// SPDX-License-Identifier: GPL-2.0
/*
 * What every part of the agent shares and nothing else: its one-line
 * messages and the names it gives methods.  A leaf: it calls no other part.
 */
#include <stdarg.h>
#include <stdio.h>

#include "agent.h"

void agent_say(const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	fprintf(stderr, "%s: %s\n", AGENT_NAME, line);
	fflush(stderr);
}

void agent_one_line(char *s)
{
	for (; *s; s++)
		if (*s == '\n' || *s == '\r')
			*s = ' ';
}

void agent_method_name(jvmtiEnv *jvmti, JNIEnv *jni, jmethodID m, char *buf, size_t len)
{
	char *name = NULL, *sig = NULL, *csig = NULL;
	jclass cls = NULL;

	if ((*jvmti)->GetMethodDeclaringClass(jvmti, m, &cls) == JVMTI_ERROR_NONE &&
	    (*jvmti)->GetClassSignature(jvmti, cls, &csig, NULL) == JVMTI_ERROR_NONE &&
	    (*jvmti)->GetMethodName(jvmti, m, &name, &sig, NULL) == JVMTI_ERROR_NONE)
		snprintf(buf, len, "%s::%s%s", csig, name, sig);
	else
		snprintf(buf, len, "ERROR");
	agent_one_line(buf);
	(*jvmti)->Deallocate(jvmti, (unsigned char *)name);
	(*jvmti)->Deallocate(jvmti, (unsigned char *)sig);
	(*jvmti)->Deallocate(jvmti, (unsigned char *)csig);
	if (jni && cls)
		(*jni)->DeleteLocalRef(jni, cls);
}
