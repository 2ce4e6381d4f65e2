# Developer entry points. `make demo` and `make test` are the two commands a new machine needs
# (Python 3.10+, Java 17 and Maven installed; everything else is fetched on first use).

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
KAFKA_VERSION ?= 4.4.0
KAFKA_PORT ?= 9092
KAFKA_RUN_DIR ?= .cache/kafka-run
PYTEST_ARGS ?=

export KAFKA_VERSION KAFKA_PORT

.PHONY: help venv demo test test-legacy test-peers lint pytest kafka-up kafka-down kafka-status connect-up connect-down registry-up registry-down bench

help: ## List the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F ':.*## ' '{printf "  %-13s %s\n", $$1, $$2}'

venv: $(STAMP) ## Create .venv and install the project with the dev extra, pinned by constraints*.txt (skipped when up to date)

$(STAMP): pyproject.toml constraints.txt constraints-dev.txt
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-input \
		--constraint constraints.txt --constraint constraints-dev.txt -e ".[dev]"
	@touch $@

demo: venv kafka-up ## Install, start a local Kafka on 127.0.0.1:9092 (KAFKA_PORT) and run the tool on examples/
	KAFKA_BOOTSTRAP="$$(cat $(KAFKA_RUN_DIR)/bootstrap)" PATH="$(abspath $(BIN)):$$PATH" scripts/demo.sh

# What runs where, and why: the whole suite runs against Kafka 4.4.0 (KRaft). The integration and reliability tests
# marked every_version (connections and security, capability detection and the per-version messages of each kind,
# read-back, ZooKeeper paths: what differs between releases) run again against Kafka 3.9.2 in ZooKeeper mode and
# Kafka 2.8.2; the rest exercises nothing that differs between releases and runs against 4.4.0 only. The suite
# mostly waits, so the 4.4.0 suite runs as two pytest processes over halves of the modules and the legacy runs go
# beside them (two cores take all three); tests/suites.py says more.
test: lint ## Lint, type-check, the whole suite against Kafka 4.4.0 with the every_version tests against 3.9.2 and 2.8.2 beside it
	$(BIN)/python -m tests.suites $(PYTEST_ARGS)

test-legacy: venv ## Only the tests marked every_version, against Kafka 3.9.2 in ZooKeeper mode, then against Kafka 2.8.2
	$(BIN)/python -m tests.suites --legacy-only $(PYTEST_ARGS)

test-peers: venv ## The opt-in peer builds (the Terraform provider built from source with Go; minutes with cold Go caches)
	$(BIN)/pytest -m peers tests/tooling/test_peer_builds.py $(PYTEST_ARGS)

pytest: venv ## Run the test suite only (PYTEST_ARGS="-k name" to narrow it)
	$(BIN)/pytest $(PYTEST_ARGS)

lint: venv ## ruff check, ruff format --check, mypy (strict) over the package, tests/ and benchmarks/
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/mypy --strict --explicit-package-bases tests benchmarks

kafka-up: venv ## Start one Kafka node on 127.0.0.1:9092 (KAFKA_PORT) and leave it running
	$(BIN)/python -m tests.kafka.harness up --port $(KAFKA_PORT) --dir $(KAFKA_RUN_DIR)

kafka-down: ## Stop the node started by kafka-up
	@if [ -x $(BIN)/python ]; then $(BIN)/python -m tests.kafka.harness down --dir $(KAFKA_RUN_DIR); \
	else echo "Kafka is not running"; fi

kafka-status: venv ## Is the kafka-up node running?
	$(BIN)/python -m tests.kafka.harness status --dir $(KAFKA_RUN_DIR)

connect-up: venv ## Start a Kafka Connect worker on 127.0.0.1:8083 (CONNECT_PORT) next to kafka-up's broker
	$(BIN)/python -m tests.kafka.connect_cli up --bootstrap 127.0.0.1:$(KAFKA_PORT)

connect-down: ## Stop the worker started by connect-up
	@if [ -x $(BIN)/python ]; then $(BIN)/python -m tests.kafka.connect_cli down; \
	else echo "Kafka Connect is not running"; fi

registry-up: venv ## Start a Schema Registry (Apicurio, Confluent API) on 127.0.0.1:8081 (REGISTRY_PORT); builds it on first use
	$(BIN)/python -m tests.kafka.registry_cli up

registry-down: ## Stop the registry started by registry-up
	@if [ -x $(BIN)/python ]; then $(BIN)/python -m tests.kafka.registry_cli down; \
	else echo "The Schema Registry is not running"; fi

bench: venv ## Run every script in benchmarks/ (each prints its own figures)
	@shopt -s nullglob; scripts=(benchmarks/*.py); \
	if [ $${#scripts[@]} -eq 0 ]; then echo "bench: no benchmark scripts in benchmarks/ yet"; exit 0; fi; \
	for script in "$${scripts[@]}"; do echo "== $$script"; $(BIN)/python "$$script"; done
