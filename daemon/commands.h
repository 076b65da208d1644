/* SPDX-License-Identifier: GPL-2.0 */
/* The powerpin CLI's command table: one function per `powerpin <command>`. */
#ifndef POWERPIN_COMMANDS_H
#define POWERPIN_COMMANDS_H

/* Each returns the process exit status; argv[0] is the command name. */
int cmd_status(int argc, char **argv);
int cmd_config(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_file(int argc, char **argv);
int cmd_pinlist(int argc, char **argv);
int cmd_pin(int argc, char **argv);
int cmd_flame(int argc, char **argv);

#endif
