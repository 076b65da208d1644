/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kselftest harness as the guest tests use it.
 *
 * A guest is an emulated machine that shares two host cores with other
 * guests: a test that takes 3 s alone can take ten times that while they
 * all run.  The harness's 30 s default would fail such a test for the
 * load, not for a fault, so a test without its own TEST_*_TIMEOUT gets a
 * ceiling only a hang reaches.  What a test measures in time it measures
 * against the guest's own clock, never against this.
 */
#ifndef POWERPIN_GUEST_HARNESS_H
#define POWERPIN_GUEST_HARNESS_H

#include <kselftest_harness.h>

#undef TEST_TIMEOUT_DEFAULT
#define TEST_TIMEOUT_DEFAULT 300

#endif
