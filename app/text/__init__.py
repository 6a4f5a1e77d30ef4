"""Words: the terminal's views of an encounter (`render`), the audit's answers as text
(`audit`), printable output. Under the bundle, the web and the CLI, which all say the same
things; it imports nothing else of the app (docs/ARCHITECTURE.md)."""
