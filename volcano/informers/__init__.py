"""volcano.informers."""
