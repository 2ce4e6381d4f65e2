"""The ACL kind: bindings deleted (first of all phases) and created (after every other Kafka write)."""
