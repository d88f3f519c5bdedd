/*
 * metrics.h: evaluation of scores against +1/-1 labels: area under the ROC
 * curve (ties counted as half) and mean logistic loss.
 */
#ifndef PS_METRICS_H
#define PS_METRICS_H

#include <stddef.h>
#include <stdint.h>

/* AUC of margins against labels; NaN when one class is absent. */
double	ps_auc(const double *margin, const int8_t *y, size_t n);
/* Mean of log(1 + exp(-y m)). */
double	ps_logloss(const double *margin, const int8_t *y, size_t n);

#endif
