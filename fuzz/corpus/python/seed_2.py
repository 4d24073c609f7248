import torch
from torch import nn

from ._ops import ops


class Relu(nn.Module):
    has_backward = False
    weight: torch.Tensor

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = torch.empty_like(x)
        ops.relu(out, x)
        return out
