"""The Schema Registry port: request builders (``requests``), the port (``port``) over the project's HTTP layer
(``http``), where a command finds its registry (``settings``), and schema canonicalisation (``canonical``). See
docs/schema-registry.md."""
