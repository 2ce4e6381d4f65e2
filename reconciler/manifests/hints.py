"""Hints for a field written in the wrong place or under the wrong name, from the document models themselves.

``unknown_field_hint`` answers an unknown key: when the key is a field elsewhere in the same document (an Acl's
``principal`` written beside ``bindings`` instead of in each binding) it says where it belongs; otherwise it offers
the closest field that is valid at that place ("did you mean"). ``password_hint`` answers a Cluster's or a
ScramUser's ``password``: a reference written under it (``password: {env: X}``) has only the wrong key name
(``passwordFrom``), an inline value is not allowed at all.
"""

from __future__ import annotations

import difflib
import functools
import typing
from collections.abc import Iterator
from typing import Any

import pydantic

from reconciler.manifests import models

_LIST_ORIGINS = (list, tuple, typing.Sequence)


def _models_in(annotation: Any) -> Iterator[tuple[type[pydantic.BaseModel], bool]]:
    """The models an annotation holds, each with whether it sits inside a list."""

    def walk(tp: Any, in_list: bool) -> Iterator[tuple[type[pydantic.BaseModel], bool]]:
        if isinstance(tp, type) and issubclass(tp, pydantic.BaseModel):
            yield tp, in_list
            return
        origin = typing.get_origin(tp)
        for arg in typing.get_args(tp):
            yield from walk(arg, in_list or origin in _LIST_ORIGINS)

    yield from walk(annotation, False)


def _fields(model: type[pydantic.BaseModel]) -> dict[str, Any]:
    """YAML key (alias) -> annotation of each field of ``model``."""
    model.model_rebuild()
    return {(info.alias or name): info.annotation for name, info in model.model_fields.items()}


def model_at(kind: str, path: tuple[Any, ...]) -> type[pydantic.BaseModel] | None:
    """The model that validates the mapping at ``path`` of a ``kind`` document (``None`` when not a model)."""
    model: type[pydantic.BaseModel] | None = models.DOCUMENTS.get(kind)
    for part in path:
        if model is None:
            return None
        if isinstance(part, int):
            continue  # a list item: the list's item model was chosen with its field
        found = [m for m, _ in _models_in(_fields(model).get(str(part)))]
        model = found[0] if found else None
    return model


def _places(model: type[pydantic.BaseModel], prefix: str, depth: int = 0) -> Iterator[tuple[str, str]]:
    """``(key, where)`` of every field below ``model``: ``("principal", "spec.bindings[]")``."""
    if depth > 6:
        return
    for key, annotation in _fields(model).items():
        yield key, prefix
        for inner, in_list in _models_in(annotation):
            yield from _places(inner, f"{prefix}.{key}" + ("[]" if in_list else ""), depth + 1)


@functools.lru_cache(maxsize=32)
def _all_places(kind: str) -> tuple[tuple[str, str], ...]:
    return tuple(_places(models.DOCUMENTS[kind], ""))


def unknown_field_hint(kind: str, path: tuple[Any, ...], vocabulary: frozenset[str]) -> str | None:
    """A hint for the unknown key ``path[-1]``: where it belongs, or the closest valid field at its place."""
    key = str(path[-1])
    here = model_at(kind, path[:-1])
    if kind in models.DOCUMENTS:
        elsewhere = sorted({where for k, where in _all_places(kind) if k == key})
        if elsewhere:
            spots = " or ".join(w.lstrip(".") or "the top level of the document" for w in elsewhere)
            per_item = any(w.endswith("[]") for w in elsewhere)
            return f"{key} belongs under {spots}" + (" (each entry has its own)" if per_item else "") + ", not here"
    valid = sorted(_fields(here)) if here is not None else sorted(vocabulary)
    close = difflib.get_close_matches(key, valid, n=1, cutoff=0.6)
    return f"did you mean {close[0]}?" if close else None


def password_hint(value: Any) -> tuple[str, str]:
    """``(message, hint)`` for a ``password`` key in a Cluster or ScramUser spec."""
    if isinstance(value, dict) and set(value) <= {"env", "file"} and value:
        ref = ", ".join(f"{k}: {v}" for k, v in value.items())
        return (
            "the key of a password reference is passwordFrom, not password",
            f"rename the key: passwordFrom: {{{ref}}}",
        )
    inline = "use passwordFrom: {env: VARIABLE} or passwordFrom: {file: path}"
    return "inline passwords are not allowed in manifests", inline
