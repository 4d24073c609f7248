import torch
from . import _relu_cpu_v1
ops = torch.ops._relu_cpu_v1


def add_op_namespace_prefix(op_name: str):
    """
    Prefix op by namespace.
    """
    return f"_relu_cpu_v1::{op_name}"
