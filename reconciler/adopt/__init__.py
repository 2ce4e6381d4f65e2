"""Adopting an existing cluster: manifests written from live state (``importer``) and the shared writer.

``output`` renders documents to deterministic YAML files with schema modelines, ``values`` picks readable
values that normalise back to Kafka's strings, ``report`` describes what was written and what is left to
do, and ``importer`` builds the manifests of a ``ClusterState``. ``reconciler.convert`` reuses the writer.
"""
