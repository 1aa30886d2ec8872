#!/bin/bash
# find_cupti.sh: prints the path of the libcupti.so this machine's loader finds (the one the GPU
# tests hand to NVTX_INJECTION64_PATH), else the CUDA toolkit's.
python3 - <<'PY' && exit 0
import ctypes
for name in ("libcupti.so.13", "libcupti.so.12", "libcupti.so"):
    try:
        ctypes.CDLL(name)
    except OSError:
        continue
    for line in open("/proc/self/maps"):
        if "libcupti" in line:
            print(line.split()[-1]); raise SystemExit
raise SystemExit(1)
PY
ls /usr/local/cuda/targets/x86_64-linux/lib/libcupti.so* /usr/local/cuda/lib64/libcupti.so* 2>/dev/null | head -1
