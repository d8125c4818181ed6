"""One module per subcommand: each adapts its arguments to the application layer (`tilecheck.app.workspace`)."""
