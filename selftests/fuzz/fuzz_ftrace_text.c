// SPDX-License-Identifier: GPL-2.0
/* ftrace text: the line parser alone, then the whole text reader. */
#include <string.h>

#include "fuzz.h"
#include "trace/trace.h"

struct seen {
	uint64_t last_ts;
	unsigned long events;
};

static void check_inside(const char *p, const char *line, size_t len)
{
	if (p)
		FUZZ_CHECK(p >= line && p <= line + len);
}

static void parse_one(const uint8_t *s, size_t len)
{
	char *line = malloc(len + 1);
	struct trace_event ev;
	int r;

	FUZZ_CHECK(line);
	memcpy(line, s, len);
	line[len] = '\0';
	r = trace_text_parse_line(line, &ev);
	FUZZ_CHECK(r >= TRACE_LINE_VALUE_RANGE && r <= 2);
	if (r == 1) {
		check_inside(ev.comm, line, len);
		switch (ev.kind) {
		case TRACE_EV_SWITCH:
			check_inside(ev.sw.prev_comm, line, len);
			check_inside(ev.sw.next_comm, line, len);
			break;
		case TRACE_EV_MARK:
			check_inside(ev.mark.text, line, len);
			FUZZ_CHECK(ev.mark.text + ev.mark.len <= line + len);
			break;
		case TRACE_EV_COUNTER:
			check_inside(ev.counter.track, line, len);
			break;
		default:
			break;
		}
	}
	free(line);
}

static int on_event(const struct trace_event *ev, void *arg)
{
	struct seen *s = arg;

	/* the reader delivers in timestamp order or fails */
	FUZZ_CHECK(ev->ts_ns >= s->last_ts);
	s->last_ts = ev->ts_ns;
	s->events++;
	return 0;
}

static void on_cpus(int nr_cpus, void *arg)
{
}

static void on_comm(int pid, const char *comm, void *arg)
{
	FUZZ_CHECK(comm);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct trace_input_ops ops = {
		.event = on_event, .cpus = on_cpus, .comm = on_comm,
	};
	const uint8_t *p = data, *end = data + size, *nl;
	struct seen seen = { 0 };
	char err[512];

	while (p < end) {
		nl = memchr(p, '\n', end - p);
		if (!nl)
			nl = end;
		parse_one(p, nl - p);
		p = nl + 1;
	}
	if (trace_input_read_text(fuzz_file(data, size), &ops, &seen, err, sizeof(err)))
		FUZZ_CHECK(err[0]);
	return 0;
}
