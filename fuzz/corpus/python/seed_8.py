from .. import relu, gelu

__all__ = ["relu", "gelu"]
