"""Start-up stays light: ``--help``, ``--version`` and ``validate`` do not import what they do not use.

Each command runs in a fresh interpreter, which then lists the modules it imported. Asserting which modules
are absent (not how long start-up took) keeps this a fast, deterministic guard; the times themselves are
measured by ``benchmarks/apply_bench.py`` (docs/benchmarks.md).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import reconciler

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "platform"

_RUN = """
import json, sys
sys.argv = ["kafka-reconciler", *json.loads(sys.argv[1])]
from reconciler.cli import app
try:
    app()
except SystemExit as exc:
    code = exc.code
else:
    code = 0
print(json.dumps({"code": code, "modules": sorted(sys.modules)}), file=sys.stderr)
"""

# Packages only plan/apply/fleet need; the Kafka client, rich's renderers and Spark are the heavy ones.
HEAVY = ("kafka", "rich", "deepdiff", "pyspark", "pandas", "pyarrow")
COMMAND_MODULES = ("adopt", "apply", "fleet", "gitops", "plan", "show", "snapshot", "tools", "validate")
NOT_FOR_VALIDATE = (
    "reconciler.connection.settings",  # connection settings: plan, apply, snapshot, import
    "reconciler.kafka",
    "reconciler.planner",
    "reconciler.apply",
    "reconciler.render",
    "reconciler.fleet",
)


def run_cli(*args: str) -> tuple[int, set[str], str]:
    done = subprocess.run(
        [sys.executable, "-c", _RUN, json.dumps(list(args))], capture_output=True, text=True, timeout=120, check=False
    )
    report = json.loads(done.stderr.strip().splitlines()[-1])
    return report["code"], set(report["modules"]), done.stdout


def imported(modules: set[str], prefixes: tuple[str, ...]) -> list[str]:
    return sorted(m for m in modules if any(m == p or m.startswith(p + ".") for p in prefixes))


# What every command line imports of ours: the app, the shared options, printing, plain help, colour rules.
LIGHT = [
    "reconciler",
    "reconciler.cli",
    "reconciler.commands",
    "reconciler.commands.options",  # shared options: typer only
    "reconciler.commands.output",  # printing and exit codes: typer and the colour rules
    "reconciler.commands.plain_help",  # plain help text: typer's own classes only
    "reconciler.base",  # the plumbing package (its __init__ imports nothing)
    "reconciler.base.terminal",  # colour rules: the standard library only
]


def ours(modules: set[str]) -> list[str]:
    return sorted(m for m in modules if m.startswith("reconciler"))


@pytest.mark.parametrize("flag", ["--help", "--version"])
def test_help_and_version_import_neither_models_nor_clients(flag: str) -> None:
    code, modules, stdout = run_cli(flag)
    assert code == 0
    assert "kafka-reconciler" in stdout
    # the one pydantic.* name present is the cli's stand-in for the plugin loader (pydantic itself is not imported)
    assert imported(modules, (*HEAVY, "pydantic", "pydantic_core", "ruamel")) == ["pydantic.plugin._loader"]
    assert "pydantic" not in modules
    # --help lists each command from its module's docstring; --version reads no command at all
    listed = [f"reconciler.commands.{name}" for name in COMMAND_MODULES] if flag == "--help" else []
    if flag == "--help":  # plan and apply show the shared defaults in their signatures (standard library only)
        listed += ["reconciler.model", "reconciler.model.defaults"]
        listed += ["reconciler.commands.confirm"]  # apply's confirmation prompt, imported by apply (typer only)
    assert ours(modules) == sorted(LIGHT + listed)


def test_validate_imports_the_manifest_models_but_no_kafka_client_planner_or_renderer() -> None:
    code, modules, stdout = run_cli("validate", str(EXAMPLES))
    assert code == 0
    assert stdout.startswith("valid: ")
    assert "reconciler.manifests.models" in modules  # it did validate
    assert imported(modules, (*HEAVY, *NOT_FOR_VALIDATE)) == []
    # of the commands, only validate itself is read and built
    commands = imported(modules, ("reconciler.commands",))
    expected = [m for m in LIGHT if m.startswith("reconciler.commands")]
    assert commands == sorted([*expected, "reconciler.commands.validate"])


# Every module of ours `validate` imports: the manifest package and the model it builds, nothing of the live state
# (state, impact), the connection code or pydantic's plugin discovery.
VALIDATE_MODULES = [
    *LIGHT,
    "reconciler.base.collector",  # the garbage collector paused while loading
    "reconciler.base.errors",
    "reconciler.base.secret",  # SecretRef, which declared SCRAM users and connectors hold (no connection code)
    "reconciler.commands.validate",
    "reconciler.kinds",  # the kinds' package: its __init__ imports nothing
    "reconciler.kinds.places",  # where a kind's own manifest part is (the standard library and model.kinds only)
    "reconciler.manifests",
    "reconciler.manifests.build",
    "reconciler.manifests.check",
    "reconciler.manifests.connection_specs",  # the Cluster profile's TLS and Connect parts of the model
    "reconciler.manifests.connector_spec",  # the Connector document's model (the connectors' build code is not read)
    "reconciler.manifests.depth",
    "reconciler.manifests.entities",
    "reconciler.manifests.fields",
    "reconciler.manifests.loader",
    "reconciler.manifests.models",
    "reconciler.manifests.ownership",
    "reconciler.manifests.parts",  # what the manifests need of a kind; no kind's declaration is read (see below)
    "reconciler.manifests.plainyaml",
    "reconciler.manifests.profiles",
    "reconciler.manifests.registry_profile",  # a Cluster profile's schemaRegistry block (standard library only)
    "reconciler.manifests.roles",
    "reconciler.manifests.rules",
    "reconciler.manifests.topics",
    "reconciler.manifests.yamlio",
    "reconciler.model",
    "reconciler.model.acl_names",  # the ACL words as enums, shared by manifests and plans
    "reconciler.model.catalogue",
    "reconciler.model.configs",
    "reconciler.model.desired",
    "reconciler.model.identities",
    "reconciler.model.kinds",
]


def test_validate_imports_the_manifest_code_and_nothing_of_the_live_state_or_the_connection() -> None:
    """Regression: validate imported connection.secrets -> model.desired -> model.state -> model.impact, and
    pydantic's plugin loader imported importlib.metadata (email, zipfile, csv ...) with plugins disabled."""
    code, modules, stdout = run_cli("validate", str(EXAMPLES))
    assert code == 0 and stdout.startswith("valid: ")
    assert ours(modules) == sorted(VALIDATE_MODULES)
    assert imported(modules, ("importlib.metadata", "email", "zipfile", "csv")) == []


