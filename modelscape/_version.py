"""The installed version of modelscape, where every layer can read it without importing the
package's top, which imports every layer.

The package is imported as ``modelscape`` and its command is ``modelscape``, but it is
distributed as :data:`DISTRIBUTION`: another project owns the name ``modelscape`` on the
package index, and installing that name gives that project, never this one. Every
install line and every metadata lookup names the distribution through this constant.
"""

from importlib.metadata import version

__all__ = ["DISTRIBUTION", "__version__", "requirement"]

#: The name this project is installed by (``pip install modelscape-map``).
DISTRIBUTION = "modelscape-map"

__version__ = version(DISTRIBUTION)


def requirement(extra: str | None = None) -> str:
    """What to give pip for this project, with one of its extras (``modelscape-map[llama]``)."""
    return DISTRIBUTION if extra is None else f"{DISTRIBUTION}[{extra}]"
