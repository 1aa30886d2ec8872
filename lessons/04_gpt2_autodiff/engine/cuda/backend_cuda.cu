/*
 * backend_cuda.cu: the CUDA backend's table (backend.h), its memory functions and device set-up.
 * The kernels and their launchers live one op family per file (cuda_common.cuh lists them).
 */
#include "cuda_common.cuh"

#ifndef WB_CUDA_EMULATION
static void graph_free(cuda_impl *im) {
    if (im->graph_exec) cudaGraphExecDestroy((cudaGraphExec_t)im->graph_exec);
    if (im->graph) cudaGraphDestroy((cudaGraph_t)im->graph);
    im->graph_exec = im->graph = im->adamw_node = NULL;
}
#endif

static void cuda_destroy(wb_backend *be) {
    cuda_impl *im = IMPL(be);
    if (im) {
#ifndef WB_CUDA_EMULATION
        graph_free(im);
        if (im->stream) cudaStreamDestroy(im->stream);
#endif
        if (im->lt) cublasLtDestroy(im->lt);
        if (im->workspace) cudaFree(im->workspace);
        if (im->partial) cudaFree(im->partial);
        if (im->scratch) cudaFree(im->scratch);
        cuda_gemm_plans_free(im);
        free(im);
    }
    free(be);
}

static int cuda_supports(wb_backend *be, wb_dtype d) { return d == WB_BF16 || d == WB_F32; }

/* Dense peaks (no sparsity) by compute capability, from NVIDIA's data sheets. H100 and H200 SXM
 * share the sm_90 figures; PCIe parts are slower. Unknown GPUs: 0, printed as MFU n/a. */
static double cuda_peak_for(wb_backend *be, wb_dtype d) {
    cuda_impl *im = IMPL(be);
    int pcie = strstr(be->device_name, "PCIe") != NULL;
    if (im->cc_major == 9 && im->cc_minor == 0) return d == WB_BF16 ? (pcie ? 756e12 : 989e12) : (pcie ? 51e12 : 67e12);
    if (im->cc_major == 8 && im->cc_minor == 0) return d == WB_BF16 ? 312e12 : 19.5e12;
    return 0.0;
}

static int cuda_alloc(wb_backend *be, void **p, size_t bytes) {
    CUDA_CHECK(cudaMalloc(p, bytes ? bytes : 256));
    return WB_OK;
}
static void cuda_free(wb_backend *be, void *p) { cudaFree(p); }
static int cuda_memset0(wb_backend *be, void *p, size_t n) {
    CUDA_CHECK(cudaMemsetAsync(p, 0, n, IMPL(be)->stream));
    return WB_OK;
}
static int cuda_to_host(wb_backend *be, void *dst, const void *src, size_t n) {
    CUDA_CHECK(cudaMemcpy(dst, src, n, cudaMemcpyDeviceToHost));
    return WB_OK;
}
static int cuda_to_device(wb_backend *be, void *dst, const void *src, size_t n) {
    CUDA_CHECK(cudaMemcpy(dst, src, n, cudaMemcpyHostToDevice));
    return WB_OK;
}
static int cuda_sync(wb_backend *be) {
    CUDA_CHECK(cudaDeviceSynchronize());
    return WB_OK;
}
/* ---- the training step as a CUDA graph ----
 * Capture mode "global": a call that would break the recording (an allocation, a synchronous copy)
 * fails during the capture instead of silently running outside it. */
#ifndef WB_CUDA_EMULATION
static int cuda_graph_begin(wb_backend *be) {
    graph_free(IMPL(be)); /* cuda_adamw records the new recording's AdamW node */
    CUDA_CHECK(cudaStreamBeginCapture(IMPL(be)->stream, cudaStreamCaptureModeGlobal));
    return WB_OK;
}

static int cuda_graph_end(wb_backend *be) {
    cuda_impl *im = IMPL(be);
    cudaGraph_t graph = NULL;
    CUDA_CHECK(cudaStreamEndCapture(im->stream, &graph));
    im->graph = graph;
    cudaGraphExec_t exec = NULL;
    CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    im->graph_exec = exec;
    return WB_OK;
}

