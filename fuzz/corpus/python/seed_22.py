import torch


def relu(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    torch.ops._relu_cpu_0a1b2c3.relu(out, x)
    return out


__all__ = ["relu"]
