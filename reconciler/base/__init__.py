"""Plumbing every layer uses and that knows nothing of Kafka: the tool's error types (``errors``), safe file
reading and writing (``fileio``), logging set-up (``logs``) and terminal detection (``terminal``).
"""
