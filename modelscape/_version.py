"""The installed version of modelscape, where every layer can read it without importing the
package's top, which imports every layer."""

from importlib.metadata import version

__all__ = ["__version__"]

__version__ = version("modelscape")
