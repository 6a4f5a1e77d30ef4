"""The table view: a local web app that drives the same engine and log."""
