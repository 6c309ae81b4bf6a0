"""Helpers shared by conformance cases: object builders, waits, sizing, invariants."""
