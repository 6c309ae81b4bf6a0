"""The seed scenarios, run under the default-scheduler baseline and under Volcano.

``run_demo()`` is what ``make demo`` runs: four scenarios from the documents
Volcano's users start from (gang deadlock on GPUs, the Spark deadlock on CPUs,
2 ps + 4 workers jobs, fair share between two users), each on a fresh
in-memory cluster, each twice. It prints a table and writes one timeline chart
per scenario. Outcomes come from the real scheduler, controllers and simulated
kubelet; nothing is scripted.
"""

from volcano.demo.runner import run_demo

__all__ = ["run_demo"]
