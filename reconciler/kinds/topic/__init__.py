"""The topic kind: created, grown, reconfigured, reassigned and deleted on the Kafka wire."""
