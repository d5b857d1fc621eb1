"""zvmlab: a performance laboratory for IBM z/VM in software."""

__all__ = ["__version__"]
__version__ = "0.1.0"
