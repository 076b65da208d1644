/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the profile guest test and its bench share: the gauge emulator's
 * knobs and the numbers of a power_profile.xml.
 */
#ifndef POWERPIN_PROFILE_HELPERS_H
#define POWERPIN_PROFILE_HELPERS_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EMU	"/sys/kernel/debug/max17042_emu/"

/* Write @val to the emulator's @knob; 0 or -1. */
static inline int emu_write(const char *knob, const char *val)
{
	char path[128];
	FILE *f;
	int bad;

	snprintf(path, sizeof(path), EMU "%s", knob);
	f = fopen(path, "w");
	if (!f)
		return -1;
	bad = fputs(val, f) < 0;
	return fclose(f) || bad ? -1 : 0;
}

/* The number after name="@name"> (an item) or after its array's first <value>. */
static inline double xml_value(const char *xml, const char *name)
{
	char key[128];
	const char *p;

	snprintf(key, sizeof(key), "name=\"%s\">", name);
	p = strstr(xml, key);
	if (!p)
		return NAN;
	p += strlen(key);
	while (*p == ' ' || *p == '\n')
		p++;
	if (!strncmp(p, "<value>", 7))
		p += 7;
	return strtod(p, NULL);
}

#endif
