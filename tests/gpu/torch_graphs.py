"""torch_graphs.py — PyTorch's CUDA graphs for `gpumem-report -- PROGRAM` against
`ncu --graph-profiling node` (tests/gpu/graphs_device.sh).  Knows nothing of either.

  eager       random input, a product
  CUDAGraph   torch.cuda.graph capture of (in * 3 + 1).relu() and acc += in
              (not idempotent), replayed twice
  compile     torch.compile(mode="reduce-overhead") of (sin(a) * cos(a) + 1).sum(),
              called four times: warm-up, recording, then replays of its graph

Prints one checksum per result, rounded so that runs compare byte for byte, and
"ok" when acc holds 2 x in, as two replays give.
"""
import torch

torch.manual_seed(0)
n = 1 << 20
x = torch.randn(n, device="cuda")
y = x * 2

static_in = torch.zeros(n, device="cuda")
static_in.copy_(x)
acc = torch.zeros(n, device="cuda")
side = torch.cuda.Stream()
side.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(side):
    warm = (static_in * 3 + 1).relu()   # the warm-up PyTorch asks for before a capture
torch.cuda.current_stream().wait_stream(side)
g = torch.cuda.CUDAGraph()
with torch.cuda.graph(g):
    static_out = (static_in * 3 + 1).relu()
    acc.add_(static_in)
g.replay()
g.replay()


@torch.compile(mode="reduce-overhead")
def f(a):
    return (a.sin() * a.cos() + 1).sum()


r = [f(x).item() for _ in range(4)]   # read at once: a replay reuses the output
torch.cuda.synchronize()
print(f"y {y.sum().item():.2f}")
print(f"out {static_out.sum().item():.2f}")
print(f"acc {acc.sum().item():.2f}")
print("compiled " + " ".join(f"{v:.1f}" for v in r))
ok = torch.allclose(acc, 2 * x) and torch.allclose(static_out, (x * 3 + 1).relu())
print("ok" if ok else "WRONG")
