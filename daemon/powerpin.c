// SPDX-License-Identifier: GPL-2.0
/*
 * powerpin: the command-line front end.  `powerpin <command> [options]`
 * dispatches through one table; every command answers --help.
 */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "version.h"

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
};

static const struct command commands[] = {
	{ "status",  cmd_status,  "show the sampler's state and counters" },
	{ "config",  cmd_config,  "set the sampling period or the supply" },
	{ "record",  cmd_record,  "capture power and scheduler events to a trace.dat" },
	{ "report",  cmd_report,  "energy, attribution and plots from a capture" },
	{ "file",    cmd_file,    "probe a file's page-cache residency, write pinlists" },
	{ "pinlist", cmd_pinlist, "dump and check a pinlist.meta file" },
	{ "pin",     cmd_pin,     "capture a workload's pages; pin a pinlist" },
	{ "flame",   cmd_flame,   "allocation flame graphs from a Java allocation log" },
	{ "profile", cmd_profile, "measure the CPU power profile, write power_profile.xml" },
};

static void usage(FILE *out)
{
	size_t i;

	fprintf(out, "usage: powerpin <command> [options]\n\ncommands:\n");
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, "  %-8s %s\n", commands[i].name, commands[i].help);
	fprintf(out, "\n`powerpin <command> --help` describes each command's options;\n"
		"`powerpin --version` prints the version.\n");
}

int main(int argc, char **argv)
{
	size_t i;

	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("powerpin %s\n", powerpin_version());
		return fflush(stdout) ? 1 : 0;
	}
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "powerpin: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return 2;
}
