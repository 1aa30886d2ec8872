"""A hand-written Triton kernel for h = gelu(g, tanh) * u, standing for the series' Liger layer.

Written the way Liger Kernel writes its GeGLU forward: one program per row of g and u, the whole
row in one block (BLOCK = the next power of two of the row length), fp32 math, one read of g and
u and one write of h. Unlike the kernel torch.compile generates for one shape, it takes the row
count from its grid and the row length as an argument: Triton compiles it once per
specialisation of its integer arguments (divisible by 16 or not, equal to 1 or not), so a new
batch size runs the same compiled kernel.
"""
import torch
import triton
import triton.language as tl


@triton.jit
def geglu_rows_kernel(g_ptr, u_ptr, h_ptr, n_cols, row_stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    offset = row.to(tl.int64) * row_stride + cols
    g = tl.load(g_ptr + offset, mask=mask, other=0.0).to(tl.float32)
    u = tl.load(u_ptr + offset, mask=mask, other=0.0).to(tl.float32)
    # gelu(g, tanh) = 0.5 g (1 + tanh(z)), z = sqrt(2/pi) (g + 0.044715 g^3); tanh(z) = 2 sigmoid(2z) - 1
    z = 0.7978845608028654 * (g + 0.044715 * g * g * g)
    gelu = g * tl.sigmoid(2.0 * z)
    tl.store(h_ptr + offset, (gelu * u).to(h_ptr.dtype.element_ty), mask=mask)


def geglu_rows(g, u):
    """h = gelu(g, tanh) * u for contiguous g, u of one shape (..., n_cols)."""
    n_cols = g.shape[-1]
    rows = g.numel() // n_cols
    h = torch.empty_like(g)
    block = triton.next_power_of_2(n_cols)
    geglu_rows_kernel[(rows,)](g, u, h, n_cols, n_cols, BLOCK=block, num_warps=8 if block >= 2048 else 4)
    return h
