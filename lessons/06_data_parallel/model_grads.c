/*
 * model_grads.c: see model_grads.h.
 */
#include "model_grads.h"

int dp_param_of_grad(const gpt2 *m, const wb_tensor *x) {
    const char *p = x->grad;
    size_t es = wb_dtype_size(m->dtype);
    for (int i = 0; p && i < m->n_tensors; i++) {
        const char *g = m->tensors[i]->grad;
        if (p >= g && p < g + (size_t)wb_numel(m->tensors[i]) * es) return i;
    }
    return -1;
}

void dp_model_params(const gpt2 *m, const int *ready, dp_param *out) {
    int64_t es = (int64_t)wb_dtype_size(m->dtype);
    for (int i = 0; i < m->n_tensors; i++)
        out[i] = (dp_param){((const char *)m->tensors[i]->grad - (const char *)m->grads) / es,
                            wb_numel(m->tensors[i]), ready[i]};
}
