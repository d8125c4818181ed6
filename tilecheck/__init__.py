"""tilecheck: static semantic checks for TileLang and PyPTO kernel loops."""

__version__ = "0.1.0"
