"""Tests that drive external tools (a browser, Spark): each skips, with the reason, when its tool is absent."""
