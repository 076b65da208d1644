/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A kernel module's vermagic (its .modinfo "vermagic=" string: release,
 * SMP, preemption, module unload, modversions, architecture) against a
 * running kernel's release and version (uname -r, uname -v): what insmod
 * checks, said before it refuses, on kernels such as the Nexus 6's whose
 * release string carries the tree's commit.
 */
#ifndef POWERPIN_VERMAGIC_H
#define POWERPIN_VERMAGIC_H

#include <stdbool.h>
#include <stddef.h>

#define VERMAGIC_MAX	256

struct vermagic {
	char text[VERMAGIC_MAX];	/* as in the module */
	char release[VERMAGIC_MAX];	/* its first word */
	bool smp, preempt, preempt_rt, mod_unload, modversions;
};

/*
 * Find the vermagic in a module file's bytes (@buf, @len: linear in @len)
 * and split it into @vm.  Returns 0, or -1 with errno EINVAL (none: not a
 * kernel module) or ENAMETOOLONG (one longer than VERMAGIC_MAX).
 */
int vermagic_find(const void *buf, size_t len, struct vermagic *vm);

/* One difference between a module and a kernel, in the user's words. */
struct vermagic_diff {
	const char *what;		/* "release", "SMP", "preemption" */
	char module[VERMAGIC_MAX];
	char kernel[VERMAGIC_MAX];
};

/*
 * Compare @vm with a kernel whose `uname -r` is @release and `uname -v`
 * @version ("#1 SMP PREEMPT ...").  Fills up to @max differences into
 * @diff and returns how many there are (0: insmod's vermagic check passes).
 */
int vermagic_compare(const struct vermagic *vm, const char *release, const char *version,
		     struct vermagic_diff *diff, int max);

#endif
