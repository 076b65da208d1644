/* SPDX-License-Identifier: GPL-2.0 */
/*
 * trace/: the readers of traces: ftrace text, trace.dat (libtracecmd) and
 * perf script text, each handing events to a caller's callbacks.
 */
#ifndef POWERPIN_TRACE_ROOM_H
#define POWERPIN_TRACE_ROOM_H

#include "trace_input.h"
#include "perf_script.h"

#endif
