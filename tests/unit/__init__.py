"""Pure unit tests: plain data in, plain data out; no Kafka."""
