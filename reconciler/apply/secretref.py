"""Resolve SCRAM password references (environment variable or file) at write time only.

Values are returned to the caller that sends them and are never logged, stored in a report or put
in an exception message; errors name the user and the reference, not the value.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from reconciler import errors
from reconciler.desired import SecretRef


class SecretUnavailable(errors.ConfigError):
    """A password reference cannot be resolved; raised before any write."""


def ref_from_data(data: Any) -> SecretRef | None:
    """A ``SecretRef`` from plan data: ``{"env": ...}``, ``{"file": ...}``, ``"env:NAME"`` or ``"file:PATH"``."""
    if isinstance(data, SecretRef):
        return data
    if isinstance(data, Mapping):
        env, file = data.get("env"), data.get("file")
        if env or file:
            return SecretRef(env=str(env) if env else None, file=str(file) if file else None)
        return None
    if isinstance(data, str):
        scheme, _, rest = data.partition(":")
        if scheme == "env" and rest:
            return SecretRef(env=rest)
        if scheme == "file" and rest:
            return SecretRef(file=rest)
    return None


def resolve(ref: SecretRef, *, user: str, environ: Mapping[str, str] | None = None) -> str:
    """The secret value; ``SecretUnavailable`` naming ``user`` and the reference when it is missing or empty."""
    env = os.environ if environ is None else environ
    where = f"SCRAM user {user!r}: password reference {ref.describe()}"
    if ref.env:
        value = env.get(ref.env)
        if value is None:
            raise SecretUnavailable(f"{where}: environment variable {ref.env} is not set")
    elif ref.file:
        try:
            value = Path(ref.file).read_text(encoding="utf-8").rstrip("\r\n")
        except FileNotFoundError:
            raise SecretUnavailable(f"{where}: file {ref.file} does not exist") from None
        except OSError as exc:
            raise SecretUnavailable(f"{where}: cannot read {ref.file}: {exc.strerror}") from None
        except UnicodeDecodeError:
            raise SecretUnavailable(f"{where}: {ref.file} is not UTF-8 text") from None
    else:
        raise SecretUnavailable(f"{where}: the reference names neither an environment variable nor a file")
    if not value:
        raise SecretUnavailable(f"{where}: the value is empty")
    return value
