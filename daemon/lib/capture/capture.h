/* SPDX-License-Identifier: GPL-2.0 */
/*
 * capture/: taking a capture: recording trace and samples to a file, the
 * daemon's configuration and spool, and the module's generic netlink family.
 */
#ifndef POWERPIN_CAPTURE_ROOM_H
#define POWERPIN_CAPTURE_ROOM_H

#include "record.h"
#include "daemon.h"
#include "genl.h"

#endif
