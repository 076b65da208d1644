// SPDX-License-Identifier: GPL-2.0
/* placeholder: commands not implemented yet */
#include <stdio.h>
#include "commands.h"

int cmd_file(int argc, char **argv)
{
	fprintf(stderr, "powerpin file: not implemented yet\n");
	return 1;
}

int cmd_pinlist(int argc, char **argv)
{
	fprintf(stderr, "powerpin pinlist: not implemented yet\n");
	return 1;
}

int cmd_pin(int argc, char **argv)
{
	fprintf(stderr, "powerpin pin: not implemented yet\n");
	return 1;
}

