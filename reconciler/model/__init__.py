"""The data every stage shares: desired state, live state (and snapshots), the plan and its typed payloads,
resource kinds, the config catalogue and cluster capabilities. Pure data and pure functions over it; no I/O
beyond reading and writing the plan and snapshot files.

Modules are imported by name (``from reconciler.model import plans, state``); this package re-exports nothing,
so importing one of them does not import the others.
"""
