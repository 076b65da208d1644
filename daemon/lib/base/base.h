/* SPDX-License-Identifier: GPL-2.0 */
/*
 * base/: what every room stands on: output files, hashing, JSON and number
 * helpers, the platform's facts, the version and the module's vermagic.
 */
#ifndef POWERPIN_BASE_ROOM_H
#define POWERPIN_BASE_ROOM_H

#include "output.h"
#include "util.h"
#include "hash_index.h"
#include "platform.h"
#include "version.h"
#include "vermagic.h"

#endif
