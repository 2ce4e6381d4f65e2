"""The client-metrics subscription kind (KIP-714): a named subscription on the CLIENT_METRICS config resource,
whose writes and reads Kafka authorizes on the cluster."""
