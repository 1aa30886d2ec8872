/*
 * backend_cpu_impl.h: the CPU kernels, written once for a scalar type `real` and included twice by
 * backend_cpu.c (real = float, then real = double). Not a public header.
 *
 * These are reference kernels: plain loops in the order that reads best, strided access through
 * wb_offset_of, sums of rows in double. Only the GEMM cares about speed (it is most of a step);
 * it picks a loop order by the operands' strides and spreads rows over OpenMP threads.
 */
#define FN2(name, suffix) name##_##suffix
#define FN1(name, suffix) FN2(name, suffix)
#define FN(name) FN1(name, REAL_SUFFIX)

#define AT(t, i) (((real *)(t)->data)[wb_offset_of((t), (i))])

static int FN(fill)(const wb_tensor *out, double value) {
    int64_t n = wb_numel(out);
    for (int64_t i = 0; i < n; i++) AT(out, i) = (real)value;
    return WB_OK;
}

static inline real FN(binop)(wb_binop op, real a, real b) {
    switch (op) {
    case WB_OP_ADD: return a + b;
    case WB_OP_SUB: return a - b;
    case WB_OP_MUL: return a * b;
    case WB_OP_DIV: return a / b;
    }
    return 0;
}

static int FN(binary)(wb_binop op, const wb_tensor *out, const wb_tensor *a, const wb_tensor *b, int acc) {
    int64_t n = wb_numel(out);
    if (wb_is_contiguous(out) && wb_is_contiguous(a) && wb_is_contiguous(b) && wb_same_shape(a, out) &&
        wb_same_shape(b, out)) {
        real *o = out->data;
        const real *x = a->data, *y = b->data;
        for (int64_t i = 0; i < n; i++) o[i] = (acc ? o[i] : 0) + FN(binop)(op, x[i], y[i]);
        return WB_OK;
    }
    for (int64_t i = 0; i < n; i++) {
        real v = FN(binop)(op, AT(a, i), AT(b, i));
        real *o = &AT(out, i);
        *o = acc ? *o + v : v;
    }
    return WB_OK;
}

static inline double FN(gelu_f)(double x) {
    const double s = 0.7978845608028654; /* sqrt(2 / pi) */
    return 0.5 * x * (1.0 + tanh(s * (x + 0.044715 * x * x * x)));
}

static inline double FN(gelu_df)(double x) {
    const double s = 0.7978845608028654;
    double u = s * (x + 0.044715 * x * x * x), t = tanh(u);
    return 0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * s * (1.0 + 3.0 * 0.044715 * x * x);
}

static inline real FN(unop)(wb_unop op, real x) {
    switch (op) {
    case WB_OP_IDENTITY: return x;
    case WB_OP_LOG: return (real)log(x);
    case WB_OP_EXP: return (real)exp(x);
    case WB_OP_GELU: return (real)FN(gelu_f)(x);
    case WB_OP_SQUARE: return x * x;
    case WB_OP_SQRT: return (real)sqrt(x);
    }
    return 0;
}

static int FN(unary)(wb_unop op, double alpha, const wb_tensor *out, const wb_tensor *a, int acc) {
    int64_t n = wb_numel(out);
    real k = (real)alpha;
    if (wb_is_contiguous(out) && wb_is_contiguous(a) && wb_same_shape(out, a)) {
        real *o = out->data;
        const real *x = a->data;
        for (int64_t i = 0; i < n; i++) o[i] = (acc ? o[i] : 0) + k * FN(unop)(op, x[i]);
        return WB_OK;
    }
    for (int64_t i = 0; i < n; i++) {
        real v = k * FN(unop)(op, AT(a, i));
        real *o = &AT(out, i);
        *o = acc ? *o + v : v;
    }
    return WB_OK;
}

