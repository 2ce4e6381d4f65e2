#!/usr/bin/env bash
# The steps behind `make demo`, run after the virtualenv exists and the local Kafka node is up.
# Expects kafka-reconciler on PATH and KAFKA_BOOTSTRAP naming the local node (the Makefile sets both).
# The main job on the shipped platform example: validate, plan (saved), apply the saved plan,
# then plan again and expect no changes.
set -euo pipefail
cd "$(dirname "$0")/.."

: "${KAFKA_BOOTSTRAP:?set KAFKA_BOOTSTRAP, e.g. 127.0.0.1:9092 (make demo does this)}"
EXAMPLE=examples/platform
WORK=.cache/demo
mkdir -p "$WORK"

# The example's SCRAM user takes its password from this variable; the demo makes one up and
# never prints it.
if [ -z "${PAYMENTS_SCRAM_PASSWORD:-}" ]; then
  PAYMENTS_SCRAM_PASSWORD="$(python -c 'import secrets; print(secrets.token_urlsafe(18))')"
fi
export PAYMENTS_SCRAM_PASSWORD

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

step "kafka-reconciler --version"
kafka-reconciler --version

step "kafka-reconciler validate $EXAMPLE"
kafka-reconciler validate "$EXAMPLE"

step "kafka-reconciler plan $EXAMPLE --out $WORK/plan.json"
kafka-reconciler plan "$EXAMPLE" --bootstrap-server "$KAFKA_BOOTSTRAP" --out "$WORK/plan.json"

step "kafka-reconciler apply --plan $WORK/plan.json --auto-approve"
kafka-reconciler apply --plan "$WORK/plan.json" --bootstrap-server "$KAFKA_BOOTSTRAP" --auto-approve

step "kafka-reconciler plan $EXAMPLE --detailed-exitcode   (expect: no changes)"
status=0
kafka-reconciler plan "$EXAMPLE" --bootstrap-server "$KAFKA_BOOTSTRAP" --detailed-exitcode || status=$?
if [ "$status" -ne 0 ]; then
  echo "demo: the plan after apply is not empty (exit $status)" >&2
  exit 1
fi

step "Next"
echo "The node keeps running for your own experiments (kafka-reconciler --help); stop it with 'make kafka-down'."
