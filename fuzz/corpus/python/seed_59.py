import torch
from . import _relu_cuda_15a6b24_dirty
ops = torch.ops._relu_cuda_15a6b24_dirty


def add_op_namespace_prefix(op_name: str):
    """
    Prefix op by namespace.
    """
    return f"_relu_cuda_15a6b24_dirty::{op_name}"
