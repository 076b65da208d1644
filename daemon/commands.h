/* SPDX-License-Identifier: GPL-2.0 */
/* The powerpin CLI's command table: one function per `powerpin <command>`. */
#ifndef POWERPIN_COMMANDS_H
#define POWERPIN_COMMANDS_H

#include <stdio.h>

/* Each returns the process exit status; argv[0] is the command name. */
int cmd_status(int argc, char **argv);
int cmd_config(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_file(int argc, char **argv);
int cmd_pinlist(int argc, char **argv);
int cmd_pin(int argc, char **argv);
int cmd_flame(int argc, char **argv);
int cmd_profile(int argc, char **argv);
int cmd_modcheck(int argc, char **argv);

/*
 * report --perf (cmd_report_perf.c): energy per function from @perfdata
 * into @rp, hung on @r (0, or -1 with a message on stderr); the energy
 * flame graph page into @out (0, or -1 with errno).
 */
struct report;
struct report_perf;
int report_add_perf(struct report *r, struct report_perf *rp, const char *input,
		    const char *name, const char *perfdata, const char *perf_map);
int report_write_flame(const struct report_perf *rp, const char *name, FILE *out);

#endif