# What only a Connector document needs: its desired state and the ACLs its worker grant derives.
CONNECTOR_BUILD = ("reconciler.manifests.connectors", "reconciler.manifests.connector_grants")


def test_validate_reads_the_connector_build_code_only_for_a_tree_with_connectors() -> None:
    """Regression: every validate imported the connectors' build and grant code, Connector documents or not."""
    code, modules, _ = run_cli("validate", str(EXAMPLES))
    assert code == 0
    assert imported(modules, CONNECTOR_BUILD) == []
    code, modules, stdout = run_cli("validate", str(EXAMPLES.parent / "connect"))
    assert code == 0 and "2 connectors" in stdout
    assert imported(modules, CONNECTOR_BUILD) == sorted(CONNECTOR_BUILD)


# What only a SchemaSubject document needs: the kind's manifest part and model, which its place keeps
# (``reconciler.kinds.places``), and the schema checks it makes (canonical form).
SUBJECT_BUILD = (
    "reconciler.kinds.schema_subject.documents",
    "reconciler.kinds.schema_subject.manifest",
    "reconciler.registry.canonical",
)


def declarations(modules: set[str]) -> list[str]:
    return sorted(m for m in modules if m.endswith(".declaration") or m == "reconciler.kinds.registry")


def test_validate_reads_a_kinds_own_manifest_part_only_for_a_tree_with_schema_subjects() -> None:
    """A kind with a place of its own is reached there, without the registry, which imports every kind's declaration
    (and the plan model they name): only a tree with such a document imports its part, and none reads a declaration
    (tests/unit/test_manifests_lookup.py checks the import graph)."""
    code, modules, _ = run_cli("validate", str(EXAMPLES))
    assert code == 0
    assert imported(modules, SUBJECT_BUILD) == []
    code, modules, stdout = run_cli("validate", str(EXAMPLES.parent / "schema-registry"))
    assert code == 0 and stdout.startswith("valid: ")
    assert imported(modules, SUBJECT_BUILD) == sorted(SUBJECT_BUILD)
    assert declarations(modules) == []
    assert imported(modules, (*HEAVY, *NOT_FOR_VALIDATE)) == []


def test_version_works_as_module_and_script() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "reconciler", "--version"], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0
    assert result.stdout.strip() == f"kafka-reconciler {reconciler.__version__}"
