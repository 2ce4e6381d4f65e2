"""Spark test harness: a standalone cluster of separate JVMs, and reading Spark event logs."""
