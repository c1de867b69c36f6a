#!/bin/sh
# Install the Debian packages gpumem-report needs when they are missing.
# As root it runs apt-get; otherwise it prints the exact apt-get line and fails.
# The CUDA 13 toolkit is not a Debian package: without it only the CPU side builds.
missing=""
for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
    if [ "$(id -u)" -eq 0 ]; then
        echo "installing:$missing"
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq || exit 1
        apt-get install -y -qq --no-install-recommends $missing >/dev/null || exit 1
    else
        echo "gpumem-report needs these Debian packages; run as root:" >&2
        echo "    apt-get install -y$missing" >&2
        exit 1
    fi
fi
cuda=${CUDA_HOME:-/usr/local/cuda}
if [ ! -x "$cuda/bin/nvcc" ]; then
    echo "note: no CUDA toolkit at $cuda: only the CPU side (render, diff) will build." \
         "For collection install the CUDA 13 toolkit (NVIDIA's CUDA repository for Debian 12," \
         "package cuda-toolkit-13-0) and set CUDA_HOME if it is not at /usr/local/cuda."
fi
exit 0
