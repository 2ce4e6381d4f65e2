"""Secrets as every stage holds them: a value (``Secret``) that never shows, a reference to one (``SecretRef``: an
environment variable or a file, never the value), and which environment variables hold secrets
(``is_secret_variable``). Resolving a reference is the connection layer's (``reconciler.connection.secrets``)."""

from __future__ import annotations

import dataclasses
import hmac
import re
from typing import Any

# Names of variables that hold credentials by convention: passwords, tokens (GITHUB_TOKEN, GITLAB_TOKEN,
# CI_JOB_TOKEN), OAuth client secrets, JAAS configs, keys, and every KAFKA_SASL_* setting.
_SECRET_NAME = re.compile(r"PASSW(OR)?D|SECRET|TOKEN|CREDENTIAL|JAAS|PRIVATE_?KEY|API_?KEY|^KAFKA_SASL_", re.IGNORECASE)


def is_secret_variable(name: str, *, referenced: frozenset[str] = frozenset()) -> bool:
    """Whether environment variable ``name`` holds a secret: one a manifest names as a secret reference
    (``referenced``: ``passwordFrom: {env: ...}``), or one whose name says it is a credential (the connection
    layer's secret variables, ``KAFKA_SASL_PASSWORD`` and ``KAFKA_SSL_KEY_PASSWORD``, among them)."""
    return name in referenced or _SECRET_NAME.search(name) is not None


class Secret:
    """A secret string whose ``repr``/``str`` are ``Secret(***)``; ``reveal()`` is the only way to read it."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        """The secret value; call this only where it goes onto the wire."""
        return self._value

    def __repr__(self) -> str:
        return "Secret(***)"

    __str__ = __repr__

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Secret):
            return NotImplemented
        return hmac.compare_digest(self._value.encode(), other._value.encode())

    def __hash__(self) -> int:
        return hash(("Secret", len(self._value)))

    def __copy__(self) -> Secret:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> Secret:
        return self

    def __reduce__(self) -> Any:
        raise TypeError("Secret values cannot be pickled")


@dataclasses.dataclass(frozen=True, slots=True)
class SecretRef:
    """A reference to a secret: an environment variable or a file. Never the value itself."""

    env: str | None = None
    file: str | None = None

    def describe(self) -> str:
        return f"env:{self.env}" if self.env else f"file:{self.file}"
