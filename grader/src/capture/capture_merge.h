/*
 * capture_merge.h: the captures of a multi-process lesson, one per rank, merged into the one
 * capture that a run of the recording holds (docs/capture-format.md, "Several processes").
 *
 * A lesson with world_size N > 1 (lesson.yaml) starts its own N processes, each with WB_RANK and
 * WB_WORLD_SIZE set before its first CUDA call; the capture library in rank r writes
 * <capture>.rank<r>. After the program exits, the grader merges the N files into <capture>:
 * every record gains "rank": r, the head gains "world_size" and "ranks" (each rank's own head),
 * and the head's flags and counts cover all ranks (complete only when every rank's capture is,
 * dropped records summed). A rank whose file is missing, or that says another rank or world
 * size, makes the run incomplete: exit 3, naming the ranks.
 *
 * Cost: each rank's file is mapped, not read into memory, and its records are copied as text
 * with the rank put in front: no JSON tree of a record list is ever built.
 */
#ifndef WB_CAPTURE_MERGE_H
#define WB_CAPTURE_MERGE_H

#include "wb_base.h"

/* Removes what an earlier run left at capture_path: <capture_path>.rank<r> files and the
 * launcher's <capture_path>.launcher, so that a stale rank is never merged. */
void wb_rank_captures_clear(const char *capture_path);

/* Merges <capture_path>.rank0 .. rank<world_size-1> into capture_path and removes them. A capture
 * the launching process wrote itself at capture_path (it used CUDA without a WB_RANK) is moved
 * to <capture_path>.launcher and not graded. what names the program in messages ("lesson_06
 * (variant ddp2)"). Returns 0, or WB_EXIT_CAPTURE (a rank missing, or disagreeing) / WB_EXIT_INPUT
 * (a file that cannot be read or written) with the message in err. */
int wb_rank_captures_merge(const char *capture_path, int world_size, const char *what, wb_error *err);

#endif
