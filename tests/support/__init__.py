"""Helpers shared by the test suites that are not fixtures: polling with a deadline, builders, hypothesis
strategies, manifest texts, local stand-ins for external HTTP services."""
