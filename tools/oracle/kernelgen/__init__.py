"""Template families of the oracle's kernel generator (see `tools/oracle/generate.py`)."""
