import torch
from torch import nn


class Relu(nn.Module):
    inplace = False

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x)
