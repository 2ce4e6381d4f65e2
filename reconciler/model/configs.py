"""Catalogue of Kafka topic, dynamic broker and client-quota configs, and normalisation of human values.

Values in manifests may be written for people (``7d``, ``1GiB``, ``true``, ``[compact, delete]``);
Kafka stores and returns plain strings (``604800000``, ``1073741824``, ``true``, ``compact,delete``).
``canonical`` converts the first into the second so the planner compares like with like, ``humanize``
goes back for plan output, and ``validate_topic_config`` checks type, range and allowed values the way
the broker would. The catalogue follows Apache Kafka 4.x (topic defaults as in 4.0), with the 3.x-only
keys still listed and flagged.

Size units: ``KiB``/``MiB``/``GiB``/``TiB`` are powers of 1024, ``KB``/``MB``/``GB``/``TB`` are powers of
1000 (SI), ``B`` is bytes. Duration units: ``ms``, ``s``, ``m``, ``h``, ``d``, ``w``.
"""

from __future__ import annotations

import decimal
import difflib
import math
import re
from collections.abc import Iterable

from reconciler.model.catalogue import (
    BROKER_CONFIGS,
    CLIENT_METRICS_CONFIGS,
    GROUP_CONFIGS,
    INT_MAX,
    LONG_MAX,
    QUOTA_KEYS,
    TOPIC_CONFIGS,
    ConfigSpec,
)

__all__ = [
    "BROKER_CONFIGS",
    "CLIENT_METRICS_CONFIGS",
    "GROUP_CONFIGS",
    "INT_MAX",
    "LONG_MAX",
    "QUOTA_KEYS",
    "TOPIC_CONFIGS",
    "ConfigSpec",
    "canonical",
    "humanize",
    "is_sensitive",
    "is_topic_config",
    "quota_keys_for",
    "quota_value",
    "spec_for",
    "suggest",
    "topic_default",
    "validate_config",
    "validate_topic_config",
]

_LONG_MIN = -9223372036854775808
_INT_MIN = -2147483648
_QUOTA_BYTE_RATES = frozenset({"producer_byte_rate", "consumer_byte_rate"})


def quota_keys_for(entity_types: Iterable[str]) -> frozenset[str]:
    """The quota keys valid for an entity made of ``entity_types``; empty for an invalid combination."""
    types = frozenset(entity_types)
    if types == {"user", "client-id"}:
        return QUOTA_KEYS["user+client-id"]
    if len(types) == 1:
        return QUOTA_KEYS.get(next(iter(types)), frozenset())
    return frozenset()


_SENSITIVE = re.compile(
    r"password|secret|jaas\.config|keystore\.key|keystore\.certificate\.chain|truststore\.certificates|credential"
)


def is_sensitive(key: str) -> bool:
    """Whether values of ``key`` are secret (passwords, JAAS configs, key material) and must never be shown."""
    spec = spec_for(key)
    return (spec is not None and spec.type == "password") or _SENSITIVE.search(key.lower()) is not None


def spec_for(key: str) -> ConfigSpec | None:
    """The catalogue entry of a topic, broker, group or client-metrics config key, in that order."""
    return (
        TOPIC_CONFIGS.get(key) or BROKER_CONFIGS.get(key) or GROUP_CONFIGS.get(key) or CLIENT_METRICS_CONFIGS.get(key)
    )


def is_topic_config(key: str) -> bool:
    """Whether ``key`` is a topic-level config known to Kafka."""
    return key in TOPIC_CONFIGS


def topic_default(key: str) -> str | None:
    """The value a topic gets when ``key`` is not set on it (Kafka's default), or None if unknown."""
    spec = TOPIC_CONFIGS.get(key)
    return spec.default if spec else None


def suggest(key: str, candidates: Iterable[str] | None = None) -> str | None:
    """The closest known name to ``key`` ("did you mean ...?"), or None when nothing is close."""
    pool = list(candidates) if candidates is not None else list(TOPIC_CONFIGS)
    found = difflib.get_close_matches(key, pool, n=1, cutoff=0.6)
    return found[0] if found else None


