"""Small embedded task files for the math environments."""
