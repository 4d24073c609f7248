import torch


@torch.library.register_fake("_relu_cpu_0a1b2c3::relu")
def _(out, x):
    return None
