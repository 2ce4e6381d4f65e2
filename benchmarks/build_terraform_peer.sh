#!/usr/bin/env bash
# Build the Terraform peer of benchmarks/peers_bench.py from public source into .cache/ (gitignored):
#   .cache/terraform-provider-kafka/v$PROVIDER/terraform-provider-kafka  (Mongey/terraform-provider-kafka)
#   .cache/terraform/terraform  (hashicorp/terraform, only when no terraform is on PATH and $TERRAFORM is unset)
# Sources come through the Go module proxy (`go mod download`); nothing is vendored in this repository.
# `go install ...provider@version` is refused here: the proxy answers 403 to the module's version list, which
# go install reads for deprecation notices; `go mod download` of the exact version works.
set -euo pipefail
PROVIDER="${PROVIDER:-0.13.1}"
TERRAFORM_VERSION="${TERRAFORM_VERSION:-1.11.4}"
root="$(cd "$(dirname "$0")/.." && pwd)"
out="$root/.cache/terraform-provider-kafka/v$PROVIDER"
export GOFLAGS=-mod=mod

if [ ! -x "$out/terraform-provider-kafka" ]; then
  mkdir -p "$out"  # a fresh clone has no .cache/ yet
  dir="$(go mod download -json "github.com/Mongey/terraform-provider-kafka@v$PROVIDER" |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["Dir"])')"
  src="$root/.cache/terraform-provider-kafka/src-v$PROVIDER"
  rm -rf "$src" && cp -r "$dir" "$src" && chmod -R u+w "$src"
  (cd "$src" && go build -o "$out/terraform-provider-kafka" .)
fi
echo "provider: $out/terraform-provider-kafka"

if [ -z "${TERRAFORM:-}" ] && ! command -v terraform >/dev/null && [ ! -x "$root/.cache/terraform/terraform" ]; then
  mkdir -p "$root/.cache/terraform"
  GOBIN="$root/.cache/terraform" go install "github.com/hashicorp/terraform@v$TERRAFORM_VERSION"
fi
echo "terraform: ${TERRAFORM:-$(command -v terraform || echo "$root/.cache/terraform/terraform")}"
