/*
 * wb_check.h: one check macro per library, recording the expression, file and line.
 *
 * Library-style code returns a status instead of exiting (the grader must survive a broken
 * lesson and report it), so each macro prints what failed and returns WB_FAIL from the enclosing
 * function, which must return int. Only a program's main decides to exit:
 *
 *     static int step(...) { CUDA_CHECK(cudaMemcpy(...)); my_kernel<<<g, b>>>(...); CUDA_CHECK_LAUNCH(); return WB_OK; }
 *     int main(...) { ... if (step(...) != WB_OK) return EXIT_FAILURE; }
 */
#ifndef WB_CHECK_H
#define WB_CHECK_H

#include <stdio.h>

#define WB_OK 0
#define WB_FAIL (-1)

#ifdef __CUDACC__
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>
#endif

/* CUDA_CHECK in .cu files, and in plain C files that include <cuda_runtime_api.h> before this
 * header (common/wb_steps.c): the runtime API is C. */
#if defined(__CUDACC__) || defined(CUDART_VERSION)
#define CUDA_CHECK(expr)                                                                           \
    do {                                                                                           \
        cudaError_t wb_err_ = (expr);                                                              \
        if (wb_err_ != cudaSuccess) {                                                              \
            fprintf(stderr, "%s:%d: %s failed: %s (%s)\n", __FILE__, __LINE__, #expr,              \
                    cudaGetErrorString(wb_err_), cudaGetErrorName(wb_err_));                       \
            return WB_FAIL;                                                                        \
        }                                                                                          \
    } while (0)

/* After every kernel launch: launch errors are reported here, not by the <<<>>> expression. */
#define CUDA_CHECK_LAUNCH() CUDA_CHECK(cudaGetLastError())
#endif

/* CUBLAS_CHECK in .cu files, and in plain C files that include <cublas_v2.h> before this header
 * (common/wb_lesson.c): cuBLAS's API is C too. */
#if defined(__CUDACC__) || defined(CUBLAS_VER_MAJOR)
#define CUBLAS_CHECK(expr)                                                                         \
    do {                                                                                           \
        cublasStatus_t wb_st_ = (expr);                                                            \
        if (wb_st_ != CUBLAS_STATUS_SUCCESS) {                                                     \
            fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #expr,                  \
                    cublasGetStatusString(wb_st_));                                                \
            return WB_FAIL;                                                                        \
        }                                                                                          \
    } while (0)
#endif

/* For any call that returns WB_OK / WB_FAIL: pass a failure up without a second message. */
#define WB_TRY(expr)                                                                               \
    do {                                                                                           \
        if ((expr) != WB_OK) return WB_FAIL;                                                       \
    } while (0)

#endif
