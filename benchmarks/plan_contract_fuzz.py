"""Plan-contract fuzz: resealed plan files shown, decoded and encoded; each request carries what ``show`` prints.

Runs ``--cases`` mutations of the golden example plan, each inside the changes of one kind drawn from the registry
(up to three values replaced or deleted, checksum recomputed, ``tests/support/fuzzing.py:edited_plans_of_kinds``; a
kind the golden plan holds no applicable change of fails at once) through ``shown_sent.check_shown_is_sent``: the
plan is loaded, rendered as text, decoded into operations, and each operation's request is built and encoded by the
adapter's own encoders (``reconciler.kafka.encoders``; a connector's write is what Connect is sent); the request's
content is compared with the change's shown attributes.

    .venv/bin/python benchmarks/plan_contract_fuzz.py --cases 2000

Prints the count per verdict (refused, same, different, crash), the same per kind, and the time taken; exit status 1
when a case crashed, a request carried something the plan does not show, or a registered kind was not seeded.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from hypothesis import HealthCheck, given, seed, settings

from tests.support.fuzzing import Tally, edited_plans_of_kinds, seeded_kinds
from tests.support.shown_sent import check_shown_is_sent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", type=int, default=2_000)
    parser.add_argument("--seed", type=int, default=20261128)
    args = parser.parse_args()
    tally = Tally()
    kinds = seeded_kinds()
    per_kind: dict[str, Tally] = {kind: Tally() for kind in kinds}

    @seed(args.seed)
    @settings(max_examples=args.cases, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(edited_plans_of_kinds())
    def one(case: tuple[str, dict[str, Any]]) -> None:
        kind, doc = case
        verdict, detail = check_shown_is_sent(doc)
        tally.add(verdict, detail)
        per_kind[kind].add(verdict, detail)

    started = time.monotonic()
    one()
    print(f"{tally.cases} resealed plans in {time.monotonic() - started:.1f}s: {dict(sorted(tally.classes.items()))}")
    for kind in kinds:
        print(f"  {kind:<15} {per_kind[kind].cases:>5} cases: {dict(sorted(per_kind[kind].classes.items()))}")
    for problem in tally.problems[:5]:
        print("  ", problem[:400])
    unseeded = [kind for kind in kinds if not per_kind[kind].cases]
    return 1 if tally.classes["crash"] or tally.classes["different"] or unseeded else 0


if __name__ == "__main__":
    sys.exit(main())
