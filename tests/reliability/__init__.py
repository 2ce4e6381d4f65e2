"""Reliability and security campaign: faults on real brokers, hostile input, secrets and least privilege."""
