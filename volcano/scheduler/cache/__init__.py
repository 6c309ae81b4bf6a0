"""The scheduler cache: informer-fed, parsed once per object version, snapshotted per cycle."""

from volcano.scheduler.cache.cache import SchedulerCache

__all__ = ["SchedulerCache"]
