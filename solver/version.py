"""The solver's version (``biela --version``, ``solver.__version__``)."""

__version__ = "0.1.0"
