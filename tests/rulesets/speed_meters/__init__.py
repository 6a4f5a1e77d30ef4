"""speed-meters (document 004), rule by rule."""
