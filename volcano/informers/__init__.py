"""How components read the cluster: shared list+watch caches and a work queue on the clock.

Public API: ``InformerFactory``, ``Informer``, ``Handler``, ``WorkQueue``,
``namespace_index``.
"""

from volcano.informers.factory import InformerFactory
from volcano.informers.informer import Handler, Informer, namespace_index
from volcano.informers.workqueue import WorkQueue

__all__ = ["Handler", "Informer", "InformerFactory", "WorkQueue", "namespace_index"]
