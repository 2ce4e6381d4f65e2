"""The error a plan payload of the wrong shape raises, shared by ``payloads`` and the payload modules beside it.

``payloads.decode`` catches exactly this error (a payload edited by hand is kept as ``Unreadable``, naming the
problem); anything else raised while decoding is a bug and stays one.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


class PayloadError(ValueError):
    """A payload in a plan file does not have the shape its kind's payload type reads."""


def fields(data: Any, allowed: tuple[str, ...]) -> Mapping[str, Any]:
    """``data`` when it is an object with no field outside ``allowed``; ``PayloadError`` naming what does not fit."""
    if not isinstance(data, Mapping):
        raise PayloadError(f"the change's data is a {type(data).__name__}, not an object")
    unknown = sorted(str(k) for k in data if k not in allowed)
    if unknown:
        raise PayloadError(f"the change's data has unexpected field(s) {', '.join(unknown)}")
    return data
