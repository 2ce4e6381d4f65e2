"""Kafka Connect over its REST API: settings, the HTTP client, the ``ConnectPort``, how a command
opens it (``opening``) and secret digests.

Like ``reconciler.kafka`` for the brokers, this is the only package that speaks to Kafka Connect: one read per plan
(``GET /connectors?expand=info&expand=status`` and the plugin list), the validate endpoint for changed configs,
typed writes, every wait bounded by the command's deadline, every request counted.
"""
