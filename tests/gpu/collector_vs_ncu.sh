#!/bin/sh
# collector_vs_ncu.sh — build build/tests/gpu/collector_vs_ncu from the collector,
# the metric catalog and the test alone, without the rest of the tree (make
# builds it too, but needs every kernel of the suite to compile).
#   sh tests/gpu/collector_vs_ncu.sh [BUILD_DIR]
set -eu
b=${1:-build}
cuda=${CUDA_HOME:-/usr/local/cuda}
mkdir -p "$b/standalone" "$b/tests/gpu"
cflags="-std=c11 -Wall -Wextra -pedantic -O2 -g -D_DEFAULT_SOURCE -D_POSIX_C_SOURCE=200809L -DGM_HAVE_CUDA=1 -I$cuda/include"
for f in collectors/*.c core/catalog.c; do
    cc $cflags -c "$f" -o "$b/standalone/$(basename "$f" .c).o"
done
"$cuda/bin/nvcc" -std=c++17 -arch=${CUDA_ARCH:-sm_90} -O3 -lineinfo -Xcompiler -Wall,-Wextra \
    -DGM_HAVE_CUDA=1 -I"$cuda/include" -c tests/gpu/collector_vs_ncu.cu -o "$b/standalone/collector_vs_ncu.o"
cc -o "$b/tests/gpu/collector_vs_ncu" "$b/standalone/collector_vs_ncu.o" "$b"/standalone/gmc_*.o \
    "$b/standalone/catalog.o" -L"$cuda/lib64" -Wl,-rpath,"$cuda/lib64" -lcupti -lcudart_static \
    -lstdc++ -ldl -lrt -lpthread -lm
