"""Test helpers that are not fixtures: local stand-ins for external HTTP services."""
