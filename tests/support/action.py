"""The shipped GitHub action's script, as tests run it."""

from __future__ import annotations

from pathlib import Path

from ruamel.yaml import YAML

ROOT = Path(__file__).resolve().parents[2]


def run_script() -> str:
    action = YAML(typ="safe").load((ROOT / "action.yml").read_text(encoding="utf-8"))
    [step] = [s for s in action["runs"]["steps"] if s.get("id") == "run"]
    return str(step["run"])