static int FN(unary_backward)(wb_unop op, const wb_tensor *ga, const wb_tensor *g, const wb_tensor *a,
                              const wb_tensor *y, int acc) {
    int64_t n = wb_numel(ga);
    for (int64_t i = 0; i < n; i++) {
        real x = AT(a, i), gy = AT(g, i), d = 0;
        switch (op) {
        case WB_OP_IDENTITY: d = 1; break;
        case WB_OP_LOG: d = 1 / x; break;
        case WB_OP_EXP: d = AT(y, i); break;
        case WB_OP_GELU: d = (real)FN(gelu_df)(x); break;
        case WB_OP_SQUARE: d = 2 * x; break;
        case WB_OP_SQRT: d = (real)0.5 / AT(y, i); break;
        }
        AT(ga, i) = (acc ? AT(ga, i) : 0) + gy * d;
    }
    return WB_OK;
}

/* dst (+)= scale * src summed over the dims where dst has size 1 (and src not) */
static int FN(sum_into)(const wb_tensor *dst, const wb_tensor *src, double scale, int acc) {
    int64_t nd = wb_numel(dst), ns = wb_numel(src);
    double *sum = calloc((size_t)nd, sizeof *sum);
    if (!sum) return WB_FAIL;
    int src_contig = wb_is_contiguous(src);
    for (int64_t i = 0; i < ns; i++) {
        /* the dst index of src element i: its multi-index with reduced dims set to 0 */
        int64_t rem = i, j = 0, mul = 1;
        for (int d = src->ndim - 1; d >= 0; d--) {
            int64_t idx = rem % src->shape[d];
            rem /= src->shape[d];
            if (dst->shape[d] != 1) j += idx * mul;
            mul *= dst->shape[d];
        }
        sum[j] += src_contig ? ((const real *)src->data)[i] : AT(src, i);
    }
    for (int64_t j = 0; j < nd; j++) {
        real *o = &AT(dst, j);
        real v = (real)(scale * sum[j]);
        *o = acc ? *o + v : v;
    }
    free(sum);
    return WB_OK;
}

static int FN(causal_mask)(const wb_tensor *out, const wb_tensor *in, double fill, int acc) {
    int64_t n = wb_numel(out), T = out->shape[out->ndim - 1];
    for (int64_t i = 0; i < n; i++) {
        int64_t col = i % T, row = (i / T) % T;
        real v = col > row ? (real)fill : AT(in, i);
        real *o = &AT(out, i);
        *o = acc ? *o + v : v;
    }
    return WB_OK;
}

static int FN(dropout)(const wb_tensor *out, const wb_tensor *in, float p, uint64_t seed, int acc) {
    int64_t n = wb_numel(out);
    real k = (real)(1.0 / (1.0 - p));
    for (int64_t i = 0; i < n; i++) {
        real v = wb_hash_uniform(seed, (uint64_t)i) >= p ? AT(in, i) * k : 0;
        real *o = &AT(out, i);
        *o = acc ? *o + v : v;
    }
    return WB_OK;
}

