"""The service: opening and running an encounter on its log (`Encounter`), the
stores a log name means, the command syntax, the builder's drafts. The app's lowest layer:
it imports nothing else of the app (docs/ARCHITECTURE.md)."""
