/*
 * filters.c: the traffic filters of a DBPG job (Li et al., OSDI 2014,
 * section 4.2; pskit.7, "Filters"): parsing -F, when each one applies, and
 * the counters that every progress line ends with.
 *
 * Filters that lose information (significantly-modified with theta > 0,
 * random skip) stay off in "exact" passes: a pass that begins with the
 * whole KKT active set, and the pass after it.  The stopping rule only
 * ever compares such passes, and after the last one every worker's copy
 * of its weights equals the servers'.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/keyhash.h"
#include "util/parsenum.h"
#include "worker.h"

static const struct {
	const char	*name;
	unsigned	 bit;
} filter_names[] = {
	{ "kkt", FILTER_KKT },
	{ "sigmod", FILTER_SIGMOD },
	{ "skip", FILTER_SKIP },
	{ "keycache", FILTER_KEYCACHE },
	{ "lz4", FILTER_LZ4 },
	{ "fp16", FILTER_FP16 },
};
#define NFILTERS	(sizeof filter_names / sizeof filter_names[0])

/* The value of "name=x" into *v, within [lo, hi]; -1 if bad. */
static int
filters_param(const char *eq, double lo, double hi, double *v)
{
	if (eq == NULL)
		return 0;
	return ps_parsenum_double_in(eq + 1, lo, hi, v) == PS_NUM_OK ? 0 : -1;
}

/*
 * "kkt,sigmod=0.01,skip=0.3", "all" or "none" into c->filters and the
 * parameters; -1 on an unknown name or a bad value.
 */
int
filters_parse(const char *list, struct worker_conf *c)
{
	char buf[256], *tok, *save, *eq;
	size_t i;

	if (strlen(list) >= sizeof buf)
		return -1;
	snprintf(buf, sizeof buf, "%s", list);
	c->filters = 0;
	for (tok = strtok_r(buf, ",", &save); tok != NULL;
	    tok = strtok_r(NULL, ",", &save)) {
		if ((eq = strchr(tok, '=')) != NULL)
			*eq = '\0';
		if (strcmp(tok, "none") == 0 || strcmp(tok, "all") == 0) {
			for (i = 0; i < NFILTERS && *tok == 'a'; i++)
				c->filters |= filter_names[i].bit;
			if (eq != NULL)
				return -1;
			continue;
		}
		for (i = 0; i < NFILTERS; i++)
			if (strcmp(tok, filter_names[i].name) == 0)
				break;
		if (i == NFILTERS)
			return -1;
		c->filters |= filter_names[i].bit;
		if (filter_names[i].bit == FILTER_SIGMOD ?
		    filters_param(eq, 0, 1e6, &c->theta) != 0 :
		    filter_names[i].bit == FILTER_SKIP ?
		    filters_param(eq, 0, 0.99, &c->skip) != 0 : eq != NULL)
			return -1;
	}
	return 0;
}

/* The names of the filters on, comma-separated, or "none". */
const char *
filters_names(unsigned filters, char *buf, size_t len)
{
	size_t i, n = 0;

	buf[0] = '\0';
	for (i = 0; i < NFILTERS && n < len; i++)
		if (filters & filter_names[i].bit)
			n += (size_t)snprintf(buf + n, len - n, "%s%s",
			    n > 0 ? "," : "", filter_names[i].name);
	return n > 0 ? buf : "none";
}

/* Does pass run without lossy filters? */
int
filters_exact_pass(const struct worker *w, uint64_t pass)
{
	return w->dbpg.fullpass[pass] || (pass > 0 && w->dbpg.fullpass[pass - 1]);
}

/* The significantly-modified threshold of a pass; NAN when the filter is off. */
double
filters_theta(const struct worker *w, uint64_t pass)
{
	if (!(w->conf.filters & FILTER_SIGMOD))
		return NAN;
	if (filters_exact_pass(w, pass))
		return 0;
	return w->conf.theta / (double)(pass + 1);
}

/*
 * Random skip: leave key out of iteration t's push?  The draw depends only
 * on (seed, t, key), so every worker skips the same keys and the servers
 * never sum part of a key's gradient.
 */
int
filters_skip(const struct worker *w, uint64_t t, uint64_t key)
{
	uint64_t h;

	if (!(w->conf.filters & FILTER_SKIP) ||
	    filters_exact_pass(w, t / w->dbpg.plan.nblocks))
		return 0;
	h = ps_key_mix(key ^ ps_key_mix(t + 0x9e3779b97f4a7c15ULL *
	    (w->conf.seed + 1)));
	return (double)(h >> 11) * 0x1p-53 < w->conf.skip;
}

void
filters_print_header(void)
{
	fputs("\tmsgs_sent\tmsgs_recv\tkkt_in\tkkt_out\tskip_out\tsigmod_in"
	    "\tsigmod_out\tkeycache_in\tkeycache_out\tfp16_in\tfp16_out"
	    "\tlz4_in\tlz4_out", stdout);
}

/* The counters as TSV columns (each begins with a tab). */
void
filters_print(const struct worker *w)
{
	const struct filter_counts *fc = &w->counts;
	struct ps_conn_stats sum;
	const struct ps_wire_sizes *out = &sum.out;

	links_stats(w, &sum);
	printf("\t%llu\t%llu\t%llu\t%llu\t%llu\t%llu\t%llu\t%llu\t%llu\t%llu"
	    "\t%llu\t%llu\t%llu", (unsigned long long)sum.msgs_out,
	    (unsigned long long)sum.msgs_in, (unsigned long long)fc->block,
	    (unsigned long long)fc->active, (unsigned long long)fc->pushed,
	    (unsigned long long)fc->pushed, (unsigned long long)fc->received,
	    (unsigned long long)out->keys_full, (unsigned long long)out->keys_sent,
	    (unsigned long long)out->vals_full, (unsigned long long)out->vals_sent,
	    (unsigned long long)out->raw_len, (unsigned long long)out->wire_len);
}
