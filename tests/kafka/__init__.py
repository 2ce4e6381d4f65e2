"""Test-only Apache Kafka harness: resolves broker jars with Maven and runs real KRaft clusters."""
