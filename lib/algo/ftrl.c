/*
 * ftrl.c: FTRL-proximal and AdaGrad (dual averaging) per coordinate, with
 * l1 and l2 penalties (see ftrl.h for the invariants).
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "algo/ftrl.h"

const char *
ps_ftrl_name(int opt)
{
	switch (opt) {
	case PS_OPT_ADAGRAD:
		return "adagrad";
	case PS_OPT_FTRL:
		return "ftrl";
	default:
		return NULL;
	}
}

int
ps_ftrl_parse(const char *name)
{
	if (strcmp(name, "adagrad") == 0)
		return PS_OPT_ADAGRAD;
	if (strcmp(name, "ftrl") == 0)
		return PS_OPT_FTRL;
	return 0;
}

int
ps_ftrl_check(const struct ps_ftrl *c, char *err, size_t errlen)
{
	if (ps_ftrl_name(c->opt) == NULL) {
		snprintf(err, errlen, "unknown optimizer %d", c->opt);
		return -1;
	}
	if (!(c->alpha > 0 && isfinite(c->alpha))) {
		snprintf(err, errlen, "alpha %g is not a positive number",
		    c->alpha);
		return -1;
	}
	if (!(c->beta > 0 && isfinite(c->beta))) {
		snprintf(err, errlen, "beta %g is not a positive number",
		    c->beta);
		return -1;
	}
	if (!(c->l1 >= 0 && isfinite(c->l1) && c->l2 >= 0 &&
	    isfinite(c->l2))) {
		snprintf(err, errlen, "penalties l1 %g and l2 %g must be "
		    "finite and not negative", c->l1, c->l2);
		return -1;
	}
	return 0;
}

/* The weight of (z, n) given sqrt(n). */
static double
ftrl_weight_sqrt(const struct ps_ftrl *c, double z, double sqrt_n)
{
	double denom = (c->beta + sqrt_n) / c->alpha + c->l2;

	if (z > c->l1)
		return -(z - c->l1) / denom;
	if (z < -c->l1)
		return -(z + c->l1) / denom;
	return 0;
}

double
ps_ftrl_weight(const struct ps_ftrl *c, double z, double n)
{
	return ftrl_weight_sqrt(c, z, sqrt(n));
}

double
ps_ftrl_update(const struct ps_ftrl *c, double *z, double *n, double w,
    double g)
{
	double n1 = *n + g * g, s1 = sqrt(n1);

	if (c->opt == PS_OPT_FTRL)
		*z += g - (s1 - sqrt(*n)) / c->alpha * w;
	else
		*z += g;
	*n = n1;
	return ftrl_weight_sqrt(c, *z, s1);
}

double
ps_ftrl_warm_z(const struct ps_ftrl *c, double w)
{
	double denom = c->beta / c->alpha + c->l2;

	if (w > 0)
		return -w * denom - c->l1;
	if (w < 0)
		return -w * denom + c->l1;
	return 0;
}
