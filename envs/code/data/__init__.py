"""Small embedded task files for the code environments (written for this project)."""
