// SPDX-License-Identifier: GPL-2.0
/*
 * powerpin modcheck: will this kernel take this powerpin.ko?  Compares the
 * module's vermagic with the running kernel (or the release and version
 * given, for a phone checked from the host) the way insmod's loader does,
 * and says what differs before insmod refuses with "Exec format error".
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "commands.h"
#include "base/base.h"

#define MODULE_MAX_BYTES	(256 << 20)
#define MAX_DIFFS		4

static void modcheck_usage(FILE *out)
{
	fprintf(out,
		"usage: powerpin modcheck MODULE.ko [--release R --kernel-version V]\n\n"
		"Check that a kernel module matches the kernel it is about to be loaded\n"
		"into, as the module loader does: the release (uname -r; a phone's carries\n"
		"its tree's commit), SMP and preemption (uname -v).  Prints the module's\n"
		"vermagic and each difference; exit status 0 when insmod's check passes,\n"
		"1 when it would refuse the module or the kernel loads no modules.\n\n"
		"  -r, --release R          the kernel's `uname -r` (default: this kernel's)\n"
		"  -k, --kernel-version V   the kernel's `uname -v`, given with --release:\n"
		"                           check a phone's kernel from the host, e.g.\n"
		"                           --release \"$(adb shell uname -r)\"\n"
		"                           --kernel-version \"$(adb shell uname -v)\"\n"
		"  -h, --help               this help\n");
}

/* The running kernel's release and version; whether it loads modules. */
static int this_kernel(char *release, char *version, size_t len)
{
	struct utsname u;

	if (uname(&u)) {
		fprintf(stderr, "powerpin modcheck: uname: %s\n", strerror(errno));
		return -1;
	}
	snprintf(release, len, "%s", u.release);
	snprintf(version, len, "%s", u.version);
	if (access("/proc/modules", F_OK)) {
		fprintf(stderr,
			"powerpin modcheck: this kernel loads no modules (no /proc/modules): build and flash one with CONFIG_MODULES=y (kmod/README.md, \"Nexus 6\")\n");
		return 1;
	}
	return 0;
}

static int check_module(const char *path, const char *release, const char *version)
{
	struct vermagic_diff diff[MAX_DIFFS];
	struct vermagic vm;
	size_t len;
	void *buf;
	int n, i;

	if (read_bounded_file(path, MODULE_MAX_BYTES, &buf, &len)) {
		fprintf(stderr, "powerpin modcheck: %s: %s\n", path,
			errno == EFBIG ? "larger than any kernel module (256 MiB)" : strerror(errno));
		return 1;
	}
	if (vermagic_find(buf, len, &vm)) {
		fprintf(stderr, "powerpin modcheck: %s: %s\n", path, errno == EINVAL ?
			"not a kernel module (no vermagic in it)" : "its vermagic is too long");
		free(buf);
		return 1;
	}
	free(buf);
	printf("module  %s\nkernel  %s %s\n", vm.text, release, version);
	n = vermagic_compare(&vm, release, version, diff, MAX_DIFFS);
	for (i = 0; i < n && i < MAX_DIFFS; i++)
		printf("differs %s: the module's is %s, the kernel's %s\n",
		       diff[i].what, diff[i].module, diff[i].kernel);
	if (n)
		fprintf(stderr,
			"powerpin modcheck: %s does not match this kernel: build it against the tree, configuration and compiler the kernel was built with\n",
			path);
	else
		printf("matches (insmod's vermagic check passes%s)\n",
		       vm.modversions ? "; symbol versions are checked at load" : "");
	return n ? 1 : 0;
}

int cmd_modcheck(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "release", required_argument, NULL, 'r' },
		{ "kernel-version", required_argument, NULL, 'k' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	char release[256], version[256];
	const char *r = NULL, *v = NULL;
	int c, st;

	while ((c = getopt_long(argc, argv, "r:k:h", opts, NULL)) != -1) {
		switch (c) {
		case 'r':
			r = optarg;
			break;
		case 'k':
			v = optarg;
			break;
		case 'h':
			modcheck_usage(stdout);
			return flush_stdout() ? 1 : 0;
		default:
			return usage_error("powerpin modcheck");
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "powerpin modcheck: %s\n",
			optind < argc ? "one module, please" : "which module?");
		return usage_error("powerpin modcheck");
	}
	if (!r != !v || (r && !r[0])) {
		fprintf(stderr, "powerpin modcheck: --release and --kernel-version go together%s\n",
			r && !r[0] ? ", and the release is not empty" : "");
		return usage_error("powerpin modcheck");
	}
	if (r) {
		snprintf(release, sizeof(release), "%s", r);
		snprintf(version, sizeof(version), "%s", v);
	} else if ((st = this_kernel(release, version, sizeof(release)))) {
		return st < 0 ? 1 : st;
	}
	st = check_module(argv[optind], release, version);
	return flush_stdout() ? 1 : st;
}
