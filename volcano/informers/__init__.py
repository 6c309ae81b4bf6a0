"""How components read the cluster: shared list+watch caches and a work queue on the clock.

Public API: ``InformerFactory``, ``Informer``, ``Handler``, ``WorkQueue``,
``namespace_index``; ``GuardedIndex`` with its tests ``same_owner_refs`` and ``same_spec``.
"""

from volcano.informers.factory import InformerFactory
from volcano.informers.indexfn import GuardedIndex, same_owner_refs, same_spec
from volcano.informers.informer import Handler, Informer, namespace_index
from volcano.informers.workqueue import WorkQueue

__all__ = ["GuardedIndex", "Handler", "Informer", "InformerFactory", "WorkQueue", "namespace_index",
           "same_owner_refs", "same_spec"]
