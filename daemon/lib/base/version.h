/* SPDX-License-Identifier: GPL-2.0 */
/* powerpin's version (scripts/version), and powerpin.ko's as loaded. */
#ifndef POWERPIN_VERSION_H
#define POWERPIN_VERSION_H

#include <stddef.h>

/* The version these binaries were built as. */
const char *powerpin_version(void);

/*
 * The loaded module's version (MODULE_VERSION, /sys/module/powerpin/version)
 * into @buf.  Returns 0, or -1 with errno (ENOENT: not loaded, or a module
 * built without a version).
 */
int powerpin_module_version(char *buf, size_t len);

#endif
