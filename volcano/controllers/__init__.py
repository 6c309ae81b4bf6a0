"""volcano.controllers."""
