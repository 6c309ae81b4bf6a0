"""The Volcano batch scheduler (session, statements, actions, plugins) and a
default-scheduler baseline."""

from volcano.scheduler.config import (
    DEFAULT_SCHEDULER_CONF,
    SchedulerConfError,
    load_scheduler_conf,
)
from volcano.scheduler.default_scheduler import DefaultScheduler
from volcano.scheduler.framework.conf import SchedulerConf
from volcano.scheduler.scheduler import Scheduler

__all__ = [
    "DEFAULT_SCHEDULER_CONF",
    "DefaultScheduler",
    "Scheduler",
    "SchedulerConf",
    "SchedulerConfError",
    "load_scheduler_conf",
]
