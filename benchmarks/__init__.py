"""Throughput benchmarks in the shape of Kubernetes' scheduler_perf."""
