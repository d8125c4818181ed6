"""tilecheck's built-in rules, one module per rule (importable as `tilecheck.rules`).

`tilelang/` holds the TileLang kernel rules (TL1xx-TL3xx), `pypto/` the PyPTO lowering checks
(TL4xx), `meta/` the rules about files and suppressions (TL0xx, TL9xx).
"""
