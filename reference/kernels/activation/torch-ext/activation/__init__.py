"""Activation reference kernel (kernel-builder layout, CPU and CUDA backends).

Same ops and semantics as the Hub's kernels-community/activation. Every
function takes the input first and an optional preallocated `out`, which is
allocated when not given, and returns `out`. The *_and_mul functions take
input of shape [..., 2d] and return [..., d].
"""

import torch

from ._ops import ops

__all__ = [
    "silu_and_mul",
    "mul_and_silu",
    "gelu_and_mul",
    "gelu_tanh_and_mul",
    "fatrelu_and_mul",
    "gelu_new",
    "gelu_fast",
    "gelu_quick",
    "gelu_tanh",
    "silu",
    "gelu",
]


def _gated_out(x: torch.Tensor, out: "torch.Tensor | None") -> torch.Tensor:
    if out is not None:
        return out
    shape = x.shape[:-1] + (x.shape[-1] // 2,)
    return torch.empty(shape, dtype=x.dtype, device=x.device)


def _elementwise_out(x: torch.Tensor, out: "torch.Tensor | None") -> torch.Tensor:
    if out is not None:
        return out
    return torch.empty(x.shape, dtype=x.dtype, device=x.device)


def silu_and_mul(x: torch.Tensor, out: "torch.Tensor | None" = None) -> torch.Tensor:
    """silu(x[..., :d]) * x[..., d:]"""
    out = _gated_out(x, out)
    ops.silu_and_mul(out, x)
    return out


def mul_and_silu(x: torch.Tensor, out: "torch.Tensor | None" = None) -> torch.Tensor:
    """x[..., :d] * silu(x[..., d:])"""
    out = _gated_out(x, out)
    ops.mul_and_silu(out, x)
    return out


def gelu_and_mul(x: torch.Tensor, out: "torch.Tensor | None" = None) -> torch.Tensor:
    """gelu(x[..., :d]) * x[..., d:], exact (erf) GELU"""
    out = _gated_out(x, out)
    ops.gelu_and_mul(out, x)
    return out


def gelu_tanh_and_mul(x: torch.Tensor, out: "torch.Tensor | None" = None) -> torch.Tensor:
    """gelu_tanh(x[..., :d]) * x[..., d:], tanh-approximated GELU"""
    out = _gated_out(x, out)
    ops.gelu_tanh_and_mul(out, x)
    return out


def fatrelu_and_mul(
    x: torch.Tensor, threshold: float = 0.0, out: "torch.Tensor | None" = None
) -> torch.Tensor:
    """(x1 if x1 > threshold else 0) * x2, with x1 = x[..., :d], x2 = x[..., d:]"""
    out = _gated_out(x, out)
    ops.fatrelu_and_mul(out, x, float(threshold))
    return out


def gelu_new(x: torch.Tensor, out: "torch.Tensor | None" = None) -> torch.Tensor:
    """0.5 * x * (1 + tanh(0.7978845608 * (x + 0.044715 * x^3)))"""
    out = _elementwise_out(x, out)
    ops.gelu_new(out, x)
    return out


def gelu_fast(x: torch.Tensor, out: "torch.Tensor | None" = None) -> torch.Tensor:
    """0.5 * x * (1 + tanh(x * 0.7978845608 * (1 + 0.044715 * x^2)))"""
    out = _elementwise_out(x, out)
    ops.gelu_fast(out, x)
    return out


def gelu_quick(x: torch.Tensor, out: "torch.Tensor | None" = None) -> torch.Tensor:
    """x * sigmoid(1.702 * x)"""
    out = _elementwise_out(x, out)
    ops.gelu_quick(out, x)
    return out


def gelu_tanh(x: torch.Tensor, out: "torch.Tensor | None" = None) -> torch.Tensor:
    """0.5 * x * (1 + tanh(0.7978845608 * (x + 0.044715 * x^3)))"""
    out = _elementwise_out(x, out)
    ops.gelu_tanh(out, x)
    return out


def silu(x: torch.Tensor, out: "torch.Tensor | None" = None) -> torch.Tensor:
    """x * sigmoid(x)"""
    out = _elementwise_out(x, out)
    ops.silu(out, x)
    return out


def gelu(x: torch.Tensor, out: "torch.Tensor | None" = None) -> torch.Tensor:
    """0.5 * x * (1 + erf(x / sqrt(2))), exact GELU"""
    out = _elementwise_out(x, out)
    ops.gelu(out, x)
    return out