/* out (+)= alpha * a @ b + bias, any strides, optional batch in dim 0 */
static int FN(gemm)(const wb_tensor *out, const wb_tensor *a, const wb_tensor *b, const wb_tensor *bias,
                    double alpha, int acc) {
    int three = out->ndim == 3;
    int64_t batch = three ? out->shape[0] : 1;
    int64_t M = out->shape[three], N = out->shape[three + 1], K = a->shape[three + 1];
    int64_t as_b = three ? a->stride[0] : 0, bs_b = three ? b->stride[0] : 0, os_b = three ? out->stride[0] : 0;
    int64_t as0 = a->stride[three], as1 = a->stride[three + 1];
    int64_t bs0 = b->stride[three], bs1 = b->stride[three + 1];
    int64_t os0 = out->stride[three], os1 = out->stride[three + 1];
    const real *bias_p = bias ? bias->data : NULL;
    int64_t bias_s = bias ? bias->stride[0] : 0;
    real k_alpha = (real)alpha;
    int64_t rows = batch * M;
#pragma omp parallel for schedule(static)
    for (int64_t r = 0; r < rows; r++) {
        int64_t bi = r / M, i = r % M;
        const real *A = (const real *)a->data + bi * as_b + i * as0;
        const real *B = (const real *)b->data + bi * bs_b;
        real *O = (real *)out->data + bi * os_b + i * os0;
        if (bs1 == 1) {
            /* b row-major: O[i, :] += A[i, k] * B[k, :], contiguous inner loop over j */
            real rowbuf[1024];
            for (int64_t j0 = 0; j0 < N; j0 += 1024) {
                int64_t nj = N - j0 < 1024 ? N - j0 : 1024;
                for (int64_t j = 0; j < nj; j++) rowbuf[j] = 0;
                for (int64_t k = 0; k < K; k++) {
                    real av = A[k * as1];
                    const real *Bk = B + k * bs0 + j0;
                    for (int64_t j = 0; j < nj; j++) rowbuf[j] += av * Bk[j];
                }
                for (int64_t j = 0; j < nj; j++) {
                    real v = k_alpha * rowbuf[j] + (bias_p ? bias_p[(j0 + j) * bias_s] : 0);
                    real *o = O + (j0 + j) * os1;
                    *o = acc ? *o + v : v;
                }
            }
        } else {
            /* b column-major (a transposed weight): dot products along k */
            for (int64_t j = 0; j < N; j++) {
                const real *Bj = B + j * bs1;
                real s = 0;
                if (as1 == 1 && bs0 == 1) {
                    /* eight partial sums: a float sum in one order cannot be vectorised
                     * (no fast-math), eight independent ones can */
                    real acc8[8] = {0, 0, 0, 0, 0, 0, 0, 0};
                    int64_t k = 0;
                    for (; k + 8 <= K; k += 8)
                        for (int u = 0; u < 8; u++) acc8[u] += A[k + u] * Bj[k + u];
                    for (; k < K; k++) s += A[k] * Bj[k];
                    s += ((acc8[0] + acc8[1]) + (acc8[2] + acc8[3])) + ((acc8[4] + acc8[5]) + (acc8[6] + acc8[7]));
                } else
                    for (int64_t k = 0; k < K; k++) s += A[k * as1] * Bj[k * bs0];
                real v = k_alpha * s + (bias_p ? bias_p[j * bias_s] : 0);
                real *o = O + j * os1;
                *o = acc ? *o + v : v;
            }
        }
    }
    return WB_OK;
}

static int FN(softmax)(const wb_tensor *out, const wb_tensor *in, double scale, int causal) {
    int64_t C = in->shape[in->ndim - 1], R = wb_numel(in) / C, T = in->ndim >= 2 ? in->shape[in->ndim - 2] : 1;
    const real *x = in->data;
    real *y = out->data;
#pragma omp parallel for schedule(static)
    for (int64_t r = 0; r < R; r++) {
        const real *xr = x + r * C;
        real *yr = y + r * C;
        int64_t lim = causal ? (r % T) + 1 : C;
        double mx = -INFINITY, sum = 0;
        for (int64_t j = 0; j < lim; j++)
            if (scale * xr[j] > mx) mx = scale * xr[j];
        for (int64_t j = 0; j < lim; j++) sum += exp(scale * xr[j] - mx);
        for (int64_t j = 0; j < C; j++) yr[j] = j < lim ? (real)(exp(scale * xr[j] - mx) / sum) : 0;
    }
    return WB_OK;
}

