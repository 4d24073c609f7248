from ._ops import ops
from . import _ops


def double(x):
    return ops.relu(x)
