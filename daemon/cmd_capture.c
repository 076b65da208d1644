// SPDX-License-Identifier: GPL-2.0
/* placeholder: commands not implemented yet */
#include <stdio.h>
#include "commands.h"

int cmd_status(int argc, char **argv)
{
	fprintf(stderr, "powerpin status: not implemented yet\n");
	return 1;
}

int cmd_config(int argc, char **argv)
{
	fprintf(stderr, "powerpin config: not implemented yet\n");
	return 1;
}

int cmd_record(int argc, char **argv)
{
	fprintf(stderr, "powerpin record: not implemented yet\n");
	return 1;
}

