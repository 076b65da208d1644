// SPDX-License-Identifier: GPL-2.0
/*
 * powerpin: the command-line front end.  `powerpin <command> [options]`
 * dispatches through one table; every command answers --help.
 */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "base/base.h"

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
	{ "modcheck", cmd_modcheck, "check that a powerpin.ko matches the kernel before insmod" },
};

static void usage(FILE *out)
{
	size_t i;

	fprintf(out, "usage: powerpin <command> [options]\n\ncommands:\n");
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, "  %-8s %s\n", commands[i].name, commands[i].help);
	fprintf(out, "\n`powerpin <command> --help` or `powerpin help <command>` describes\n"
		"each command's options; `powerpin --version` prints the version.\n");
}

static const struct command *find_command(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(name, commands[i].name))
			return &commands[i];
	return NULL;
}

/* `powerpin help CMD [SUB]`: CMD's own --help */
static int help_command(int argc, char **argv)
{
	const struct command *cmd = find_command(argv[2]);
	char *args[4] = { argv[2], NULL, NULL, NULL };

	if (!cmd) {
		fprintf(stderr, "powerpin help: unknown command '%s'\n", argv[2]);
		return usage_error("powerpin");
	}
	if (argc > 4) {
		fprintf(stderr, "powerpin help: one command, please\n");
		return usage_error("powerpin");
	}
	/* pin capture, pin apply: the subcommand's own */
	args[1] = argc == 4 ? argv[3] : (char *)"--help";
	args[2] = argc == 4 ? (char *)"--help" : NULL;
	return cmd->fn(argc == 4 ? 3 : 2, args);
}

/* `powerpin` with no command, --help, --version or an unknown command. */
static int run_top(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "help") && argc > 2)
		return help_command(argc, argv);
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("powerpin %s\n", powerpin_version());
		return 0;
	}
	fprintf(stderr, "powerpin: unknown command '%s'\n", argv[1]);
	return usage_error("powerpin");
}

int main(int argc, char **argv)
{
	const struct command *cmd = argc > 1 ? find_command(argv[1]) : NULL;
	char who[32];
	int ret;

	snprintf(who, sizeof(who), "powerpin%s%s", cmd ? " " : "", cmd ? cmd->name : "");
	if (cmd)
		argv[1] = who;	/* getopt's messages start with argv[0] */
	ret = cmd ? cmd->fn(argc - 1, argv + 1) : run_top(argc, argv);
	/* a write error on standard output fails the command, whichever it is */
	return close_stdout(who, ret);
}
