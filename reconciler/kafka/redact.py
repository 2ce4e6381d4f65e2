"""Keeps configured passwords out of kafka-python's log records (defence in depth for ``DEBUG`` logging)."""

from __future__ import annotations

import logging
import re

from reconciler.base import scrubbing
from reconciler.connection.settings import Secret


def quiet_library_logs() -> None:
    """kafka-python logs whole requests at DEBUG, including SASL and salted SCRAM material: never below INFO."""
    library = logging.getLogger("kafka")
    if library.getEffectiveLevel() < logging.INFO:
        library.setLevel(logging.INFO)


class _RedactSecrets(logging.Filter):
    """Replaces every configured password in kafka-python's log records with ``***`` (``scrubbing.scrub``).

    Defence in depth behind ``wire`` keeping the ``kafka`` logger at INFO: kafka-python logs the SASL PLAIN
    request, password included, at DEBUG, and an application embedding the adapter may turn DEBUG on for
    ``kafka`` after the adapter was created. The filter sits on every ``kafka.*`` logger (a logger's filters do not
    see records of its children).
    """

    secrets: set[str] = set()
    matcher: re.Pattern[str] | None = None  # ``scrubbing.pattern`` of ``secrets``

    def filter(self, record: logging.LogRecord) -> bool:
        if self.matcher is None:
            return True
        text = record.getMessage()
        redacted = self.matcher.sub(scrubbing.MASK, text)
        if redacted != text:
            record.msg, record.args = redacted, None
        return True


_REDACT = _RedactSecrets()


def redact_library_logs(*secrets: Secret | None) -> None:
    """Add these passwords to the redacted set and make sure every ``kafka.*`` logger carries the filter."""
    for secret in secrets:
        if secret is not None and secret.reveal():
            value = secret.reveal()
            # also as it shows inside the repr of the bytes on the wire (b'user\x00user\x00pa\\ss')
            _RedactSecrets.secrets |= {value, repr(value.encode())[2:-1]}
    _RedactSecrets.matcher = scrubbing.pattern(_RedactSecrets.secrets)
    for name in [n for n in logging.Logger.manager.loggerDict if n == "kafka" or n.startswith("kafka.")]:
        logger = logging.getLogger(name)
        if _REDACT not in logger.filters:
            logger.addFilter(_REDACT)
