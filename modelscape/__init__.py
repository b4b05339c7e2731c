"""Controlled behavioral mapping of large language models.

structured task -> controlled changes -> repeated observations -> behavioral profile
"""

from importlib.metadata import version

__version__ = version("modelscape")

__all__ = ["__version__"]
