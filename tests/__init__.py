"""Tests for kafka-reconciler."""