static int FN(softmax_backward)(const wb_tensor *gin, const wb_tensor *g, const wb_tensor *y, double scale) {
    int64_t C = y->shape[y->ndim - 1], R = wb_numel(y) / C;
#pragma omp parallel for schedule(static)
    for (int64_t r = 0; r < R; r++) {
        const real *gr = (const real *)g->data + r * C, *yr = (const real *)y->data + r * C;
        real *dr = (real *)gin->data + r * C;
        double dot = 0;
        for (int64_t j = 0; j < C; j++) dot += (double)gr[j] * yr[j];
        for (int64_t j = 0; j < C; j++) dr[j] += (real)(scale * yr[j] * (gr[j] - dot));
    }
    return WB_OK;
}

static int FN(layernorm)(const wb_tensor *out, const wb_tensor *mean, const wb_tensor *rstd, const wb_tensor *in,
                         const wb_tensor *w, const wb_tensor *b, double eps) {
    int64_t C = in->shape[1], N = in->shape[0];
    const real *x = in->data, *wp = w->data, *bp = b->data;
    real *y = out->data, *mp = mean->data, *rp = rstd->data;
#pragma omp parallel for schedule(static)
    for (int64_t r = 0; r < N; r++) {
        const real *xr = x + r * C;
        double m = 0, v = 0;
        for (int64_t j = 0; j < C; j++) m += xr[j];
        m /= (double)C;
        for (int64_t j = 0; j < C; j++) v += (xr[j] - m) * (xr[j] - m);
        v /= (double)C;
        double s = 1.0 / sqrt(v + eps);
        for (int64_t j = 0; j < C; j++) y[r * C + j] = (real)((xr[j] - m) * s * wp[j] + bp[j]);
        mp[r] = (real)m;
        rp[r] = (real)s;
    }
    return WB_OK;
}

static int FN(layernorm_backward)(const wb_tensor *gin, const wb_tensor *gw, const wb_tensor *gb, const wb_tensor *g,
                                  const wb_tensor *in, const wb_tensor *w, const wb_tensor *mean,
                                  const wb_tensor *rstd) {
    int64_t C = in->shape[1], N = in->shape[0];
    const real *x = in->data, *wp = w->data, *gp = g->data, *mp = mean->data, *rp = rstd->data;
    for (int64_t r = 0; r < N; r++) {
        const real *xr = x + r * C, *gr = gp + r * C;
        double m = mp[r], s = rp[r], mdx = 0, mdxx = 0;
        for (int64_t j = 0; j < C; j++) {
            double xh = (xr[j] - m) * s, dxh = (double)gr[j] * wp[j];
            mdx += dxh;
            mdxx += dxh * xh;
            if (gw) ((real *)gw->data)[j] += (real)(gr[j] * xh);
            if (gb) ((real *)gb->data)[j] += gr[j];
        }
        mdx /= (double)C;
        mdxx /= (double)C;
        if (gin)
            for (int64_t j = 0; j < C; j++) {
                double xh = (xr[j] - m) * s, dxh = (double)gr[j] * wp[j];
                ((real *)gin->data)[r * C + j] += (real)(s * (dxh - mdx - xh * mdxx));
            }
    }
    return WB_OK;
}

static int FN(gather_rows)(const wb_tensor *out, const wb_tensor *table, const wb_tensor *idx) {
    int64_t N = out->shape[0], C = out->shape[1], V = table->shape[0];
    const int32_t *ix = idx->data;
    for (int64_t r = 0; r < N; r++) {
        if (ix[r] < 0 || ix[r] >= V) {
            fprintf(stderr, "embedding: index %d out of range [0, %lld)\n", ix[r], (long long)V);
            return WB_FAIL;
        }
        const real *src = (const real *)table->data + ix[r] * table->stride[0];
        memcpy((real *)out->data + r * C, src, (size_t)C * sizeof(real));
    }
    return WB_OK;
}

static int FN(scatter_add_rows)(const wb_tensor *gtable, const wb_tensor *g, const wb_tensor *idx) {
    int64_t N = g->shape[0], C = g->shape[1];
    const int32_t *ix = idx->data;
    for (int64_t r = 0; r < N; r++) {
        real *dst = (real *)gtable->data + ix[r] * gtable->stride[0];
        const real *src = (const real *)g->data + r * C;
        for (int64_t j = 0; j < C; j++) dst[j] += src[j];
    }
    return WB_OK;
}

