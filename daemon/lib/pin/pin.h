/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pin/: what stays in the page cache: pinlists, zip and APK indexes, pinconfig
 * files, and residency probing of files against the module.
 */
#ifndef POWERPIN_PIN_ROOM_H
#define POWERPIN_PIN_ROOM_H

#include "pinlist.h"
#include "zipindex.h"
#include "pinconfig.h"
#include "probe.h"

#endif
