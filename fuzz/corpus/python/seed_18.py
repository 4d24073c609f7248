from .. import relu

relu_inplace = relu

__all__ = ["relu", "relu_inplace"]
