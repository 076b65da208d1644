// SPDX-License-Identifier: GPL-2.0
/*
 * Which power_profile.xml keys the device's Android reads: the format from
 * --format or from ro.build.version.sdk in /system/build.prop, and whether
 * the measured topology fits it (profile.h, docs/profile.md).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile.h"

int profile_format_parse(const char *s, enum profile_xml_format *f)
{
	static const struct { const char *name; enum profile_xml_format f; } names[] = {
		{ "auto", PROFILE_XML_AUTO }, { "5", PROFILE_XML_5 }, { "6", PROFILE_XML_6 },
		{ "9", PROFILE_XML_9 }, { "14", PROFILE_XML_14 },
	};
	unsigned int i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(s, names[i].name)) {
			*f = names[i].f;
			return 0;
		}
	errno = EINVAL;
	return -1;
}

enum profile_xml_format profile_format_for_sdk(int sdk)
{
	if (sdk <= 22)
		return PROFILE_XML_5;
	if (sdk <= 27)
		return PROFILE_XML_6;
	if (sdk <= 33)
		return PROFILE_XML_9;
	return PROFILE_XML_14;
}

const char *profile_format_describe(enum profile_xml_format f)
{
	switch (f) {
	case PROFILE_XML_5:
		return "Android 5.1 and earlier (SDK 22 and below)";
	case PROFILE_XML_6:
		return "Android 6.0 to 8.1 (SDK 23-27)";
	case PROFILE_XML_14:
		return "Android 14 and later (SDK 34 and above)";
	default:
		return "Android 9 to 13 (SDK 28-33)";
	}
}

/* The value of "ro.build.version.sdk=N" on @line; -1 if it is not that key. */
static int sdk_line(const char *line, int *sdk)
{
	static const char key[] = "ro.build.version.sdk";
	const char *p = line + strspn(line, " \t");
	char *end;
	long v;

	if (strncmp(p, key, sizeof(key) - 1))
		return -1;
	p += sizeof(key) - 1;
	p += strspn(p, " \t");
	if (*p++ != '=')
		return -1;
	errno = 0;
	v = strtol(p, &end, 10);
	end += strspn(end, " \t\r\n");
	*sdk = errno || end == p || *end || v < 1 || v > 1000 ? 0 : (int)v;
	return 0;
}

int profile_android_sdk(const char *sysroot)
{
	char path[512], *line = NULL;
	size_t cap = 0;
	int sdk = -1;
	FILE *f;

	if (!sysroot || !strcmp(sysroot, "/"))
		sysroot = "";
	snprintf(path, sizeof(path), "%s/system/build.prop", sysroot);
	f = fopen(path, "re");
	if (!f)
		return errno == ENOENT ? 0 : -1;
	/* the last assignment wins, as in Android's property loader */
	while (getline(&line, &cap, f) >= 0)
		sdk_line(line, &sdk);
	free(line);
	fclose(f);
	if (sdk <= 0) {
		errno = EINVAL;
		return -1;
	}
	return sdk;
}

int profile_format_check(const struct profile_topology *t, enum profile_xml_format f,
			 char *err, size_t errlen)
{
	if (f == PROFILE_XML_5 && !profile_one_speed_table(t)) {
		snprintf(err, errlen,
			 "the power_profile.xml of %s has one CPU cluster; this device has %d with different speeds (use --format 6 or later)",
			 profile_format_describe(f), t->nclusters);
		return -1;
	}
	return 0;
}

/*
 * Whether every cluster has the speeds of the first, in Android's order:
 * a Nexus 6's Krait cores each have their own cpufreq policy with one
 * table, and Android 5 counts them as one CPU with one cpu.speeds list.
 */
bool profile_one_speed_table(const struct profile_topology *t)
{
	const struct profile_cluster *a = &t->cluster[0];
	int c, i;

	for (c = 1; c < t->nclusters; c++) {
		const struct profile_cluster *b = &t->cluster[c];

		if (profile_android_speeds(a) != profile_android_speeds(b))
			return false;
		for (i = 0; i < profile_android_speeds(a); i++)
			if (a->freqs_khz[profile_android_freq(a, i)] !=
			    b->freqs_khz[profile_android_freq(b, i)])
				return false;
	}
	return true;
}
