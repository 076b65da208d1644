// SPDX-License-Identifier: GPL-2.0
/* placeholder: commands not implemented yet */
#include <stdio.h>
#include "commands.h"

int cmd_report(int argc, char **argv)
{
	fprintf(stderr, "powerpin report: not implemented yet\n");
	return 1;
}

