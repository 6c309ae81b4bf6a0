"""FakeCluster: every component of a Volcano cluster wired on one simulated clock."""
