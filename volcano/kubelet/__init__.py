"""volcano.kubelet."""
