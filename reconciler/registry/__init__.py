"""The Schema Registry port: request builders (``requests``), the port (``port``) over a transport, schema
canonicalisation (``canonical``) and schema diffs (``schema_diff``). It imports only ``reconciler.base``; the HTTP
transport and where a command finds its registry are ``reconciler.registry_access``. See docs/schema-registry.md."""
