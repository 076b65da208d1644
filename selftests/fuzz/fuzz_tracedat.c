// SPDX-License-Identifier: GPL-2.0
/* trace.dat input: libtracecmd's reader plus powerpin's field decoding. */
#define FUZZ_THROUGH_LIBTRACECMD
#include "fuzz.h"
#include "trace/trace.h"

struct seen {
	uint64_t last_ts;
};

static int on_event(const struct trace_event *ev, void *arg)
{
	struct seen *s = arg;

	FUZZ_CHECK(ev->ts_ns >= s->last_ts);
	s->last_ts = ev->ts_ns;
	if (ev->kind == TRACE_EV_MARK)
		FUZZ_CHECK(ev->mark.text || !ev->mark.len);
	return 0;
}

static void on_cpus(int nr_cpus, void *arg)
{
}

static void on_comm(int pid, const char *comm, void *arg)
{
	FUZZ_CHECK(comm);
}

static void on_lost(uint64_t lost, void *arg)
{
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct trace_input_ops ops = {
		.event = on_event, .cpus = on_cpus, .comm = on_comm, .kernel_lost = on_lost,
	};
	struct seen seen = { 0 };
	char err[512];

	fuzz_close_leaked_fds();
	if (trace_input_read_tracedat(fuzz_file(data, size), &ops, &seen, err, sizeof(err)))
		FUZZ_CHECK(err[0]);
	return 0;
}
