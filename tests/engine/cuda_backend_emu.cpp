/*
 * cuda_backend_emu.cpp: lesson 04's CUDA backend (every file of engine/cuda/, unchanged) compiled for
 * the CPU on top of cuda_emu.h and the stand-ins of cuda_runtime_emu.h for the CUDA runtime and cuBLASLt. Linked
 * with gpu_ops.c, it runs the GPU tests' comparisons in CI, where no GPU is: the host logic,
 * every kernel's indexing and arithmetic, and the cuBLASLt layouts and ops the backend asks for,
 * against a reference GEMM that follows cuBLAS's column-major definition.
 *
 * The whole-model check runs the same way by hand (about two minutes):
 *   g++ -std=c++20 -O1 -pthread -Ilessons/04_gpt2_autodiff/engine -Icommon -c tests/engine/cuda_backend_emu.cpp
 *   gcc -O1 -I... -c tests/engine/gpu_fixture.c tests/engine/fixture.c, link with build/lib's
 *   libwb_gpt2_model.a, libwb_gpt2_engine.a, libwb_common.a, -fopenmp -lm, and run with
 *   WB_GPT2_FIXTURE=path/to/fixture.bin
 */
#include "cuda_runtime_emu.h"

/* the whole backend, one translation unit (on the GPU each file is its own) */
#include "cuda/elementwise.cu"
#include "cuda/reduce.cu"
#include "cuda/layernorm.cu"
#include "cuda/softmax.cu"
#include "cuda/attention_forward.cu"
#include "cuda/attention_backward.cu"
#include "cuda/gemm.cu"
#include "cuda/optimizer.cu"
#include "cuda/backend_cuda.cu"

