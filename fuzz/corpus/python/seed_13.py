import torch
from . import _relu_cpu_0a1b2c3
ops = torch.ops._relu_cpu_0a1b2c3


def add_op_namespace_prefix(op_name: str):
    """
    Prefix op by namespace.
    """
    return f"_relu_cpu_0a1b2c3::{op_name}"
