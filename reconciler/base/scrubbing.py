"""Replace secrets in text the tool did not write itself (broker, library and HTTP error messages, library logs).

The tool never puts a secret value into its own messages: passwords are ``Secret`` objects whose ``str`` is
``Secret(***)`` and errors name a secret's reference, never its value. ``scrub`` is defence in depth for text that
comes from elsewhere and might quote a secret back: a broker's error message, kafka-python's log records (the SASL
PLAIN request at ``DEBUG``), an HTTP error body.

How a secret is matched depends on its length:

- A secret of ``MIN_SUBSTRING`` (4) characters or more is replaced wherever it occurs, inside a longer word too:
  a long secret found inside other text is almost certainly the secret itself, quoted or concatenated.
- A shorter secret is replaced only where it stands on its own, not touching a letter, a digit or ``_`` on
  either side (a ``\\xNN`` escape before it counts as a separator, as in the repr of the SASL PLAIN bytes
  ``b'user\\x00user\\x00pw'``, whose leading ``b`` is not taken for the secret). Inside a word it is left
  alone. Replacing it there would hide nothing and would give the secret away: with the password ``b``,
  "no broker answered" became "no \\*\\*\\*roker answered", which garbles the message and shows every
  reader which letter the password is. One to three characters occur by chance in any text, so finding them
  inside a word says nothing about the secret beyond what its length already does; and a secret that short
  can be guessed in under a million tries, so a stricter rule would protect nothing. Where a short secret is
  quoted as a value (``password=b``, ``'b'``, ``\\x00b``) it stands on its own and is replaced.

Longer secrets are matched first, so a secret that contains a shorter one is replaced whole.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

MASK = "***"
MIN_SUBSTRING = 4  # secrets at least this long are replaced anywhere; shorter ones only as a token of their own

# Right after a \xNN escape, or else not right after a word character and not the b of a bytes repr (b'...').
_BEFORE = r"(?:(?<=\\x[0-9a-fA-F]{2})|(?<!\w)(?!(?<!['\"])b['\"]))"
_AFTER = r"(?!\w)"


def pattern(secrets: Iterable[str]) -> re.Pattern[str] | None:
    """One pattern matching every non-empty secret by the rules above; ``None`` when there is none."""
    distinct = sorted({s for s in secrets if s}, key=lambda s: (-len(s), s))
    if not distinct:
        return None
    parts = [re.escape(s) if len(s) >= MIN_SUBSTRING else _BEFORE + re.escape(s) + _AFTER for s in distinct]
    return re.compile("|".join(parts))


def scrub(text: str, secrets: Iterable[str]) -> str:
    """``text`` with each of ``secrets`` replaced by ``***`` where it shows (see the module's rules)."""
    compiled = pattern(secrets)
    return compiled.sub(MASK, text) if compiled is not None and text else text
