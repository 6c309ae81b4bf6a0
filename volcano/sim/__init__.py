"""Time, randomness and the decision trace: the only owners of non-determinism."""

from volcano.sim.clock import SIM_EPOCH, Clock, Priority, SimClock, TimerHandle
from volcano.sim.rand import RandomStreams
from volcano.sim.trace import Trace, TraceRecord

__all__ = ["SIM_EPOCH", "Clock", "Priority", "RandomStreams", "SimClock", "TimerHandle", "Trace", "TraceRecord"]
