from .. import relu

__all__ = ["relu"]
