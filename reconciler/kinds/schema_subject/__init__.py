"""The ``SchemaSubject`` kind: a Schema Registry subject, its schema, references, compatibility level and mode.

Its pieces live here, each in a module of its own: the manifest model and the desired subject it builds
(``manifest``), the live view read from a registry (``views``), the diff (``diff``), the dry run through the
registry's own compatibility check and the reference guard on deletes (``dryrun``), and the ordered apply with its
read-back (``apply``). The stages reach a registry only through ``reconciler.registry.port.RegistryPort``.
"""
