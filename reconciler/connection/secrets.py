"""Resolve secret references (an environment variable or a file) at the moment a secret is needed.

Values are returned to the caller that uses them and are never logged, stored or put into an
exception message; errors name what the secret is for and the reference, never the value.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path

from reconciler.base import errors, fileio
from reconciler.model.desired import SecretRef

# Names of variables that hold credentials by convention: passwords, tokens (GITHUB_TOKEN, GITLAB_TOKEN,
# CI_JOB_TOKEN), OAuth client secrets, JAAS configs, keys, and every KAFKA_SASL_* setting.
_SECRET_NAME = re.compile(r"PASSW(OR)?D|SECRET|TOKEN|CREDENTIAL|JAAS|PRIVATE_?KEY|API_?KEY|^KAFKA_SASL_", re.IGNORECASE)


def is_secret_variable(name: str, *, referenced: frozenset[str] = frozenset()) -> bool:
    """Whether environment variable ``name`` holds a secret: one the connection layer reads as a secret
    (``KAFKA_SASL_PASSWORD``, ``KAFKA_SSL_KEY_PASSWORD``), one a manifest names as a secret reference
    (``referenced``: ``passwordFrom: {env: ...}``), or one whose name says it is a credential."""
    from reconciler.connection import settings as connection

    return name in connection.SECRET_ENV_VARS or name in referenced or _SECRET_NAME.search(name) is not None


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
