"""Plumbing every layer uses and that knows nothing of Kafka: the tool's error types (``errors``), safe file
reading and writing (``fileio``), logging set-up (``logs``), terminal detection (``terminal``), secrets kept out of
messages (``scrubbing``) and the one pause of the garbage collector around bulk steps (``collector``).
"""
