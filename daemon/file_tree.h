/* SPDX-License-Identifier: GPL-2.0 */
/* powerpin file over several paths or a directory (cmd_file_tree.c). */
#ifndef POWERPIN_FILE_TREE_H
#define POWERPIN_FILE_TREE_H

#include <stdbool.h>

#include "pin/pin.h"

struct file_tree_opts {
	enum probe_want want;
	const char *json;	/* --json FILE ("-": instead of the text), NULL without */
	bool human, verbose;
};

/*
 * The residency of every regular file under @paths: a line each (RES,
 * PAGES, SIZE, FILE; sizes in bytes, or as people read them with @human)
 * and a total, or JSON.  Returns the exit status: 1 when a path could not
 * be read (said on stderr), else 0.
 */
int file_tree(char *const *paths, int nr, const struct file_tree_opts *o);

#endif
