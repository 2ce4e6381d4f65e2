#!/usr/bin/env bash
# The steps behind `make demo`, run after the virtualenv exists and the local Kafka node is up.
# Expects kafka-reconciler on PATH and KAFKA_BOOTSTRAP naming the local node (the Makefile sets both).
set -euo pipefail
cd "$(dirname "$0")/.."

: "${KAFKA_BOOTSTRAP:?set KAFKA_BOOTSTRAP, e.g. 127.0.0.1:9092 (make demo does this)}"

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

step "kafka-reconciler --version"
kafka-reconciler --version

step "Local Kafka at ${KAFKA_BOOTSTRAP}"
python - <<'PY'
import os

from kafka import KafkaAdminClient

admin = KafkaAdminClient(bootstrap_servers=os.environ["KAFKA_BOOTSTRAP"], client_id="kafka-reconciler-demo")
try:
    cluster = admin.describe_cluster()
    brokers = ", ".join(f"{b['host']}:{b['port']} (id {b['broker_id']})" for b in cluster["brokers"])
    print(f"cluster {cluster['cluster_id']}: brokers {brokers}; topics: {len(admin.list_topics())}")
finally:
    admin.close()
PY

step "Next"
echo "The node keeps running for your own experiments: kafka-reconciler --help; stop it with 'make kafka-down'."
