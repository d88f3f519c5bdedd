/*
 * kmerge.c: the union of a few ascending key lists, a key at a time.  A
 * step reads every list's next key, so a walk costs the number of
 * distinct keys times the number of lists: cheap for a round's pushes,
 * one list a worker.
 */
#include "config.h"

#include <stdlib.h>

#include "util/kmerge.h"
#include "util/xmalloc.h"

void
ps_kmerge_init(struct ps_kmerge *m, size_t nlists)
{
	m->keys = xcalloc(nlists + 1, sizeof *m->keys);
	m->slots = xcalloc(nlists + 1, sizeof *m->slots);
	m->kt = NULL;
	m->len = xcalloc(nlists + 1, sizeof *m->len);
	m->at = xcalloc(nlists + 1, sizeof *m->at);
	m->which = xcalloc(nlists + 1, sizeof *m->which);
	m->nwhich = 0;
	m->nlists = nlists;
}

void
ps_kmerge_release(struct ps_kmerge *m)
{
	free(m->keys);
	free(m->slots);
	free(m->len);
	free(m->at);
	free(m->which);
	m->keys = NULL;
	m->slots = NULL;
	m->kt = NULL;
	m->len = m->at = NULL;
	m->which = NULL;
	m->nlists = m->nwhich = 0;
}

void
ps_kmerge_list(struct ps_kmerge *m, size_t i, const uint64_t *keys,
    size_t len)
{
	m->keys[i] = keys;
	m->slots[i] = NULL;
	m->len[i] = keys != NULL ? len : 0;
	m->at[i] = 0;
}

void
ps_kmerge_slots(struct ps_kmerge *m, size_t i, const uint32_t *slots,
    size_t len, const struct ps_keytab *kt)
{
	m->keys[i] = NULL;
	m->slots[i] = slots;
	m->kt = kt;
	m->len[i] = slots != NULL ? len : 0;
	m->at[i] = 0;
}

size_t
ps_kmerge_next(struct ps_kmerge *m)
{
	uint64_t low = UINT64_MAX;
	size_t i, j;
	int any = 0;

	for (j = 0; j < m->nwhich; j++)	/* past the current key */
		m->at[m->which[j]]++;
	m->nwhich = 0;
	for (i = 0; i < m->nlists; i++) {
		uint64_t k;

		if (m->at[i] >= m->len[i])
			continue;
		k = m->keys[i] != NULL ? m->keys[i][m->at[i]] :
		    ps_keytab_key(m->kt, m->slots[i][m->at[i]]);
		if (!any || k < low) {
			low = k;
			any = 1;
			m->nwhich = 0;
		}
		if (k == low)
			m->which[m->nwhich++] = (uint32_t)i;
	}
	return m->nwhich;
}
