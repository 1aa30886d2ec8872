/*
 * python_probe.h: can this machine run a lesson's PyTorch variants? The interpreter is WB_PYTHON
 * (a path, or a name looked up on PATH), else python3 on PATH; it is asked once per grader process
 * whether `import torch` works, which versions of PyTorch and Triton it has, and whether PyTorch
 * sees a CUDA device. PyTorch stays optional: without it the grader grades those variants from the
 * lesson's recording and says why (docs/grader.md, "PyTorch variants").
 */
#ifndef WB_PYTHON_PROBE_H
#define WB_PYTHON_PROBE_H

#include <stddef.h>

typedef struct {
    int usable;          /* the interpreter started, imported torch, and torch sees a CUDA device */
    char python[4096];   /* the interpreter's path ("" when none was found) */
    char torch[64];      /* torch.__version__, "" when unknown */
    char torch_cuda[32]; /* torch.version.cuda: the CUDA PyTorch was built for */
    char triton[64];     /* triton.__version__, "" when Triton is missing */
    char why[1024];      /* when not usable: exactly why, one sentence */
} wb_python_info;

/* The interpreter into buf: WB_PYTHON, else python3, searched on PATH unless it holds a '/'.
 * 0, or -1 when there is none (buf then holds the name looked for). */
int wb_find_python(char *buf, size_t cap);

/* Runs the interpreter once (the answer is kept for the rest of the grader process); its output
 * goes to <log_dir>/python-probe.log. Never fails: what went wrong is in why. */
const wb_python_info *wb_python_probe(const char *log_dir);

/* Reads the probe's answer line from the interpreter's output (exposed for tests). 0 when found. */
int wb_python_probe_parse(const char *output, wb_python_info *info);

#endif
