"""Snapshots of a cluster's live state: the snapshot file (``files``), assembled from each kind's section (its
declaration's ``snapshot`` part, in ``kinds/<kind>/snapshot.py``; ``sections`` builds the entity kinds'), and
``diff A B`` between two of them (``diff``)."""
