"""Snapshots of a cluster's live state: the snapshot file (``files``), assembled from each kind's section
(``sections`` for the Kafka kinds and the connectors; a kind's own package for the others), and ``diff A B``
between two of them (``diff``)."""
