"""volcano.admission."""
