# gpu-env.sh: the set-up the final-check scripts share, sourced with B (the carried build folder)
# and OUT set. Lesson 06 loads libnccl.so.2 from python3's nvidia-nccl-cu13 package (too big to
# carry); NVLink multicast stays off, as the GPU machine requires. Output goes to $R/log.txt too.
export NCCL_NVLS_ENABLE=0
NCCL_DIR=$(python3 -c "import nvidia.nccl as n; print(list(n.__path__)[0])" 2>/dev/null)
export LD_LIBRARY_PATH=${NCCL_DIR:+$NCCL_DIR/lib:}$PWD/$B/devlibs:${LD_LIBRARY_PATH:-}
export WB_STATE_DIR=/tmp/wb-state
R=$OUT/r; mkdir -p $R
exec > >(tee $R/log.txt) 2>&1
date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader
