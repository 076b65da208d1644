// SPDX-License-Identifier: GPL-2.0
/* Client side of the "powerpin" generic netlink family, on libnl-genl-3. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/powerpin.h>
#include <netlink/netlink.h>
#include <netlink/genl/genl.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/family.h>

#include "genl.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

struct pp_genl {
	struct nl_sock *sk;	/* requests */
	struct nl_sock *ev;	/* events, when listening */
	int family;		/* -1 while the family is not registered */
	int grp;
	char err[256];
	/* round trip in progress */
	int done;
	int error;
	struct pp_status *reply;
	/* event delivery in progress */
	void (*fn)(const struct pp_event *ev, void *arg);
	void *arg;
	int nevents;
};

const char *pp_state_name(uint32_t state)
{
	switch (state) {
	case POWERPIN_STATE_IDLE:
		return "idle";
	case POWERPIN_STATE_WAITING_SUPPLY:
		return "waiting-supply";
	case POWERPIN_STATE_SAMPLING:
		return "sampling";
	default:
		return "unknown";
	}
}

const char *pp_genl_error(const struct pp_genl *g)
{
	return g->err[0] ? g->err : NULL;
}

/* libnl's error codes lose the errno; map the few libnl can produce itself. */
static int nlerr_to_errno(int nlerr)
{
	switch (nlerr < 0 ? -nlerr : nlerr) {
	case NLE_OBJ_NOTFOUND:
		return ENOENT;
	case NLE_PERM:
		return EPERM;
	case NLE_NOMEM:
		return ENOMEM;
	case NLE_AGAIN:
		return EAGAIN;
	case NLE_INVAL:
		return EINVAL;
	case NLE_OPNOTSUPP:
		return EOPNOTSUPP;
	default:
		return EIO;
	}
}

static struct nl_sock *pp_socket(void)
{
	struct nl_sock *sk = nl_socket_alloc();
	int one = 1;

	if (!sk) {
		errno = ENOMEM;
		return NULL;
	}
	if (genl_connect(sk)) {
		nl_socket_free(sk);
		errno = EPROTONOSUPPORT;
		return NULL;
	}
	/*
	 * libnl 3.7 neither asks for nor parses extended acks; ask the kernel
	 * for them (capped, so the TLVs sit right after struct nlmsgerr) and
	 * read the message in on_error().
	 */
	setsockopt(nl_socket_get_fd(sk), SOL_NETLINK, NETLINK_EXT_ACK, &one,
		   sizeof(one));
	setsockopt(nl_socket_get_fd(sk), SOL_NETLINK, NETLINK_CAP_ACK, &one,
		   sizeof(one));
	return sk;
}

static int pp_resolve(struct pp_genl *g)
{
	int id, grp;

	id = genl_ctrl_resolve(g->sk, POWERPIN_GENL_NAME);
	if (id < 0) {
		g->family = -1;
		errno = nlerr_to_errno(id);
		return -1;
	}
	grp = genl_ctrl_resolve_grp(g->sk, POWERPIN_GENL_NAME,
				    POWERPIN_GENL_MCGRP_EVENTS);
	if (grp < 0) {
		errno = nlerr_to_errno(grp);
		return -1;
	}
	g->family = id;
	g->grp = grp;
	return 0;
}

struct pp_genl *pp_genl_open(void)
{
	struct pp_genl *g = calloc(1, sizeof(*g));
	int e;

	if (!g)
		return NULL;
	g->family = -1;
	g->sk = pp_socket();
	if (!g->sk)
		goto err;
	if (pp_resolve(g))
		goto err;
	return g;
err:
	e = errno;
	pp_genl_close(g);
	errno = e;
	return NULL;
}

void pp_genl_close(struct pp_genl *g)
{
	if (!g)
		return;
	if (g->sk)
		nl_socket_free(g->sk);
	if (g->ev)
		nl_socket_free(g->ev);
	free(g);
}

