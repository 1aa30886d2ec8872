/*
 * ranks.h: one process per GPU, started by the program itself (what torchrun does for PyTorch).
 *
 * The program run by the learner (or the grader) is the launcher: it makes no CUDA or NCCL call.
 * It starts world_size copies of itself (fork, then exec of /proc/self/exe with the same
 * arguments), each with WB_RANK=<r> and WB_WORLD_SIZE=<n> in its environment before CUDA
 * initialises, so that a profiler injected into the launcher's environment captures every rank on
 * its own, and waits for them. Rank r drives GPU r.
 *
 * NCCL's communicator needs one ncclUniqueId shared by all ranks: rank 0 makes it (as PyTorch's
 * rank 0 does) and writes it into one pipe per other rank, which the launcher opened before
 * forking; the others read it (WB_NCCL_ID_FD names the pipe's read end, WB_NCCL_ID_FDS rank 0's
 * write ends).
 */
#ifndef DP_RANKS_H
#define DP_RANKS_H

#include <stddef.h>

#define DP_MAX_RANKS 64

typedef struct {
    int rank, world;           /* from WB_RANK and WB_WORLD_SIZE */
    int id_fd;                 /* ranks 1..n-1: where the communicator's id arrives */
    int n_id_out;              /* rank 0: the pipes to the other ranks */
    int id_out[DP_MAX_RANKS];
} dp_rank_info;

/* GPUs this process may use, counted without touching CUDA (the launcher must not): the entries of
 * /proc/driver/nvidia/gpus, or CUDA_VISIBLE_DEVICES's list where that is set. 0 when unknown. */
int dp_count_gpus(void);

/* The launcher: starts world ranks of this program with argv and waits. When a rank fails, the
 * others are stopped (they would wait for it inside NCCL for ever). Returns the program's exit
 * code: 0 when every rank exited 0, else the first failing rank's code (1 for a signal). */
int dp_launch_ranks(int world, char **argv);

/* In a rank: *info from the environment. Returns 1 when this process is a rank, 0 when it is the
 * launcher (WB_RANK unset), -1 when the variables are malformed (said why). */
int dp_rank_from_env(dp_rank_info *info);

/* Rank 0 sends `bytes` of id to every other rank; the others receive them. 0 or -1. */
int dp_share_id(const dp_rank_info *info, void *id, size_t bytes);

#endif
