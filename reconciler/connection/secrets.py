"""Resolve secret references (an environment variable or a file) at the moment a secret is needed.

Values are returned to the caller that uses them and are never logged, stored or put into an
exception message; errors name what the secret is for and the reference, never the value.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from reconciler.base import errors, fileio
from reconciler.base.secret import SecretRef


class SecretUnavailable(errors.ConfigError):
    """A secret reference cannot be resolved (unset variable, missing or unreadable file, empty value)."""


def resolve(ref: SecretRef, *, what: str, environ: Mapping[str, str] | None = None) -> str:
    """The secret value of ``ref``; ``what`` says what it is for (e.g. ``"SCRAM user 'app': password"``)."""
    env = os.environ if environ is None else environ
    where = f"{what} reference {ref.describe()}"
    if ref.env:
        value = env.get(ref.env)
        if value is None:
            raise SecretUnavailable(f"{where}: environment variable {ref.env} is not set")
    elif ref.file:
        try:
            value = fileio.read_text(Path(ref.file), what="file", error=SecretUnavailable).rstrip("\r\n")
        except SecretUnavailable as exc:
            raise SecretUnavailable(f"{where}: {exc}") from None
    else:
        raise SecretUnavailable(f"{where}: the reference names neither an environment variable nor a file")
    if not value:
        raise SecretUnavailable(f"{where}: the value is empty")
    return value
