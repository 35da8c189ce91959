"""The version of SGKR: this line is the one place it is written (pyproject.toml reads it).

Examples
--------
>>> __version__.count(".") >= 1
True
"""

__all__ = ["__version__"]

__version__ = "0.1.0"