static void parse_status(struct nlattr **tb, struct pp_status *st)
{
	memset(st, 0, sizeof(*st));
#define U8(a, f)  do { if (tb[a]) st->f = nla_get_u8(tb[a]); } while (0)
#define U32(a, f) do { if (tb[a]) st->f = nla_get_u32(tb[a]); } while (0)
#define U64(a, f) do { if (tb[a]) st->f = nla_get_u64(tb[a]); } while (0)
#define S64(a, f) do { if (tb[a]) st->f = nla_get_s64(tb[a]); } while (0)
#define STR(a, f) do { if (tb[a]) nla_strlcpy(st->f, tb[a], sizeof(st->f)); } while (0)
	U32(POWERPIN_ATTR_STATE, state);
	U8(POWERPIN_ATTR_EVENT_ENABLED, event_enabled);
	/* absent: a KMI build of the module, which cannot read it */
	st->tracing_on = -1;
	U8(POWERPIN_ATTR_TRACING_ON, tracing_on);
	STR(POWERPIN_ATTR_SUPPLY, supply);
	STR(POWERPIN_ATTR_SUPPLY_BOUND, supply_bound);
	U8(POWERPIN_ATTR_SUPPLY_PRESENT, supply_present);
	U32(POWERPIN_ATTR_PERIOD_US, period_us);
	U64(POWERPIN_ATTR_SAMPLES, samples);
	U64(POWERPIN_ATTR_READ_ERRORS, read_errors);
	U64(POWERPIN_ATTR_MISSED, missed);
	U64(POWERPIN_ATTR_SUPPLY_LOST, supply_lost);
	U64(POWERPIN_ATTR_SUPPLY_FOUND, supply_found);
	U32(POWERPIN_ATTR_LAST_SEQ, last_seq);
	U64(POWERPIN_ATTR_LAST_TIME_NS, last_time_ns);
	S64(POWERPIN_ATTR_LAST_VOLTAGE_UV, last_voltage_uv);
	S64(POWERPIN_ATTR_LAST_CURRENT_UA, last_current_ua);
	S64(POWERPIN_ATTR_LAST_CHARGE_UAH, last_charge_uah);
	S64(POWERPIN_ATTR_LAST_POWER_UW, last_power_uw);
	U32(POWERPIN_ATTR_LAST_FLAGS, last_flags);
	st->has_readings = tb[POWERPIN_ATTR_LAST_VOLTAGE_UV] != NULL;
#undef U8
#undef U32
#undef U64
#undef S64
#undef STR
}

static int on_reply(struct nl_msg *msg, void *arg)
{
	struct pp_genl *g = arg;
	struct nlattr *tb[POWERPIN_ATTR_MAX + 1];

	if (!g->reply)
		return NL_OK;
	if (genlmsg_parse(nlmsg_hdr(msg), 0, tb, POWERPIN_ATTR_MAX, NULL))
		return NL_SKIP;
	parse_status(tb, g->reply);
	return NL_OK;
}

static int on_ack(struct nl_msg *msg, void *arg)
{
	struct pp_genl *g = arg;

	g->done = 1;
	return NL_STOP;
}

static int on_error(struct sockaddr_nl *nla, struct nlmsgerr *e, void *arg)
{
	/* the error message's header sits right before its payload */
	struct nlmsghdr *hdr = (struct nlmsghdr *)((char *)e - NLMSG_HDRLEN);
	struct pp_genl *g = arg;
	struct nlattr *msg;
	int len;

	g->done = 1;
	g->error = -e->error;
	if (!(hdr->nlmsg_flags & NLM_F_ACK_TLVS) ||
	    !(hdr->nlmsg_flags & NLM_F_CAPPED))
		return NL_STOP;
	len = (int)hdr->nlmsg_len - NLMSG_HDRLEN - (int)sizeof(*e);
	if (len <= 0)
		return NL_STOP;
	msg = nla_find((struct nlattr *)(e + 1), len, NLMSGERR_ATTR_MSG);
	if (msg)
		nla_strlcpy(g->err, msg, sizeof(g->err));
	return NL_STOP;
}

struct nl_msg *pp_genl_msg(struct pp_genl *g, uint8_t cmd, uint8_t version)
{
	struct nl_msg *msg = nlmsg_alloc();

	if (!msg) {
		errno = ENOMEM;
		return NULL;
	}
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, g->family < 0 ? 0 : g->family,
			 0, 0, cmd, version)) {
		nlmsg_free(msg);
		errno = ENOMEM;
		return NULL;
	}
	return msg;
}

