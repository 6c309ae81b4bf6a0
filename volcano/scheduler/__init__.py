"""volcano.scheduler."""
