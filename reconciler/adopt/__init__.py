"""Adoption: manifests for resources that exist already, so the first plan after adopting them is empty.

Users reach it through two commands: ``import`` adopts a live cluster (``from_live``) and ``convert``
adopts another tool's files (``reconciler.convert``). Both share this package's writer: ``output`` renders
documents to deterministic YAML files with schema modelines, ``values`` picks readable values that
normalise back to Kafka's strings, and ``adoption_report`` (``AdoptionReport``) describes what was written
and what is left to do (``IMPORT.md`` / ``CONVERSION.md``).
"""