static int cuda_graph_launch(wb_backend *be, const wb_adamw_args *opt) {
    cuda_impl *im = IMPL(be);
    if (!im->graph_exec) {
        fprintf(stderr, "cuda graph: nothing captured\n");
        return WB_FAIL;
    }
    if (opt) {
        if (!im->adamw_node) {
            fprintf(stderr, "cuda graph: the captured step holds no AdamW update to give this step's arguments\n");
            return WB_FAIL;
        }
        WB_TRY(cuda_adamw_update_node((cudaGraphExec_t)im->graph_exec, (cudaGraphNode_t)im->adamw_node, opt));
    }
    CUDA_CHECK(cudaGraphLaunch((cudaGraphExec_t)im->graph_exec, im->stream));
    return WB_OK;
}
#endif

static int cuda_init(wb_backend *be, int device) {
    cuda_impl *im = IMPL(be);
    int count = 0;
    CUDA_CHECK(cudaGetDeviceCount(&count));
    if (device >= count) {
        fprintf(stderr, "cuda backend: device %d of %d\n", device, count);
        return WB_FAIL;
    }
    CUDA_CHECK(cudaSetDevice(device));
    cudaDeviceProp prop;
    CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
    snprintf(be->device_name, sizeof be->device_name, "%.100s (sm_%d%d)", prop.name, prop.major, prop.minor);
    im->cc_major = prop.major;
    im->num_sms = prop.multiProcessorCount > 0 ? prop.multiProcessorCount : 1;
    im->cc_minor = prop.minor;
    if (prop.major < 8) {
        fprintf(stderr, "cuda backend: %s is sm_%d%d; bf16 kernels need sm_80 or newer\n", prop.name, prop.major, prop.minor);
        return WB_FAIL;
    }
    CUDA_CHECK(cudaStreamCreate(&im->stream)); /* blocking: ordered with the synchronous copies */
    CUBLAS_CHECK(cublasLtCreate(&im->lt));
    im->workspace_size = (size_t)32 << 20;
    CUDA_CHECK(cudaMalloc(&im->workspace, im->workspace_size));
    CUDA_CHECK(cudaMalloc((void **)&im->partial, 1024 * sizeof(float)));
    be->peak_flops = cuda_peak_for(be, WB_BF16);
    return WB_OK;
}

extern "C" int wb_backend_cuda_create(wb_backend **out, int device) {
    wb_backend *be = (wb_backend *)calloc(1, sizeof *be);
    cuda_impl *im = (cuda_impl *)calloc(1, sizeof *im);
    if (!be || !im) {
        free(be);
        free(im);
        return WB_FAIL;
    }
    be->impl = im;
    be->name = "cuda";
    be->kind = WB_BACKEND_CUDA;
    be->destroy = cuda_destroy;
    be->supports = cuda_supports;
    be->peak_for = cuda_peak_for;
    be->alloc = cuda_alloc;
    be->free = cuda_free;
    be->memset0 = cuda_memset0;
    be->to_host = cuda_to_host;
    be->to_device = cuda_to_device;
    be->sync = cuda_sync;
    be->fill = cuda_fill;
    be->binary = cuda_binary;
    be->unary = cuda_unary;
    be->unary_backward = cuda_unary_backward;
    be->sum_into = cuda_sum_into;
    be->causal_mask = cuda_causal_mask;
    be->dropout = cuda_dropout;
    be->gemm = cuda_gemm;
    be->gemm_gelu = cuda_gemm_gelu;
    be->gemm_dgelu = cuda_gemm_dgelu;
    be->gemm_add = cuda_gemm_add;
    be->softmax = cuda_softmax;
    be->softmax_backward = cuda_softmax_backward;
    be->layernorm = cuda_layernorm;
    be->layernorm_backward = cuda_layernorm_backward;
    be->gather_rows = cuda_gather_rows;
    be->scatter_add_rows = cuda_scatter_add_rows;
    be->cross_entropy = cuda_cross_entropy;
    be->cross_entropy_backward = cuda_cross_entropy_backward;
    be->attention_supported = cuda_attention_supported;
    be->attention = cuda_attention;
    be->attention_backward = cuda_attention_backward;
    be->norm_sq = cuda_norm_sq;
    be->adamw = cuda_adamw;
#ifndef WB_CUDA_EMULATION
    be->graph_begin = cuda_graph_begin;
    be->graph_end = cuda_graph_end;
    be->graph_launch = cuda_graph_launch;
#endif
    if (cuda_init(be, device) != WB_OK) {
        cuda_destroy(be);
        return WB_FAIL;
    }
    *out = be;
    return WB_OK;
}

extern "C" void *wb_backend_cuda_stream(wb_backend *be) { return (void *)IMPL(be)->stream; }
