"""The scenario reader: TOML files read and checked into a Scenario, its JSON Schema."""
