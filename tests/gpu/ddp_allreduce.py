"""ddp_allreduce.py — NCCL all-reduces between ranks, for `gpumem-report --
PROGRAM` under torchrun (tests/gpu/graphs_device.sh): a collective waits on the
other ranks, so the tool must never replay it, must not hang, and must name it
as not fully counted.

    torchrun --standalone --nproc-per-node 2 --no-python \
        build/gpumem-report --json r-%r.json --out r-%r.html -- python3 ddp_allreduce.py

Each rank: y = 2 (rank + 1), then three times all-reduce(y) and y *= 0.5;
with 2 ranks every element ends at 3.  Prints the rank's checksum and "ok".
"""
import os

import torch
import torch.distributed as dist

dist.init_process_group("nccl")
rank = dist.get_rank()
world = dist.get_world_size()
torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", rank)))
n = 1 << 22
y = torch.full((n,), float(rank + 1), device="cuda") * 2
for _ in range(3):
    dist.all_reduce(y)
    y = y * 0.5
torch.cuda.synchronize()
want = float(sum(2 * (r + 1) for r in range(world))) * 0.5
for _ in range(2):
    want = want * world * 0.5
ok = bool(torch.all(y == want).item())
print(f"rank {rank}: {y[:2].tolist()} sum {y.sum().item():.1f} {'ok' if ok else 'WRONG'}")
dist.destroy_process_group()
