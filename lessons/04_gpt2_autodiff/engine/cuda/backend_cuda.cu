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
        for (int i = 0; i < STAGE_SLOTS; i++)
            if (im->stage_done[i]) cudaEventDestroy(im->stage_done[i]);
        for (int i = 0; i < WB_LATER_SLOTS; i++)
            if (im->later_done[i]) cudaEventDestroy(im->later_done[i]);
        if (im->stage) cudaFreeHost(im->stage);
        if (im->later) cudaFreeHost(im->later);
        if (im->lt) cublasLtDestroy(im->lt);
        if (im->workspace) cudaFree(im->workspace);
        if (im->partial) cudaFree(im->partial);
        if (im->scratch) cudaFree(im->scratch);
        if (im->counters) cudaFree(im->counters);
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
/* A small upload (a batch of tokens) is copied into the next pinned staging buffer and sent with
 * cudaMemcpyAsync, so the host goes on (preparing the next step) while the device is busy; the
 * buffer is reused four uploads later, after its event says the device has read it. (A copy from
 * pageable memory would make the host wait until the device has finished all the work before
 * it.) Large uploads (parameters, once) stay synchronous. */
static int cuda_to_device(wb_backend *be, void *dst, const void *src, size_t n) {
    cuda_impl *im = IMPL(be);
    if (n > STAGE_BYTES) {
        CUDA_CHECK(cudaMemcpy(dst, src, n, cudaMemcpyHostToDevice));
        return WB_OK;
    }
    int s = im->stage_next;
    im->stage_next = (s + 1) % STAGE_SLOTS;
    unsigned char *buf = im->stage + (size_t)s * STAGE_BYTES;
    CUDA_CHECK(cudaEventSynchronize(im->stage_done[s])); /* the device has read its last contents */
    memcpy(buf, src, n);
    CUDA_CHECK(cudaMemcpyAsync(dst, buf, n, cudaMemcpyHostToDevice, im->stream));
    CUDA_CHECK(cudaEventRecord(im->stage_done[s], im->stream));
    return WB_OK;
}
static int later_slot_ok(int slot, size_t n) {
    if (slot >= 0 && slot < WB_LATER_SLOTS && n <= WB_LATER_BYTES) return 1;
    fprintf(stderr, "cuda backend: later download of %zu bytes into slot %d (slots 0-%d, %d bytes each)\n", n, slot,
            WB_LATER_SLOTS - 1, WB_LATER_BYTES);
    return 0;
}
static int cuda_to_host_later(wb_backend *be, int slot, const void *src, size_t n) {
    cuda_impl *im = IMPL(be);
    if (!later_slot_ok(slot, n)) return WB_FAIL;
    CUDA_CHECK(cudaMemcpyAsync(im->later + slot * WB_LATER_BYTES, src, n, cudaMemcpyDeviceToHost, im->stream));
    CUDA_CHECK(cudaEventRecord(im->later_done[slot], im->stream));
    return WB_OK;
}
static int cuda_to_host_wait(wb_backend *be, int slot, void *dst, size_t n) {
    cuda_impl *im = IMPL(be);
    if (!later_slot_ok(slot, n)) return WB_FAIL;
    CUDA_CHECK(cudaEventSynchronize(im->later_done[slot]));
    memcpy(dst, im->later + slot * WB_LATER_BYTES, n);
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

/* cuBLASLt zeroes a 4-byte counter with cudaMemsetAsync before each of its nvjet "coop" GEMMs
 * and its DGELU GEMM: 99 memset nodes in a captured GPT-2 124M step. In a graph the GPU idles
 * ~1.4 us before a memset node and ~2.6 us after it, against ~0.1 us between two kernel nodes
 * (CUPTI, H200): ~0.4 ms a step. So every memset node of at most SMALL_MEMSET bytes becomes a
 * kernel node (k_memset_small) that writes the same bytes after the same nodes; larger memsets
 * keep their node (the copy engines' rate). Returns how many it replaced, or -1. */
enum { SMALL_MEMSET = 4096 };
static int graph_small_memsets_to_kernels(cudaGraph_t g) {
    size_t n = 0;
    CUDA_CHECK(cudaGraphGetNodes(g, NULL, &n));
    cudaGraphNode_t *nodes = (cudaGraphNode_t *)malloc((n ? n : 1) * sizeof *nodes);
    if (!nodes) return -1;
    int replaced = 0, rc = 0;
    if (cudaGraphGetNodes(g, nodes, &n) != cudaSuccess) rc = -1;
    for (size_t i = 0; i < n && rc == 0; i++) {
        cudaGraphNodeType type;
        cudaMemsetParams mp;
        if (cudaGraphNodeGetType(nodes[i], &type) != cudaSuccess) rc = -1;
        if (rc || type != cudaGraphNodeTypeMemset) continue;
        if (cudaGraphMemsetNodeGetParams(nodes[i], &mp) != cudaSuccess) rc = -1;
        if (rc || mp.height != 1 || mp.width * mp.elementSize > SMALL_MEMSET) continue;
        cudaGraphNode_t before[64], after[64], k;
        size_t nb = 64, na = 64;
        if (cudaGraphNodeGetDependencies(nodes[i], before, NULL, &nb) != cudaSuccess ||
            cudaGraphNodeGetDependentNodes(nodes[i], after, NULL, &na) != cudaSuccess || nb > 64 || na > 64)
            continue; /* a node this busy is not one of cuBLASLt's: leave it */
        void *dst = mp.dst;
        unsigned value = mp.value, elem = mp.elementSize;
        size_t count = mp.width;
        void *args[4] = {&dst, &value, &elem, &count};
        cudaKernelNodeParams kp;
        memset(&kp, 0, sizeof kp);
        kp.func = (void *)k_memset_small, kp.gridDim = dim3(1), kp.blockDim = dim3(128), kp.kernelParams = args;
        if (cudaGraphAddKernelNode(&k, g, before, nb, &kp) != cudaSuccess) rc = -1;
        for (size_t j = 0; j < na && rc == 0; j++)
            if (cudaGraphAddDependencies(g, &k, &after[j], NULL, 1) != cudaSuccess) rc = -1;
        if (rc == 0 && cudaGraphDestroyNode(nodes[i]) != cudaSuccess) rc = -1;
        replaced += rc == 0;
    }
    free(nodes);
    if (rc) fprintf(stderr, "cuda graph: rewriting a memset node failed (%s)\n", cudaGetErrorString(cudaGetLastError()));
    return rc ? -1 : replaced;
}

static int cuda_graph_end(wb_backend *be) {
    cuda_impl *im = IMPL(be);
    cudaGraph_t graph = NULL;
    CUDA_CHECK(cudaStreamEndCapture(im->stream, &graph));
    im->graph = graph;
    im->graph_small_memsets = graph_small_memsets_to_kernels(graph);
    if (im->graph_small_memsets < 0) return WB_FAIL;
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
    CUDA_CHECK(cudaHostAlloc((void **)&im->stage, (size_t)STAGE_SLOTS * STAGE_BYTES, cudaHostAllocDefault));
    CUDA_CHECK(cudaHostAlloc((void **)&im->later, WB_LATER_SLOTS * WB_LATER_BYTES, cudaHostAllocDefault));
    for (int i = 0; i < STAGE_SLOTS; i++) CUDA_CHECK(cudaEventCreateWithFlags(&im->stage_done[i], cudaEventDisableTiming));
    for (int i = 0; i < WB_LATER_SLOTS; i++) CUDA_CHECK(cudaEventCreateWithFlags(&im->later_done[i], cudaEventDisableTiming));
    CUBLAS_CHECK(cublasLtCreate(&im->lt));
    im->workspace_size = (size_t)32 << 20;
    CUDA_CHECK(cudaMalloc(&im->workspace, im->workspace_size));
    CUDA_CHECK(cudaMalloc((void **)&im->partial, 1024 * sizeof(float)));
    WB_TRY(counters_reserve(im, 65536)); /* zeroed here, outside every step */
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
    be->to_host_later = cuda_to_host_later;
    be->to_host_wait = cuda_to_host_wait;
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
    be->cross_entropy_fused = cuda_cross_entropy_fused;
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
extern "C" int wb_backend_cuda_graph_small_memsets(wb_backend *be) { return IMPL(be)->graph_small_memsets; }
