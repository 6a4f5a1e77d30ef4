"""The rules: geometry, state machines, rulesets and `decide`. Pure: no I/O."""
