/* SPDX-License-Identifier: GPL-2.0 */
/*
 * java/: a Java program's side of a capture: perf-<pid>.map JIT maps,
 * the agent's allocation logs, and flame graphs (folded stacks, SVG, HTML).
 */
#ifndef POWERPIN_JAVA_ROOM_H
#define POWERPIN_JAVA_ROOM_H

#include "alloc_log.h"
#include "perf_map.h"
#include "flame.h"

#endif
