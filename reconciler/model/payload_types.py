"""Which payload type each kind's changes carry (``TYPES``), filled as the types are defined: a payload type
registers itself for its kinds with ``of_kind``, so the plan file's decoding (``payloads.decode``) reads a new kind's
payload without a table naming it. The model's kinds register in ``reconciler.model``; a kind whose payload type
lives in its own place under ``reconciler.kinds`` registers when its module is imported, which
``reconciler.kinds.registry`` does for every kind it lists (and so every stage that reaches the kinds).

``Payload`` is what every payload is to a stage that does not know its kind: its plan-file JSON (``to_dict``); its
type reads it back (``from_dict``) and derives what its change shows (``shown``, ``reconciler.model.shown``)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol, TypeVar

from reconciler.model.kinds import Kind

T = TypeVar("T", bound=type)


class Payload(Protocol):
    """A change's ``before`` or ``after`` (see the module docstring)."""

    def to_dict(self) -> Any: ...


_TYPES: dict[Kind, type] = {}
TYPES: Mapping[Kind, Any] = _TYPES  # each kind's payload type, as registered
CLASSES: set[type] = set()  # every registered payload type


def of_kind(*kinds: Kind) -> Callable[[T], T]:
    """A class decorator: the payload type of ``kinds``' changes (``ValueError`` for a kind that has one already)."""

    def register(cls: T) -> T:
        for kind in kinds:
            if _TYPES.get(kind, cls) is not cls:
                raise ValueError(f"the {kind} kind's payload type is {_TYPES[kind].__name__}, not {cls.__name__}")
            _TYPES[kind] = cls
        CLASSES.add(cls)
        return cls

    return register


def type_of(kind: Kind) -> Any:
    """The payload type of ``kind``'s changes; ``LookupError`` when none registered (its module was not imported:
    ``reconciler.kinds.registry`` imports every kind's)."""
    found = _TYPES.get(kind)
    if found is None:
        raise LookupError(f"no payload type is registered for the {kind} kind (import reconciler.kinds.registry)")
    return found
