"""The table view's server (app/web/) over HTTP: API, contract, trust, hosted workers."""
