"""Plans are byte-identical across interpreter processes whatever their hash seed (no set or dict order leaks)."""

from __future__ import annotations

from pathlib import Path


def test_plans_are_byte_identical_across_processes_with_different_hash_seeds() -> None:
    import os
    import subprocess
    import sys

    script = "from tests.golden.example import example_plan; print(example_plan().to_json(), end='')"
    outputs = set()
    for seed in ("1", "2", "3"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run(
            [sys.executable, "-c", script],
            env=env,
            cwd=Path(__file__).resolve().parents[2],
            capture_output=True,
            text=True,
            check=True,
            timeout=120,
        )
        outputs.add(done.stdout)
    assert len(outputs) == 1