int pp_genl_transact(struct pp_genl *g, struct nl_msg *msg,
		     struct pp_status *reply)
{
	struct nl_cb *cb;
	int ret;

	g->err[0] = '\0';
	g->done = 0;
	g->error = 0;
	g->reply = reply;
	cb = nl_cb_alloc(NL_CB_DEFAULT);
	if (!cb)
		return ENOMEM;
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, on_reply, g);
	nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, on_ack, g);
	nl_cb_err(cb, NL_CB_CUSTOM, on_error, g);

	ret = nl_send_auto(g->sk, msg);
	if (ret < 0) {
		g->error = nlerr_to_errno(ret);
		goto out;
	}
	while (!g->done) {
		ret = nl_recvmsgs(g->sk, cb);
		if (ret < 0 && !g->done) {
			g->error = nlerr_to_errno(ret);
			break;
		}
	}
out:
	nl_cb_put(cb);
	g->reply = NULL;
	return g->error;
}

static int pp_request(struct pp_genl *g, struct nl_msg *msg,
		      struct pp_status *reply)
{
	int ret = pp_genl_transact(g, msg, reply);

	nlmsg_free(msg);
	if (ret) {
		errno = ret;
		return -1;
	}
	return 0;
}

int pp_genl_get_status(struct pp_genl *g, struct pp_status *st)
{
	struct nl_msg *msg = pp_genl_msg(g, POWERPIN_CMD_GET_STATUS,
					 POWERPIN_GENL_VERSION);

	if (!msg)
		return -1;
	return pp_request(g, msg, st);
}

int pp_genl_set_config(struct pp_genl *g, const uint32_t *period_us,
		       const char *supply)
{
	struct nl_msg *msg = pp_genl_msg(g, POWERPIN_CMD_SET_CONFIG,
					 POWERPIN_GENL_VERSION);

	if (!msg)
		return -1;
	if ((period_us && nla_put_u32(msg, POWERPIN_ATTR_PERIOD_US, *period_us)) ||
	    (supply && nla_put_string(msg, POWERPIN_ATTR_SUPPLY, supply))) {
		nlmsg_free(msg);
		errno = EMSGSIZE;
		return -1;
	}
	return pp_request(g, msg, NULL);
}

/* ---- events ------------------------------------------------------------ */

static void emit(struct pp_genl *g, const struct pp_event *ev)
{
	g->nevents++;
	if (g->fn)
		g->fn(ev, g->arg);
}

static int on_ctrl(struct pp_genl *g, struct nlmsghdr *nlh)
{
	struct genlmsghdr *gh = nlmsg_data(nlh);
	struct nlattr *tb[CTRL_ATTR_MAX + 1];
	struct pp_event ev = { 0 };

	if (genlmsg_parse(nlh, 0, tb, CTRL_ATTR_MAX, NULL) ||
	    !tb[CTRL_ATTR_FAMILY_NAME] ||
	    strcmp(nla_get_string(tb[CTRL_ATTR_FAMILY_NAME]), POWERPIN_GENL_NAME))
		return NL_OK;

	if (gh->cmd == CTRL_CMD_DELFAMILY && g->family >= 0) {
		g->family = -1;
		ev.kind = PP_EVENT_FAMILY_GONE;
		emit(g, &ev);
	} else if ((gh->cmd == CTRL_CMD_NEWFAMILY || gh->cmd == CTRL_CMD_NEWMCAST_GRP) &&
		   g->family < 0) {
		/*
		 * Up to 3.12 a family's multicast groups are registered after
		 * the family, each with its own notification: on a preemptible
		 * kernel (the Nexus 6's) this runs in between, finds no group
		 * yet, and the group's notification tries again.
		 */
		if (pp_resolve(g) ||
		    nl_socket_add_membership(g->ev, g->grp))
			return NL_OK;	/* not all there yet, or gone again */
		ev.kind = PP_EVENT_FAMILY_BACK;
		emit(g, &ev);
	}
	return NL_OK;
}

