"""The words a table reads (app/text/render.py): events, refusals, no internals."""
