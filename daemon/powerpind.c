// SPDX-License-Identifier: GPL-2.0
/* powerpind: placeholder until the daemon lands. */
#include <stdio.h>

int main(void)
{
	fprintf(stderr, "powerpind: not implemented yet\n");
	return 1;
}
