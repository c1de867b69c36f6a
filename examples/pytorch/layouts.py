#!/usr/bin/env python3
"""layouts.py — a small PyTorch program whose memory-bound operations differ
only in the layout of what they touch, each inside an NVTX range, for
`gpumem-report -- python3 examples/pytorch/layouts.py` (README, "Profiling a
program"; bench/program-vs-ncu.sh).

Each iteration runs, on a 4096 x 4096 float32 matrix (64 MiB):
  add-contiguous   a + b                      both operands row-major
  add-transposed   a + b.t()                  one operand read down its columns
  copy-transposed  a.t().contiguous()         a transpose: reads or writes strided
  sum-rows         a.sum(dim=1)               reduce along the contiguous dimension
  sum-cols         a.sum(dim=0)               reduce across rows
  gather-stride8   a[:, ::8].contiguous()     every 8th column: 1 float of each 32-byte sector
and prints one checksum per operation (deterministic: fixed seed, the same
kernels each run), so its output can be compared with and without a profiler.

  python3 examples/pytorch/layouts.py [ITERATIONS]   (default 9: 54 launches + 2 for the inputs)
"""
import sys

import torch

ITER = int(sys.argv[1]) if len(sys.argv) > 1 else 9
N = 4096

if not torch.cuda.is_available():
    sys.exit("layouts.py: no CUDA device")
torch.manual_seed(0)
dev = torch.device("cuda")
a = torch.randn(N, N, device=dev)
b = torch.randn(N, N, device=dev)
nvtx = torch.cuda.nvtx


def ranged(name, f):
    nvtx.range_push(name)
    y = f()
    nvtx.range_pop()
    return y


ops = [
    ("add-contiguous", lambda: a + b),
    ("add-transposed", lambda: a + b.t()),
    ("copy-transposed", lambda: a.t().contiguous()),
    ("sum-rows", lambda: a.sum(dim=1)),
    ("sum-cols", lambda: a.sum(dim=0)),
    ("gather-stride8", lambda: a[:, ::8].contiguous()),
]
last = {}
for _ in range(ITER):
    for name, f in ops:
        last[name] = ranged(name, f)
torch.cuda.synchronize()
for name, _ in ops:
    y = last[name]
    # the checksum on the host (a copy, no kernel): the same digits with and without a profiler
    print(f"{name:16s} {str(tuple(y.shape)):14s} checksum {y.cpu().double().sum().item():.6e}")
