"""The command line (app/cli*.py, app/cli/shell.py, app/service/syntax.py)."""
