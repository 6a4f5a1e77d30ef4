"""ap-squares (document 002), rule by rule."""
