from relu._ops import ops


def double(x):
    return ops.relu(x)
