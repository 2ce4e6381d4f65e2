"""What a command left of its ``--timeout`` for connecting, and the sentence for a connect that timed out on it.

``apply --timeout 20`` plans first and connects again to apply: the apply's connect has only what planning left. A
connect that then times out must not say "no broker answered within 0.001s (check the address...)": it names the
--timeout, what used it, and what the connect had (``Budget.sentence``, used by ``bootstrap.failure_sentence``).
"""

from __future__ import annotations

import dataclasses
from typing import ClassVar


@dataclasses.dataclass(frozen=True, slots=True)
class Budget:
    """The connect bound is what ``used_by`` (``planning``) left of a command's ``--timeout given_s``, having used
    ``used_s`` of it: a connect that times out names the --timeout and what used it, not the rest alone."""

    given_s: float
    used_s: float
    used_by: str

    SHORT_S: ClassVar[float] = 1.0  # a connect given less than this had no fair chance: the budget was spent

    def sentence(self, where: str, *, had_s: float, seen: str) -> str:
        """Why a connect that had ``had_s`` seconds of the budget timed out (``seen``: the last error, if any)."""
        given, had = seconds(self.given_s), seconds(had_s)
        if had_s < self.SHORT_S:
            return (
                f"cannot reach Kafka at {where}: the --timeout {given}s was spent before any broker answered: "
                f"{self.used_by} used {self.used_s:.1f}s of it, leaving {had}s to connect; give a longer "
                f"--timeout{seen}"
            )
        return (
            f"cannot reach Kafka at {where}: no broker answered within the {had}s left of --timeout {given}s "
            f"({self.used_by} used {self.used_s:.1f}s of it; check the address, the port and the security protocol)"
            f"{seen}"
        )


def seconds(value: float) -> str:
    """A bound as the messages name it: ``20``, ``2.5``, ``0.001``."""
    return f"{round(value, 1) if value >= 1 else value:g}"
