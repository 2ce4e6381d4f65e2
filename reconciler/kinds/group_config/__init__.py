"""The group config kind (Kafka 4): configs of a consumer or share group, on the GROUP config resource.

IncrementalAlterConfigs on a group needs ALTER_CONFIGS on that GROUP, and reading it back DESCRIBE_CONFIGS on it:
rights on the group, not on the cluster."""
