"""The Kafka adapter: the only package that speaks the Kafka wire protocol (through kafka-python)."""
