/*
 * admit.c: checking a decoded message against its receiver's rules
 * (admit.h): pick the rule by type, state and flags, then check flags,
 * keys, width, scalars and blob, naming the first thing that is wrong.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>

#include "util/errbuf.h"
#include "wire/admit.h"

/* The names of flags ("NOKEYS|FP16"), in buf; the decoder refused others. */
static const char *
admit_flag_names(uint8_t flags, char *buf, size_t len)
{
	static const char *const names[] = {
		"LZ4", "NOKEYS", "CURRENT", "KEYSIG", "KEYCACHE", "FP16"
	};
	size_t i, at = 0;

	buf[0] = '\0';
	for (i = 0; i < sizeof names / sizeof names[0]; i++) {
		if (!(flags & (1u << i)))
			continue;
		at += (size_t)snprintf(buf + at, at < len ? len - at : 0, "%s%s",
		    at > 0 ? "|" : "", names[i]);
	}
	return buf;
}

/* The rule of m's type and flags in state, or NULL with the reason. */
static const struct ps_msg_rule *
admit_pick(const struct ps_msg_rule *rules, size_t n, unsigned state,
    const char *state_name, const struct ps_msg *m, char *err, size_t errlen)
{
	const char *name = ps_msg_type_name(m->type);
	char fl[64];
	size_t i, of_type = 0, in_state = 0;

	for (i = 0; i < n; i++) {
		const struct ps_msg_rule *r = &rules[i];

		if (r->type != m->type)
			continue;
		of_type++;
		if (!(r->states & state))
			continue;
		in_state++;
		if ((m->flags & r->pick_mask) == r->pick)
			return r;
	}
	if (of_type == 0)
		ps_errbuf(err, errlen, -1, "unexpected %s message", name);
	else if (in_state == 0)
		ps_errbuf(err, errlen, -1, "%s is not expected %s", name,
		    state_name);
	else
		ps_errbuf(err, errlen, -1, "%s with flags %s is not expected "
		    "%s", name, admit_flag_names(m->flags, fl, sizeof fl),
		    state_name);
	return NULL;
}

/* Check m's keys against rule r (admit.h, guarantee 2); 0 or -1. */
static int
admit_keys(const struct ps_msg_rule *r, const struct ps_msg *m, char *err,
    size_t errlen)
{
	int nokeys = (m->flags & PS_MSG_F_NOKEYS) != 0;

	switch (r->keys) {
	case PS_KEYS_NONE:
		if (m->nkeys != 0)
			return ps_errbuf(err, errlen, -1, "%s: %u keys, expected "
			    "none", r->what, m->nkeys);
		return 0;
	case PS_KEYS_COUNT:
		if (!nokeys)
			return ps_errbuf(err, errlen, -1, "%s: keys listed, "
			    "expected NOKEYS", r->what);
		return 0;
	case PS_KEYS_VALUES:
		if (nokeys && m->nkeys > 0 && m->width == 0)
			return ps_errbuf(err, errlen, -1, "%s: %u keys without "
			    "keys or values", r->what, m->nkeys);
		if (nokeys)
			return 0;
		/* FALLTHROUGH */
	case PS_KEYS_LIST:
		if (nokeys)
			return ps_errbuf(err, errlen, -1, "%s: NOKEYS, expected "
			    "its keys", r->what);
		if (m->nkeys > 0 && m->keys == NULL &&
		    !(m->flags & PS_MSG_F_KEYSIG))
			return ps_errbuf(err, errlen, -1, "%s: %u keys missing",
			    r->what, m->nkeys);
		return 0;
	}
	return ps_errbuf(err, errlen, -1, "%s: bad rule", r->what);
}

/* "what: N scalars, expected 1 to 3" when n is outside [lo, hi]; 0 or -1. */
static int
admit_range(const struct ps_msg_rule *r, const char *field, unsigned n,
    unsigned lo, unsigned hi, char *err, size_t errlen)
{
	if (n >= lo && n <= hi)
		return 0;
	if (lo == hi)
		return ps_errbuf(err, errlen, -1, "%s: %s %u, expected %u",
		    r->what, field, n, lo);
	return ps_errbuf(err, errlen, -1, "%s: %s %u, expected %u to %u",
	    r->what, field, n, lo, hi);
}

/* Check the counts of m against rule r; 0 or -1. */
static int
admit_counts(const struct ps_msg_rule *r, const struct ps_msg *m, char *err,
    size_t errlen)
{
	if (admit_range(r, "width", m->width, r->width_min, r->width_max,
	    err, errlen) != 0 ||
	    admit_range(r, "aux count", m->naux, r->naux_min, r->naux_max,
	    err, errlen) != 0)
		return -1;
	if (m->bloblen > r->blob_max)
		return ps_errbuf(err, errlen, -1, "%s: %zu blob bytes, at "
		    "most %u expected", r->what, m->bloblen, r->blob_max);
	if (m->nkeys > 0 && m->width > 0 && m->vals == NULL)
		return ps_errbuf(err, errlen, -1, "%s: %u keys without their "
		    "values", r->what, m->nkeys);
	return 0;
}

const struct ps_msg_rule *
ps_msg_admit(const struct ps_msg_rule *rules, size_t n, unsigned state,
    const char *state_name, const struct ps_msg *m, char *err, size_t errlen)
{
	const struct ps_msg_rule *r;
	uint8_t allowed, extra;
	char fl[64];

	r = admit_pick(rules, n, state, state_name, m, err, errlen);
	if (r == NULL)
		return NULL;
	allowed = r->pick | r->flags;
	if (r->keys != PS_KEYS_LIST)
		allowed |= PS_MSG_F_NOKEYS;
	extra = m->flags & ~allowed;
	if (extra != 0) {
		ps_errbuf(err, errlen, -1, "%s: flag %s not expected",
		    r->what, admit_flag_names(extra, fl, sizeof fl));
		return NULL;
	}
	if (admit_keys(r, m, err, errlen) != 0 ||
	    admit_counts(r, m, err, errlen) != 0)
		return NULL;
	return r;
}

int
ps_aux_whole(double v, double lo, double hi)
{
	return v >= lo && v <= hi && v == floor(v);
}
