// SPDX-License-Identifier: GPL-2.0
/*
 * A module's vermagic against the running kernel.  The string is found by
 * its "vermagic=" key among the NUL-separated entries of .modinfo rather
 * than through an ELF library: the key is all insmod's check reads, and
 * the one linear scan works on 32- and 64-bit modules of any byte order.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "vermagic.h"

#define KEY	"vermagic="

static bool has_word(const char *s, const char *word)
{
	size_t n = strlen(word);
	const char *p = s;

	while ((p = strstr(p, word))) {
		if ((p == s || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
			return true;
		p += n;
	}
	return false;
}

static void vermagic_split(struct vermagic *vm)
{
	size_t n = strcspn(vm->text, " ");

	memcpy(vm->release, vm->text, n);
	vm->release[n] = '\0';
	vm->smp = has_word(vm->text, "SMP");
	vm->preempt_rt = has_word(vm->text, "preempt_rt");
	vm->preempt = vm->preempt_rt || has_word(vm->text, "preempt");
	vm->mod_unload = has_word(vm->text, "mod_unload");
	vm->modversions = has_word(vm->text, "modversions");
}

int vermagic_find(const void *buf, size_t len, struct vermagic *vm)
{
	const char *b = buf, *end = b + len, *p = b, *v, *nul;
	size_t n;

	while (p < end && (p = memmem(p, end - p, KEY, strlen(KEY)))) {
		/* an entry starts the section or follows another's NUL */
		if (p > b && p[-1] != '\0') {
			p++;
			continue;
		}
		v = p + strlen(KEY);
		nul = memchr(v, '\0', end - v);
		if (!nul)
			break;
		n = nul - v;
		if (n >= VERMAGIC_MAX) {
			errno = ENAMETOOLONG;
			return -1;
		}
		memcpy(vm->text, v, n);
		vm->text[n] = '\0';
		/* trailing blanks: the kernel writes "... ARMv7 p2v8 " */
		while (n && vm->text[n - 1] == ' ')
			vm->text[--n] = '\0';
		if (!n)
			break;
		vermagic_split(vm);
		return 0;
	}
	errno = EINVAL;
	return -1;
}

static int add_diff(struct vermagic_diff *diff, int n, int max, const char *what,
		    const char *module, const char *kernel)
{
	if (n < max) {
		diff[n].what = what;
		snprintf(diff[n].module, sizeof(diff[n].module), "%s", module);
		snprintf(diff[n].kernel, sizeof(diff[n].kernel), "%s", kernel);
	}
	return n + 1;
}

static const char *preempt_name(bool preempt, bool rt)
{
	return rt ? "PREEMPT_RT" : preempt ? "PREEMPT" : "not preemptible";
}

int vermagic_compare(const struct vermagic *vm, const char *release, const char *version,
		     struct vermagic_diff *diff, int max)
{
	bool k_smp = has_word(version, "SMP");
	bool k_rt = has_word(version, "PREEMPT_RT");
	bool k_preempt = k_rt || has_word(version, "PREEMPT") ||
			 has_word(version, "PREEMPT_DYNAMIC");
	int n = 0;

	if (strcmp(vm->release, release))
		n = add_diff(diff, n, max, "release", vm->release, release);
	if (vm->smp != k_smp)
		n = add_diff(diff, n, max, "SMP", vm->smp ? "SMP" : "not SMP",
			     k_smp ? "SMP" : "not SMP");
	if (vm->preempt != k_preempt || vm->preempt_rt != k_rt)
		n = add_diff(diff, n, max, "preemption", preempt_name(vm->preempt, vm->preempt_rt),
			     preempt_name(k_preempt, k_rt));
	return n;
}
