#!/bin/sh
# Says whether the GPU tests can run here; `make test` prints this line so a
# CPU-only run (CI) shows why the GPU tests were skipped.  Exit 0: a GPU is usable.
if ! command -v nvidia-smi >/dev/null 2>&1 && [ ! -e /dev/nvidiactl ]; then
    echo "SKIP: GPU tests (make test-gpu): no NVIDIA driver on this machine (no nvidia-smi, no /dev/nvidiactl)"
    exit 1
fi
if command -v nvidia-smi >/dev/null 2>&1 && ! nvidia-smi -L >/dev/null 2>&1; then
    echo "SKIP: GPU tests (make test-gpu): the NVIDIA driver sees no GPU (nvidia-smi -L failed)"
    exit 1
fi
echo "GPU present: the GPU tests run with 'make test-gpu'"
exit 0
