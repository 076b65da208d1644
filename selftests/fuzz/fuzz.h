/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers for the libFuzzer harnesses in this directory.  Each harness
 * calls one parser of daemon/lib the way the tools do and checks what the
 * parser promises about its result; a sanitizer report, an abort() or a
 * failed FUZZ_CHECK is a finding.  Built by `make fuzzers` (clang, ASan and
 * UBSan), run by scripts/fuzz.
 */
#ifndef POWERPIN_FUZZ_H
#define POWERPIN_FUZZ_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/mman.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A broken promise: say which, then abort so libFuzzer keeps the input. */
#define FUZZ_CHECK(cond) do {						\
	if (!(cond)) {							\
		fprintf(stderr, "%s:%d: check failed: %s\n",		\
			__FILE__, __LINE__, #cond);			\
		abort();						\
	}								\
} while (0)

/*
 * The input as a file, for readers that take a path: one memfd per process
 * (a regular file, as the readers require), rewritten for every input and
 * named through /proc/self/fd.
 */
static inline const char *fuzz_file(const uint8_t *data, size_t size)
{
	static char path[32];
	static int fd = -1;

	if (fd < 0) {
		fd = memfd_create("powerpin-fuzz", MFD_CLOEXEC);
		if (fd < 0)
			abort();
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	return path;
}

/* Where output goes when only the writing matters, not the bytes. */
static inline FILE *fuzz_sink(void)
{
	static FILE *sink;

	if (!sink)
		sink = fopen("/dev/null", "w");
	if (!sink)
		abort();
	return sink;
}

/*
 * For the harnesses that go through libtracecmd, which is not built with
 * the sanitizers: its own allocations are left out of leak reports (it
 * leaks records when a reader stops early, and a handle whose data failed
 * to load cannot be closed, see trace_input_dat.c), and an absurd size read
 * from a corrupt header gets NULL, as from glibc's malloc, instead of
 * aborting.  Define FUZZ_THROUGH_LIBTRACECMD before including this file.
 */
#ifdef FUZZ_THROUGH_LIBTRACECMD
const char *__asan_default_options(void);
const char *__lsan_default_suppressions(void);

const char *__asan_default_options(void)
{
	return "allocator_may_return_null=1";
}

const char *__lsan_default_suppressions(void)
{
	return "leak:libtracecmd.so\nleak:libtraceevent.so\n";
}

/*
 * The unclosable handle above also keeps its file descriptor: over a few
 * hundred thousand inputs the process runs out of them.  Call at the start
 * of every input; it closes whatever the previous input left open.
 */
static inline void fuzz_close_leaked_fds(void)
{
	static int first_free = -1;

	if (first_free < 0) {
		fuzz_sink();
		fuzz_file(NULL, 0);
		first_free = fcntl(0, F_DUPFD_CLOEXEC, 0);
		if (first_free < 0)
			abort();
		close(first_free);
	}
	close_range(first_free, ~0U, 0);
}
#endif

#endif
