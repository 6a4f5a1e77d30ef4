"""The project as a whole: import direction, lint, types, install, published schemas."""
