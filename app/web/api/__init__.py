"""The table view's handlers, one module per concern: each a function of a `Call`
(app/web/wire.py), listed once in the route table (app/web/routes.py), which is the only
thing that imports them all (docs/ARCHITECTURE.md)."""
