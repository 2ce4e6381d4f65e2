"""Integration tests against real Kafka brokers started by the harness."""
