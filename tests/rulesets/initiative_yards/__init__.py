"""initiative-yards (document 000), rule by rule."""
