#!/bin/sh
# clock-ramp.sh — build bench/clock-ramp.cu and run it (on the GPU machine).
set -eu
mkdir -p build/bench
nvcc -O2 -arch=native -o build/bench/clock-ramp bench/clock-ramp.cu
echo "date:   $(date -u +%Y-%m-%dT%H:%M:%SZ)"
command -v nvidia-smi >/dev/null && echo "device: $(nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader -i 0) (name, driver, SM clock now, max)"
build/bench/clock-ramp