# --------------------------------------------------------------------------------------- parsing
_DURATION_MS = {"ms": 1, "s": 1000, "m": 60_000, "h": 3_600_000, "d": 86_400_000, "w": 604_800_000}
_SIZE_BYTES = {
    "b": 1,
    "kb": 1000,
    "mb": 1000**2,
    "gb": 1000**3,
    "tb": 1000**4,
    "kib": 1024,
    "mib": 1024**2,
    "gib": 1024**3,
    "tib": 1024**4,
}
_NUMBER_UNIT = re.compile(r"^\s*([+-]?(?:\d+(?:\.\d*)?|\.\d+))\s*([A-Za-z]*)\s*$")
_INTEGER = re.compile(r"^[+-]?\d+$")


def _yaml_scalar(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return _java_double(value)
    return str(value)


def _short(value: object) -> str:
    """``repr(value)``, cut to 40 characters (a hostile value may be thousands of digits long)."""
    if isinstance(value, int) and abs(value) >= 10**30:  # str() of a huge int is slow, past 4,300 digits refused
        return f"a {len(str(abs(value))) if abs(value).bit_length() < 14_000 else 'many'}-digit number"
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _with_unit(key: str, value: object, *, unit: str) -> str:
    if isinstance(value, bool):
        raise ValueError(f"{key}: expected a number, got a boolean")
    if isinstance(value, int):
        if abs(value) > LONG_MAX:
            raise ValueError(f"{key}: {_short(value)} is out of range for a Kafka long")
        return str(value)
    if isinstance(value, float):
        if not value.is_integer():
            raise ValueError(f"{key}: expected a whole number, got {value!r}")
        return str(int(value))
    text = str(value)
    match = _NUMBER_UNIT.match(text)
    if not match:
        raise ValueError(f"{key}: cannot read {_short(text)} as a {_unit_word(unit)}")
    if len(match.group(1)) > 40:
        raise ValueError(f"{key}: {_short(text)} is out of range for a Kafka long")
    number, suffix = match.group(1), match.group(2)
    if not suffix:
        if not _INTEGER.match(number):
            raise ValueError(f"{key}: expected a whole number, got {text!r}")
        return str(int(number))
    table = _DURATION_MS if unit == "ms" else _SIZE_BYTES
    factor = table.get(suffix if unit == "ms" else suffix.lower())
    if factor is None:
        units = ", ".join(_DURATION_MS) if unit == "ms" else "B, KB, KiB, MB, MiB, GB, GiB, TB, TiB"
        raise ValueError(f"{key}: unknown unit {suffix!r} in {text!r} (use one of {units})")
    scaled = _exact_product(number, factor)
    if scaled is None:
        raise ValueError(f"{key}: {text!r} is not a whole number of {'milliseconds' if unit == 'ms' else 'bytes'}")
    return str(scaled)


def _exact_product(number: str, factor: int) -> int | None:
    whole, _, frac = number.lstrip("+").partition(".")
    negative = whole.startswith("-")
    whole = whole.lstrip("-") or "0"
    scaled = int(whole + frac) * factor if frac else int(whole) * factor
    divisor = int(10 ** len(frac))
    if scaled % divisor:
        return None
    return -(scaled // divisor) if negative else scaled // divisor


def _unit_word(unit: str) -> str:
    return "duration (e.g. 7d, 12h, 30000)" if unit == "ms" else "size (e.g. 1GiB, 512MB, 1048576)"


def _java_double(value: float) -> str:
    """Render a double the way Java's ``Double.toString`` does, which is what Kafka returns."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0 or 1e-3 <= abs(value) < 1e7:
        return repr(float(value))
    sign, digits, exponent = decimal.Decimal(repr(float(value))).as_tuple()
    shown = "".join(map(str, digits)).rstrip("0") or "0"
    power = len(digits) - 1 + int(exponent)
    mantissa = shown[0] + "." + (shown[1:] or "0")
    return f"{'-' if sign else ''}{mantissa}E{power}"


# canonical() of a config written as a string or an integer, remembered: manifests repeat the same few values
# (retention.ms: 7d on thousands of topics). Bounded; an unreadable value is not remembered (it raises).
_CANONICAL: dict[tuple[str, type, object], str] = {}
_CANONICAL_MAX = 65_536


def same_value(key: str, want: str, have: str | None) -> bool:
    """Whether a live value equals the desired canonical value, after canonicalising the live one."""
    if have is None:
        return False
    if have == want:
        return True
    try:
        return canonical(key, have) == want
    except ValueError:
        return False


def canonical(key: str, value: object) -> str:
    """The string Kafka stores for ``value`` of config ``key``; raises ValueError for an unreadable value."""
    kind = type(value)
    if kind is not str and kind is not int:
        return _canonical(key, value)
    ident = (key, kind, value)
    found = _CANONICAL.get(ident)
    if found is None:
        found = _canonical(key, value)
        if len(_CANONICAL) < _CANONICAL_MAX:
            _CANONICAL[ident] = found
    return found


def _canonical(key: str, value: object) -> str:
    spec = spec_for(key)
    if value is None:
        raise ValueError(f"{key}: a value is required (null given)")
    if spec is None and isinstance(value, (list, tuple)):
        return ",".join(_yaml_scalar(v).strip() for v in value)
    if spec is None or spec.type in ("string", "class", "password"):
        if isinstance(value, (list, tuple, dict)):
            raise ValueError(
                f"{key}: expected a single value, got a {'list' if not isinstance(value, dict) else 'map'}"
            )
        return _yaml_scalar(value)
    if spec.type == "list":
        items = [_yaml_scalar(v).strip() for v in value] if isinstance(value, (list, tuple)) else None
        if items is None:
            if isinstance(value, dict):
                raise ValueError(f"{key}: expected a list or a comma-separated string, got a map")
            items = [p.strip() for p in _yaml_scalar(value).split(",")]
        return ",".join(i for i in items if i)
    if isinstance(value, (list, tuple, dict)):
        raise ValueError(f"{key}: expected a single value, got a {'list' if not isinstance(value, dict) else 'map'}")
    if spec.type == "boolean":
        text = _yaml_scalar(value).strip().lower()
        if text not in ("true", "false"):
            raise ValueError(f"{key}: expected true or false, got {value!r}")
        return text
    if spec.type == "double":
        if isinstance(value, bool):
            raise ValueError(f"{key}: expected a number, got a boolean")
        try:
            number = float(value) if isinstance(value, (int, float)) else float(str(value).strip())
        except ValueError:
            raise ValueError(f"{key}: expected a decimal number, got {_short(value)}") from None
        except OverflowError:
            number = math.inf
        if not math.isfinite(number):
            raise ValueError(f"{key}: {_short(value)} is not a finite number (out of range for a Kafka double)")
        return _java_double(number)
    if spec.unit in ("ms", "bytes"):
        return _with_unit(key, value, unit=spec.unit)
    return _with_unit(key, value, unit="count")


def validate_topic_config(key: str, value: object) -> list[str]:
    """Problems with setting topic config ``key`` to ``value``: unknown key, type, range, allowed values."""
    spec = TOPIC_CONFIGS.get(key)
    if spec is None:
        hint = suggest(key)
        return [f"unknown topic config {key!r}" + (f"; did you mean {hint}?" if hint else "")]
    return validate_config(spec, value)


def validate_config(spec: ConfigSpec, value: object) -> list[str]:
    """Problems with ``value`` for the catalogued ``spec`` (parse, range, enum); empty when fine."""
    try:
        text = canonical(spec.name, value)
    except ValueError as exc:
        return [str(exc)]
    problems: list[str] = []
    if spec.type in ("int", "long"):
        number = int(text)
        low, high = (_INT_MIN, INT_MAX) if spec.type == "int" else (_LONG_MIN, LONG_MAX)
        if not low <= number <= high:
            problems.append(f"{spec.name}: {text} is out of range for a Kafka {spec.type}")
    if spec.type in ("int", "long", "double"):
        number_f = float(text)
        if spec.minimum is not None and number_f < spec.minimum:
            problems.append(
                f"{spec.name}: {humanize(spec.name, text)} is below the minimum {_bound(spec, spec.minimum)}"
            )
        if spec.maximum is not None and number_f > spec.maximum:
            problems.append(
                f"{spec.name}: {humanize(spec.name, text)} is above the maximum {_bound(spec, spec.maximum)}"
            )
    if spec.choices is not None:
        items = text.split(",") if spec.type == "list" else [text]
        for item in items:
            if item not in spec.choices:
                problems.append(f"{spec.name}: {item!r} is not one of {', '.join(spec.choices)}")
    if spec.pattern is not None and not re.fullmatch(spec.pattern, text):
        problems.append(f"{spec.name}: {text!r} is not {spec.doc}")
    return problems


def _bound(spec: ConfigSpec, bound: float) -> str:
    return _java_double(bound) if spec.type == "double" else str(int(bound))


def quota_value(key: str, value: object) -> float:
    """A client-quota value as a float; byte rates accept sizes (``10MiB`` per second)."""
    if isinstance(value, bool):
        raise ValueError(f"{key}: expected a number, got a boolean")
    try:
        if isinstance(value, (int, float)):
            number = float(value)
        elif key in _QUOTA_BYTE_RATES and isinstance(value, str) and _NUMBER_UNIT.match(value):
            number = float(_with_unit(key, value, unit="bytes"))
        else:
            try:
                number = float(str(value))
            except ValueError:
                raise ValueError(f"{key}: expected a number, got {_short(value)}") from None
    except OverflowError:
        number = math.inf
    if math.isnan(number) or math.isinf(number) or number < 0:
        raise ValueError(f"{key}: expected a finite, non-negative number, got {_short(value)}")
    high = _QUOTA_MAX.get(key)
    if high is not None and number > high:
        raise ValueError(f"{key}: {_short(value)} is out of range (at most {high}, Kafka's {_QUOTA_TYPE[key]} limit)")
    return number


# Quota values travel as doubles; the broker checks them against each key's config type (long byte rates, int
# connection rate).
_QUOTA_TYPE = {"producer_byte_rate": "long", "consumer_byte_rate": "long", "connection_creation_rate": "int"}
_QUOTA_MAX = {key: LONG_MAX if kind == "long" else INT_MAX for key, kind in _QUOTA_TYPE.items()}


# ------------------------------------------------------------------------------------- humanize
_SIZE_NAMES = (("TiB", 1024**4), ("GiB", 1024**3), ("MiB", 1024**2), ("KiB", 1024))
_DURATION_NAMES = (("d", 86_400_000), ("h", 3_600_000), ("m", 60_000), ("s", 1000))


def humanize(key: str, value: str | None) -> str:
    """A readable rendering for plans: ``604800000 (7d)``, ``1073741824 (1 GiB)``; other values unchanged."""
    if value is None:
        return "(unset)"
    spec = spec_for(key)
    if spec is None or spec.unit is None or not _INTEGER.match(value):
        return value
    number = int(value)
    if number == LONG_MAX:
        return f"{value} (unlimited)"
    if number == -1 and spec.minimum is not None and spec.minimum <= -1:
        return f"{value} (unlimited)"
    if number == -2 and spec.name.startswith(("local.", "log.local.")):
        return f"{value} (same as retention)"
    if number <= 0:
        return value
    return f"{value} ({_duration_words(number)})" if spec.unit == "ms" else _size_words(value, number)


def _duration_words(ms: int) -> str:
    parts: list[str] = []
    rest = ms
    for name, size in _DURATION_NAMES:
        if rest >= size:
            parts.append(f"{rest // size}{name}")
            rest %= size
    if rest:
        parts.append(f"{rest}ms")
    return " ".join(parts[:3]) if len(parts) <= 3 else " ".join(parts[:2]) + " ..."


def _size_words(text: str, number: int) -> str:
    for name, size in _SIZE_NAMES:
        if number >= size:
            amount = number / size
            shown = f"{int(amount)}" if amount.is_integer() else f"{amount:.2f}".rstrip("0").rstrip(".")
            approx = "" if amount.is_integer() else "~"
            return f"{text} ({approx}{shown} {name})"
    return text