static int FN(cross_entropy)(const wb_tensor *loss, const wb_tensor *lse, const wb_tensor *logits,
                             const wb_tensor *targets, int64_t vocab) {
    int64_t N = logits->shape[0], Vp = logits->shape[1];
    const int32_t *t = targets->data;
    double total = 0;
    for (int64_t r = 0; r < N; r++) {
        const real *l = (const real *)logits->data + r * Vp;
        if (t[r] < 0 || t[r] >= vocab) {
            fprintf(stderr, "cross_entropy: target %d out of range [0, %lld)\n", t[r], (long long)vocab);
            return WB_FAIL;
        }
        double mx = -INFINITY, s = 0;
        for (int64_t j = 0; j < vocab; j++)
            if (l[j] > mx) mx = l[j];
        for (int64_t j = 0; j < vocab; j++) s += exp(l[j] - mx);
        double z = mx + log(s);
        ((real *)lse->data)[r] = (real)z;
        total += z - l[t[r]];
    }
    *(real *)loss->data = (real)(total / (double)N);
    return WB_OK;
}

static int FN(cross_entropy_backward)(const wb_tensor *glogits, const wb_tensor *gloss, const wb_tensor *lse,
                                      const wb_tensor *logits, const wb_tensor *targets, int64_t vocab, int acc) {
    int64_t N = logits->shape[0], Vp = logits->shape[1];
    const int32_t *t = targets->data;
    double k = *(const real *)gloss->data / (double)N;
#pragma omp parallel for schedule(static)
    for (int64_t r = 0; r < N; r++) {
        const real *l = (const real *)logits->data + r * Vp;
        real *d = (real *)glogits->data + r * Vp;
        double z = ((const real *)lse->data)[r];
        for (int64_t j = 0; j < vocab; j++) d[j] = (acc ? d[j] : 0) + (real)(k * (exp(l[j] - z) - (j == t[r])));
        if (!acc)
            for (int64_t j = vocab; j < Vp; j++) d[j] = 0; /* padding columns: no gradient */
    }
    return WB_OK;
}

/* causal attention, one (b, h) at a time: scores row by row, never a (T, T) matrix */
#define E4(t, b, h, i, d) (((real *)(t)->data)[(b) * (t)->stride[0] + (h) * (t)->stride[1] + (i) * (t)->stride[2] + (d) * (t)->stride[3]])

static int FN(attention)(const wb_tensor *out, const wb_tensor *lse, const wb_tensor *q, const wb_tensor *k,
                         const wb_tensor *v, double scale) {
    int64_t B = q->shape[0], H = q->shape[1], T = q->shape[2], D = q->shape[3];
    int fail = 0;
#pragma omp parallel for schedule(static)
    for (int64_t bh = 0; bh < B * H; bh++) {
        int64_t b = bh / H, h = bh % H;
        double *p = malloc((size_t)T * sizeof *p), *acc = malloc((size_t)D * sizeof *acc);
        if (!p || !acc) {
            fail = 1;
            free(p), free(acc);
            continue;
        }
        for (int64_t t = 0; t < T; t++) {
            double m = -INFINITY, l = 0;
            for (int64_t j = 0; j <= t; j++) {
                double sdot = 0;
                for (int64_t d = 0; d < D; d++) sdot += (double)E4(q, b, h, t, d) * E4(k, b, h, j, d);
                p[j] = scale * sdot;
                if (p[j] > m) m = p[j];
            }
            for (int64_t d = 0; d < D; d++) acc[d] = 0;
            for (int64_t j = 0; j <= t; j++) {
                p[j] = exp(p[j] - m);
                l += p[j];
                for (int64_t d = 0; d < D; d++) acc[d] += p[j] * E4(v, b, h, j, d);
            }
            for (int64_t d = 0; d < D; d++) E4(out, b, h, t, d) = (real)(acc[d] / l);
            ((real *)lse->data)[bh * T + t] = (real)(m + log(l));
        }
        free(p), free(acc);
    }
    return fail ? WB_FAIL : WB_OK;
}

