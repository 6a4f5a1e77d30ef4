"""round-meters (document 001), rule by rule."""