static int on_event(struct nl_msg *msg, void *arg)
{
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct nlattr *tb[POWERPIN_ATTR_MAX + 1];
	struct pp_genl *g = arg;
	struct genlmsghdr *gh;
	struct pp_event ev = { 0 };

	if (nlh->nlmsg_type == GENL_ID_CTRL)
		return on_ctrl(g, nlh);
	if (g->family < 0 || nlh->nlmsg_type != g->family)
		return NL_OK;
	gh = nlmsg_data(nlh);
	if (genlmsg_parse(nlh, 0, tb, POWERPIN_ATTR_MAX, NULL))
		return NL_OK;
	switch (gh->cmd) {
	case POWERPIN_CMD_CAPTURE_STARTED:
		ev.kind = PP_EVENT_CAPTURE_STARTED;
		break;
	case POWERPIN_CMD_CAPTURE_STOPPED:
		ev.kind = PP_EVENT_CAPTURE_STOPPED;
		break;
	case POWERPIN_CMD_SUPPLY_FOUND:
		ev.kind = PP_EVENT_SUPPLY_FOUND;
		break;
	case POWERPIN_CMD_SUPPLY_LOST:
		ev.kind = PP_EVENT_SUPPLY_LOST;
		break;
	default:
		return NL_OK;
	}
	if (tb[POWERPIN_ATTR_TIME_NS])
		ev.time_ns = nla_get_u64(tb[POWERPIN_ATTR_TIME_NS]);
	if (tb[POWERPIN_ATTR_CAPTURE_SAMPLES])
		ev.capture_samples = nla_get_u64(tb[POWERPIN_ATTR_CAPTURE_SAMPLES]);
	if (tb[POWERPIN_ATTR_SUPPLY_BOUND])
		nla_strlcpy(ev.supply, tb[POWERPIN_ATTR_SUPPLY_BOUND],
			    sizeof(ev.supply));
	emit(g, &ev);
	return NL_OK;
}

struct pp_genl *pp_genl_listen(bool *loaded)
{
	struct pp_genl *g = calloc(1, sizeof(*g));
	int ctrl_grp, e;

	if (!g)
		return NULL;
	g->family = -1;
	g->sk = pp_socket();
	if (!g->sk)
		goto err;
	g->ev = pp_socket();
	if (!g->ev)
		goto err;
	nl_socket_disable_seq_check(g->ev);
	/* room for bursts of events while the daemon writes a capture */
	nl_socket_set_buffer_size(g->ev, 1 << 20, 0);
	nl_socket_modify_cb(g->ev, NL_CB_VALID, NL_CB_CUSTOM, on_event, g);
	if (nl_socket_set_nonblocking(g->ev)) {
		errno = EIO;
		goto err;
	}
	ctrl_grp = genl_ctrl_resolve_grp(g->sk, "nlctrl", "notify");
	if (ctrl_grp < 0 || nl_socket_add_membership(g->ev, ctrl_grp)) {
		errno = EPROTONOSUPPORT;
		goto err;
	}
	/* join after the controller, so a load in between is not missed */
	if (!pp_resolve(g) && nl_socket_add_membership(g->ev, g->grp)) {
		errno = EIO;
		goto err;
	}
	*loaded = g->family >= 0;
	return g;
err:
	e = errno;
	pp_genl_close(g);
	errno = e;
	return NULL;
}

int pp_genl_fd(const struct pp_genl *g)
{
	return nl_socket_get_fd(g->ev ? g->ev : g->sk);
}

int pp_genl_read_events(struct pp_genl *g,
			void (*fn)(const struct pp_event *ev, void *arg),
			void *arg)
{
	struct nl_cb *cb = nl_socket_get_cb(g->ev);
	int ret;

	g->fn = fn;
	g->arg = arg;
	g->nevents = 0;
	for (;;) {
		/* > 0: messages handled, 0 or -NLE_AGAIN: nothing left */
		ret = nl_recvmsgs_report(g->ev, cb);
		if (ret == 0 || ret == -NLE_AGAIN)
			break;
		if (ret < 0) {
			nl_cb_put(cb);
			/* ENOBUFS and friends: report, the caller resyncs */
			g->fn = NULL;
			errno = nlerr_to_errno(ret);
			return -1;
		}
	}
	nl_cb_put(cb);
	g->fn = NULL;
	return g->nevents;
}
