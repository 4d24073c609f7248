"""ReLU reference kernel (kernel-builder layout, CPU and CUDA backends)."""

import torch

from ._ops import ops

__all__ = ["relu"]


def relu(x: torch.Tensor, out: "torch.Tensor | None" = None) -> torch.Tensor:
    """Return max(x, 0); writes into `out` when given (same shape, dtype, device)."""
    if out is None:
        out = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    ops.relu(out, x)
    return out
