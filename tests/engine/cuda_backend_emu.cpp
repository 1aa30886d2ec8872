/*
 * cuda_backend_emu.cpp: lesson 04's CUDA backend (every file of engine/cuda/, unchanged) compiled for
 * the CPU on top of cuda_emu.h and the stand-ins of cuda_runtime_emu.h for the CUDA runtime and cuBLASLt. Linked
 * with gpu_ops.c, it runs the GPU tests' comparisons in CI, where no GPU is: the host logic,
 * every kernel's indexing and arithmetic, and the cuBLASLt layouts and ops the backend asks for,
 * against a reference GEMM that follows cuBLAS's column-major definition.
 *
 * The whole-model check runs the same way by hand (about two minutes):
 *   g++ -std=c++20 -O1 -pthread -Ilessons/04_gpt2_autodiff/engine/include -Ilessons/04_gpt2_autodiff/engine/cuda
 *       -Icommon -c tests/engine/cuda_backend_emu.cpp
 *   gcc -O1 -I... -c tests/engine/gpu_fixture.c tests/engine/fixture.c, link with build/lib's
 *   libwb_gpt2_model.a, libwb_gpt2_engine.a, libwb_common.a, -fopenmp -lm, and run with
 *   WB_GPT2_FIXTURE=path/to/fixture.bin
 */
#include "cuda_runtime_emu.h"

/* the whole backend, one translation unit (on the GPU each file is its own); engine/cuda/ is on the
 * include path through wb_gpt2_cuda_internals */
#include "elementwise.cu"
#include "reduce.cu"
#include "layernorm.cu"
#include "softmax.cu"
#include "attention_forward.cu"
#include "attention_backward.cu"
#include "gemm.cu"
#include "optimizer.cu"
#include "backend_cuda.cu"

