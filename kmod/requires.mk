# SPDX-License-Identifier: GPL-2.0
#
# What powerpin.ko needs of the kernel it is built for, checked in the
# tree's configuration before anything compiles: a tree without one of
# these stops with one line naming all that is missing, never with a
# compiler error deep in a header.  (A tree without CONFIG_MODULES is
# refused by the kernel's own Makefile first, in one line too.)  Included
# by kmod/Kbuild.
pp_why_EVENT_TRACING := trace events, which any tracer selects: CONFIG_ENABLE_DEFAULT_TRACERS=y
pp_why_POWER_SUPPLY := the power_supply class of the fuel gauge
pp_why_NET := generic netlink
pp_missing := $(foreach c,EVENT_TRACING POWER_SUPPLY NET,$(if $(CONFIG_$(c)),,$(c)))
pp_sep := ,
pp_cl := )
pp_list := $(foreach c,$(pp_missing),CONFIG_$(c) ($(pp_why_$(c))))
ifneq ($(strip $(pp_missing)),)
$(error powerpin: the kernel at $(srctree) lacks what the module needs: $(subst $(pp_cl) CONFIG_,$(pp_cl)$(pp_sep) CONFIG_,$(pp_list)))
endif
