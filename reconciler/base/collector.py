"""The one place the process-wide cyclic garbage collector is paused: around bulk work that allocates many small
objects and frees none of them before it ends.

Reading manifests and planning build hundreds of thousands of small, acyclic objects (nodes, models, rows,
changes) that all live until the step returns; the collector's full passes over them found nothing to free and took
about a quarter of the load time at 10,000 topics. The library functions the commands call
(``reconciler.operations``, the fleet's per-cluster step, ``manifests.check``) wrap those steps in ``paused()``; the
loader and the planner themselves never touch the collector, so they stay pure and callers keep control of their
own process. The collector is switched back on when the step ends, however it ends, unless it was already off.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def paused() -> Iterator[None]:
    """Disable the cyclic collector for the ``with`` block; restore its previous state afterwards."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