static int FN(attention_backward)(const wb_tensor *gq, const wb_tensor *gk, const wb_tensor *gv, const wb_tensor *g,
                                  const wb_tensor *out, const wb_tensor *lse, const wb_tensor *q, const wb_tensor *k,
                                  const wb_tensor *v, double scale, int acc) {
    int64_t B = q->shape[0], H = q->shape[1], T = q->shape[2], D = q->shape[3];
#pragma omp parallel for schedule(static)
    for (int64_t bh = 0; bh < B * H; bh++) {
        int64_t b = bh / H, h = bh % H;
        for (int64_t t = 0; !acc && t < T; t++) /* a store: the sums below start from zero */
            for (int64_t d = 0; d < D; d++) {
                if (gq) E4(gq, b, h, t, d) = 0;
                if (gk) E4(gk, b, h, t, d) = 0;
                if (gv) E4(gv, b, h, t, d) = 0;
            }
        for (int64_t t = 0; t < T; t++) {
            double Dt = 0, z = ((const real *)lse->data)[bh * T + t];
            for (int64_t d = 0; d < D; d++) Dt += (double)E4(g, b, h, t, d) * E4(out, b, h, t, d);
            for (int64_t j = 0; j <= t; j++) {
                double sdot = 0, dp = 0;
                for (int64_t d = 0; d < D; d++) {
                    sdot += (double)E4(q, b, h, t, d) * E4(k, b, h, j, d);
                    dp += (double)E4(g, b, h, t, d) * E4(v, b, h, j, d);
                }
                double pr = exp(scale * sdot - z), ds = pr * (dp - Dt);
                for (int64_t d = 0; d < D; d++) {
                    if (gv) E4(gv, b, h, j, d) += (real)(pr * E4(g, b, h, t, d));
                    if (gq) E4(gq, b, h, t, d) += (real)(scale * ds * E4(k, b, h, j, d));
                    if (gk) E4(gk, b, h, j, d) += (real)(scale * ds * E4(q, b, h, t, d));
                }
            }
        }
    }
    return WB_OK;
}
#undef E4

static int FN(norm_sq)(void *out, const void *grads, int64_t n) {
    const real *g = grads;
    double s = 0;
    for (int64_t i = 0; i < n; i++) s += (double)g[i] * g[i];
    *(real *)out = (real)s;
    return WB_OK;
}

static int FN(adamw)(const wb_adamw_args *p) {
    real *w = p->params, *m = p->m, *v = p->v;
    const real *g = p->grads;
    double norm = sqrt((double)*(const real *)p->norm_sq);
    double clip = p->grad_clip > 0 && norm > 0 ? fmin(1.0, p->grad_clip / (norm + 1e-6)) : 1.0;
    double bc1 = 1.0 - pow(p->beta1, p->t), bc2 = 1.0 - pow(p->beta2, p->t);
    for (int64_t i = 0; i < p->n; i++) {
        double gi = g[i] * clip;
        double mi = p->beta1 * m[i] + (1.0 - p->beta1) * gi;
        double vi = p->beta2 * v[i] + (1.0 - p->beta2) * gi * gi;
        m[i] = (real)mi;
        v[i] = (real)vi;
        double wd = i < p->n_decay ? p->weight_decay : 0.0;
        double wi = w[i] * (1.0 - p->lr * wd);
        wi -= p->lr * (mi / bc1) / (sqrt(vi / bc2) + p->eps);
        w[i] = (real)wi;
    }
    return WB_OK;
}

#undef AT
#undef FN
#undef FN1
#undef FN2
