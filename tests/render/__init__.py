"""The words a table reads (app/render.py): events, refusals, no internals."""
