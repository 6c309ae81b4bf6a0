"""Volcano batch scheduling for Kubernetes, re-implemented as a deterministic fake-cluster testbed."""

__version__ = "0.1.0"
