"""volcano.api."""
