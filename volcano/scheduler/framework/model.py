"""The session model in one import: tasks, jobs, queues and nodes as the scheduler sees them.

Each concept has its own module (``task``, ``job``, ``queue``, ``node``); this
module re-exports everything they export, for callers that use several at once.
"""

from volcano.scheduler.framework import job, node, queue, task
from volcano.scheduler.framework.job import *  # noqa: F403
from volcano.scheduler.framework.node import *  # noqa: F403
from volcano.scheduler.framework.queue import *  # noqa: F403
from volcano.scheduler.framework.task import *  # noqa: F403

__all__ = []
__all__ += task.__all__
__all__ += job.__all__
__all__ += queue.__all__
__all__ += node.__all__
