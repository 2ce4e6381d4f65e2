"""How a command reaches its Schema Registry: the HTTP transport (``http``, over the project's HTTP layer), where
a command finds its registry (``settings``: a Cluster profile's ``schemaRegistry:`` block or
``SCHEMA_REGISTRY_URL``) and how ``reconciler.ports`` opens and closes it (``opening``). Kept apart from
``reconciler.registry`` (requests, port, canonical form: pure, importing only ``reconciler.base``) so the kinds and
the manifest stage can read the registry's data types without reaching the Connect client or the manifests."""
