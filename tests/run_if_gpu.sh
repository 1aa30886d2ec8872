#!/bin/sh
# run_if_gpu.sh PRESENT_PROBE COMMAND...: runs COMMAND when the probe finds a CUDA device,
# else exits 77 so that ctest reports the test as skipped (not passed).
probe=$1; shift
"$probe" || exit 77
exec "$@"
