"""volcano.apiserver."""
