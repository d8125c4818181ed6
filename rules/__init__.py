"""tilecheck's built-in rules, one module per rule (installed as `tilecheck.rules`)."""
