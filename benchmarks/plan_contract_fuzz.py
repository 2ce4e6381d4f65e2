"""Plan-contract fuzz: resealed plan files shown, decoded and encoded; each request carries what ``show`` prints.

Runs ``--cases`` mutations of the golden example plan (up to three values replaced or deleted, checksum recomputed,
``tests/support/fuzzing.py:edited_plans``) through ``check_shown_is_sent``: the plan is loaded, rendered as text,
decoded into operations, and each operation's request is built and encoded by the adapter's own encoders
(``reconciler.kafka.encoders``); the request's content is compared with the change's shown attributes.

    .venv/bin/python benchmarks/plan_contract_fuzz.py --cases 2000

Prints the count per verdict (refused, same, different, crash) and the time taken; exit status 1 when a case
crashed or a request carried something the plan does not show.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from hypothesis import HealthCheck, given, seed, settings

from tests.support.fuzzing import Tally, check_shown_is_sent, edited_plans


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", type=int, default=2_000)
    parser.add_argument("--seed", type=int, default=20261128)
    args = parser.parse_args()
    tally = Tally()

    @seed(args.seed)
    @settings(max_examples=args.cases, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(edited_plans())
    def one(doc: dict[str, Any]) -> None:
        tally.add(*check_shown_is_sent(doc))

    started = time.monotonic()
    one()
    print(f"{tally.cases} resealed plans in {time.monotonic() - started:.1f}s: {dict(sorted(tally.classes.items()))}")
    for problem in tally.problems[:5]:
        print("  ", problem[:400])
    return 1 if tally.classes["crash"] or tally.classes["different"] else 0


if __name__ == "__main__":
    sys.exit(main())
