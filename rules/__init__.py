"""tilecheck's built-in rules, one module per rule: the package `tilecheck.rules`.

`tilelang/` holds the TileLang kernel rules (TL1xx-TL3xx), `pypto/` the PyPTO lowering checks
(TL4xx), `meta/` the rules about files and suppressions (TL0xx, TL9xx). This directory is
installed as `tilecheck.rules` (`[tool.setuptools.package-dir]`); imported under any other
name (`import rules` from the repository root) it would be a second copy of every rule class.
"""

if __name__ != "tilecheck.rules":
    raise ImportError(f"the built-in rules are the package `tilecheck.rules`, not `{__name__}`")
