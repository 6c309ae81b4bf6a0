"""The Volcano conformance suite: behaviour cases runnable against any backend.

Tests know only the ``cluster`` fixture (``conformance.backends.base.Cluster``)
and Kubernetes objects; they never reach into the implementation.
"""
