"""The command line (app/cli*.py, app/shell.py, app/syntax.py)."""
