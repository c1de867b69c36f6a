#!/usr/bin/env python3
"""libraries.py — PyTorch operations whose kernels come from libraries the tool
knows nothing of (cuBLAS matmul, cuDNN convolution, softmax, layer norm,
embedding gather), for checking that `gpumem-report -- python3
bench/libraries.py` leaves the program's output as it is and profiles the
launches (bench/program-vs-ncu.sh runs it like the other programs).
Deterministic: fixed seed, deterministic algorithms, one checksum per operation.

  python3 bench/libraries.py [ITERATIONS]   (default 3)
"""
import sys

import torch

ITER = int(sys.argv[1]) if len(sys.argv) > 1 else 3
if not torch.cuda.is_available():
    sys.exit("libraries.py: no CUDA device")
torch.manual_seed(0)
torch.backends.cudnn.deterministic = True
torch.backends.cudnn.benchmark = False
torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
dev = torch.device("cuda")
x = torch.randn(2048, 2048, device=dev)
w = torch.randn(2048, 2048, device=dev)
img = torch.randn(16, 32, 64, 64, device=dev)
conv = torch.nn.Conv2d(32, 64, 3, padding=1).to(dev)
norm = torch.nn.LayerNorm(2048).to(dev)
table = torch.randn(50000, 256, device=dev)
idx = torch.randint(0, 50000, (8192,), device=dev)
nvtx = torch.cuda.nvtx

ops = [
    ("matmul", lambda: x @ w),
    ("conv2d", lambda: conv(img)),
    ("softmax", lambda: torch.softmax(x, dim=1)),
    ("layer-norm", lambda: norm(x)),
    ("embedding", lambda: torch.nn.functional.embedding(idx, table)),
]
last = {}
with torch.no_grad():
    for _ in range(ITER):
        for name, f in ops:
            nvtx.range_push(name)
            last[name] = f()
            nvtx.range_pop()
torch.cuda.synchronize()
for name, _ in ops:
    y = last[name]
    print(f"{name:12s} {str(tuple(y.shape)):20s} checksum {y.double().sum().item():.6e}")
