/*
 * kill_point.h: crash tests of the grader's writers. With WB_TEST_KILL_AT=WRITER:STEP in the
 * environment (e.g. predictions:4), the process kills itself with SIGKILL when that writer reaches
 * that step, as a power cut or `kill -9` would; the tests then check what is left on disk. Unset
 * (always, outside tests) it costs one getenv per step.
 */
#ifndef WB_KILL_POINT_H
#define WB_KILL_POINT_H

void wb_kill_point(const char *writer, int step);

#endif
