"""The ``SchemaSubject`` kind: a Schema Registry subject, its schema, references, compatibility level and mode.

Its pieces live here, each in a module of its own: the manifest model, the Ownership rule and the desired subject
they build (``manifest``), the manifests' part that adds a document's subject and the Ownership rules to the desired
state (``documents``), the declared and live types and where the model's states hold them (``state``), the live view
read from a registry (``views``), the diff (``diff``), the planner's parts
(``plan``), the dry run through the registry's own compatibility check and the reference guard on deletes
(``dryrun``), the references of a new version (``references``), the impact of a version let in by a level change
(``impact``), the plan payload and the attributes shown (``payload``), the text and PR-comment render (``render``),
apply's parts: the decode, the read before writing and the ordered writes with their read-back (``apply``), the
plan's and ``snapshot``'s read over the registry (``evidence``), the plan's scope and fingerprints (``scope``), the
snapshot section (``snapshot``), import (``adopt``) and the fleet rows (``rows``). Its declaration is
``declaration`` (docs/schema-registry.md lists where each stage calls into this package); the stages reach a
registry only through ``reconciler.registry.port.RegistryPort``.
"""
