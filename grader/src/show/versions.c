/* versions.c: see versions.h. */
#include "versions.h"
#include "report.h"

#include <stdio.h>
#include <string.h>

const char WB_VERSIONS_MAY_DIFFER[] =
    N_("Facts that may legitimately differ from the answer key: kernel names (kernels_named) first, since cuBLAS, "
       "PyTorch and Triton choose their kernels by version; then kernel and GEMM counts where the library or "
       "torch.compile decides what to launch or fuse; and every time fact.");

static const wb_run *first_python(const wb_recording *r) {
    for (size_t i = 0; r && i < r->n_runs; i++)
        if (r->runs[i].python) return &r->runs[i];
    return NULL;
}

const char *wb_recording_pytorch(const wb_recording *r, char *buf, size_t cap) {
    const wb_run *p = first_python(r);
    if (!p) return NULL;
    const char *torch = p->torch[0] ? p->torch : _("unknown"), *triton = p->triton[0] ? p->triton : _("not installed"),
               *cublas = p->capture.cublas_version[0] ? p->capture.cublas_version : _("unknown");
    if (p->torch_cuda[0])
        snprintf(buf, cap, _("PyTorch %s (built for CUDA %s), Triton %s, cuBLAS %s"), torch, p->torch_cuda, triton, cublas);
    else
        snprintf(buf, cap, "PyTorch %s, Triton %s, cuBLAS %s", torch, triton, cublas);
    return buf;
}

/* One difference, after those before it in buf. */
static void differ(char *buf, size_t cap, const char *what, const char *here, const char *there) {
    if (!strcmp(here, there)) return;
    char item[512];
    snprintf(item, sizeof item, _("%s %s here, %s in the answer key's recording"), what, here[0] ? here : _("none"),
             there[0] ? there : _("none"));
    size_t n = strlen(buf);
    /* TRANSLATORS: between two differences of "%s %s here, %s in the answer key's recording" */
    snprintf(buf + n, cap - n, "%s%s", n ? _("; ") : "", item);
}

int wb_versions_differ(const wb_recording *live, const wb_recording *reference, char *buf, size_t cap) {
    buf[0] = '\0';
    if (!live->n_runs || !reference->n_runs) return 0;
    const wb_capture *a = &live->runs[0].capture, *b = &reference->runs[0].capture;
    char x[32], y[32];
    differ(buf, cap, "GPU", a->gpu, b->gpu);
    differ(buf, cap, _("driver (CUDA)"), wb_cuda_version_string(a->driver_version, x, sizeof x),
           wb_cuda_version_string(b->driver_version, y, sizeof y));
    differ(buf, cap, _("CUDA runtime"), wb_cuda_version_string(a->runtime_version, x, sizeof x),
           wb_cuda_version_string(b->runtime_version, y, sizeof y));
    differ(buf, cap, "cuBLAS", a->cublas_version, b->cublas_version);
    const wb_run *p = first_python(live), *q = first_python(reference);
    if (p && q) {
        differ(buf, cap, "PyTorch", p->torch, q->torch);
        differ(buf, cap, "Triton", p->triton, q->triton);
    }
    return buf[0] != '\0';
}
