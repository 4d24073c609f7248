"""RMS norm reference kernel (kernel-builder layout, CPU and CUDA backends)."""

import torch

from ._ops import ops

__all__ = ["rms_norm"]


def rms_norm(
    x: torch.Tensor,
    weight: torch.Tensor,
    epsilon: float = 1e-6,
    out: "torch.Tensor | None" = None,
) -> torch.Tensor:
    """x * rsqrt(mean(x^2, -1) + epsilon) * weight over the last dimension."""
    if out is None:
        out = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    ops.rms_norm(out, x, weight, float(epsilon))
    return out
