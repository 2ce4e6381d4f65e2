"""The principal the brokers give this connection, computed the way Kafka's default principal builder does.

Kafka's ``DefaultKafkaPrincipalBuilder`` makes ``User:<name>`` from the SASL user name, from the token claim named
by ``sasl.oauthbearer.sub.claim.name`` (OAUTHBEARER), or from the client certificate's subject as Java's
``X500Principal.getName()`` writes it (RFC 2253, most specific part first; an attribute without an RFC 2253
keyword, such as emailAddress, as ``<OID>=#<hex DER of the value>``), rewritten by the brokers'
``ssl.principal.mapping.rules``. Those two settings and ``principal.builder.class`` are the brokers' own, not the
client's: ``broker_rules`` reads them with DescribeConfigs from the broker this connection reached, taking a
``listener.name.<listener>.`` override for the listener whose advertised port the connection uses. When they
cannot be read, the client settings' copy of the mapping rules and the ``sub`` claim are used, and the apply's
consistency check (``reconciler.apply.guard.check_principal_explains``) catches a principal the broker does not
use.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from cryptography import x509
from kafka.protocol.admin import DescribeConfigsRequest

from reconciler.base import errors

DEFAULT_BUILDER = "org.apache.kafka.common.security.authenticator.DefaultKafkaPrincipalBuilder"
MAPPING_RULES = "ssl.principal.mapping.rules"
SUB_CLAIM = "sasl.oauthbearer.sub.claim.name"
BUILDER = "principal.builder.class"
_BROKER_RESOURCE = 4

# X500Principal.getName() (RFC 2253) knows these keywords only; any other attribute is written by its OID.
_RFC2253_KEYWORDS = {
    "2.5.4.3": "CN",
    "2.5.4.6": "C",
    "2.5.4.7": "L",
    "2.5.4.8": "ST",
    "2.5.4.10": "O",
    "2.5.4.11": "OU",
    "2.5.4.9": "STREET",
    "0.9.2342.19200300.100.1.25": "DC",
    "0.9.2342.19200300.100.1.1": "UID",
}
# DER string types Java writes as text (AVA.isDerString, non-canonical), with the charset to read them in.
_TEXT_TAGS = {0x13: "ascii", 0x14: "latin-1", 0x16: "ascii", 0x1B: "latin-1", 0x0C: "utf-8", 0x1E: "utf-16-be"}
_ESCAPED = ',=+<>#;"\\'


@dataclasses.dataclass(frozen=True, slots=True)
class BrokerRules:
    """How the brokers name principals on this connection's listener, and where that was read."""

    mapping_rules: str | None
    sub_claim: str
    builder: str | None  # a principal builder other than Kafka's default, which this tool cannot imitate
    source: str


def _tlv(data: bytes, at: int) -> tuple[int, bytes, int]:
    """``(tag, value, next offset)`` of the DER element at ``at``."""
    tag, length = data[at], data[at + 1]
    at += 2
    if length & 0x80:
        size = length & 0x7F
        length = int.from_bytes(data[at : at + size], "big")
        at += size
    return tag, data[at : at + length], at + length


def _children(data: bytes) -> list[tuple[int, bytes, bytes]]:
    """``(tag, value, whole element)`` of each element in ``data``."""
    out, at = [], 0
    while at < len(data):
        start = at
        tag, value, at = _tlv(data, at)
        out.append((tag, value, data[start:at]))
    return out


def _oid(encoded: bytes) -> str:
    first = encoded[0]
    parts = [min(first // 40, 2), first - 40 * min(first // 40, 2)]
    value = 0
    for byte in encoded[1:]:
        value = (value << 7) | (byte & 0x7F)
        if not byte & 0x80:
            parts.append(value)
            value = 0
    return ".".join(str(p) for p in parts)


def _escape(text: str) -> str:
    escaped = "".join("\\" + c if c in _ESCAPED else "\\00" if c == "\0" else c for c in text)
    lead = len(escaped) - len(escaped.lstrip(" \r"))
    trail = len(escaped) - len(escaped.rstrip(" \r"))
    middle = escaped[lead : len(escaped) - trail] if trail else escaped[lead:]
    return (
        "".join("\\" + c for c in escaped[:lead]) + middle + "".join("\\" + c for c in escaped[len(escaped) - trail :])
    )


def _attribute(tag: int, value: bytes, element: bytes, oid: str) -> str:
    keyword = _RFC2253_KEYWORDS.get(oid)
    if keyword is None or tag not in _TEXT_TAGS:
        return f"{keyword or oid}=#{element.hex()}"
    return f"{keyword}={_escape(value.decode(_TEXT_TAGS[tag], errors='replace'))}"


def java_subject(name: x509.Name) -> str:
    """``name`` as Java's ``X500Principal.getName()`` writes it, which is what Kafka's principal builder uses."""
    _, sequence, _ = _tlv(name.public_bytes(), 0)
    rdns = []
    for _, rdn_set, _ in _children(sequence):
        parts = []
        for _, pair, _ in _children(rdn_set):
            (_, oid, _), (tag, value, element) = _children(pair)[:2]
            parts.append(_attribute(tag, value, element, _oid(oid)))
        rdns.append("+".join(parts))
    return ",".join(reversed(rdns))


def map_principal(subject: str, rules: str | None) -> str:
    """``subject`` rewritten by the first rule that matches it, as Kafka's ``SslPrincipalMapper`` does."""
    if not rules or not rules.strip():
        return subject
    for text in _split_rules(rules):
        match = _PARSER.fullmatch(text)
        if match is None or (match.group(1) is None and match.group(2) is None):
            raise errors.ConfigError(f"{MAPPING_RULES}: invalid rule {text!r}")
        if match.group(1):
            return subject
        pattern, replacement, case = match.group(2), match.group(3), match.group(4)
        compiled = re.compile(pattern)
        if compiled.fullmatch(subject) is None:
            continue
        mapped = compiled.sub(_replacement(replacement, compiled.groups), subject)  # Java's replaceAll
        return mapped.lower() if case == "L" else mapped.upper() if case == "U" else mapped
    raise errors.ConfigError(
        f"{MAPPING_RULES}: no rule matches the certificate subject {subject!r} (the broker would refuse it)"
    )


# Kafka's SslPrincipalMapper grammar (clients/.../security/ssl/SslPrincipalMapper.java).
_RULE = r"(DEFAULT)|RULE:((?:\\.|[^\\/])*)/((?:\\.|[^\\/])*)/([LU]?).*?|(.*?)"
_SPLITTER = re.compile(r"\s*(" + _RULE + r")\s*(,\s*|$)")
_PARSER = re.compile(_RULE)


def _replacement(text: str, groups: int) -> Any:
    """A ``re.sub`` replacement for Java's: ``$n`` is group n (a number past the groups is literal text)."""

    def expand(match: re.Match[str]) -> str:
        out, i = [], 0
        while i < len(text):
            char = text[i]
            if char == "\\" and i + 1 < len(text):
                out.append(text[i + 1])
                i += 2
                continue
            digits = re.match(r"\$(\d+)", text[i:])
            if digits:
                number = digits.group(1)
                while int(number) > groups and len(number) > 1:
                    number = number[:-1]
                if int(number) <= groups:
                    out.append(match.group(int(number)) or "")
                    i += 1 + len(number)
                    continue
            out.append(char)
            i += 1
        return "".join(out)

    return expand


def _split_rules(rules: str) -> list[str]:
    found = []
    position = 0
    text = rules.strip()
    while position < len(text):
        match = _SPLITTER.match(text, position)
        if match is None or match.end() == position:
            break
        found.append(match.group(1))
        position = match.end()
    return [r for r in found if r]


def listener_of(configs: dict[str, str], *, port: int) -> str | None:
    """The name of the listener advertised on ``port`` (``advertised.listeners``, else ``listeners``)."""
    for key in ("advertised.listeners", "listeners"):
        names = {
            m.group(1).lower()
            for m in re.finditer(r"([A-Za-z0-9_]+)://\[?[^,\]]*\]?:(\d+)", configs.get(key) or "")
            if int(m.group(2)) == port
        }
        if len(names) == 1:
            return names.pop()
    return None


def rules_from_configs(configs: dict[str, str], *, port: int, mechanism: str | None, broker: int) -> BrokerRules:
    """The naming rules in one broker's configuration, for the listener on ``port``."""
    listener = listener_of(configs, port=port)
    prefixes = [f"listener.name.{listener}."] if listener else []
    if listener and mechanism:
        prefixes.insert(0, f"listener.name.{listener}.{mechanism.lower()}.")

    def setting(key: str) -> str | None:
        for prefix in prefixes:
            if configs.get(prefix + key):
                return configs[prefix + key]
        return configs.get(key) or None

    builder = setting(BUILDER)
    where = f"broker {broker}'s configuration" + (f" (listener {listener.upper()})" if listener else "")
    return BrokerRules(
        mapping_rules=setting(MAPPING_RULES),
        sub_claim=setting(SUB_CLAIM) or "sub",
        builder=None if builder in (None, DEFAULT_BUILDER) else builder,
        source=where,
    )


def principal(
    settings: Any, rules: BrokerRules | None, *, claims: dict[str, Any], certificate: x509.Certificate | None
) -> str | None:
    """``User:<name>`` for an OAUTHBEARER or TLS connection, by ``rules`` (else the client settings' copy)."""
    if settings.uses_sasl:  # OAUTHBEARER: the claim the brokers name the principal by
        value = claims.get(rules.sub_claim if rules is not None else "sub")
        return f"User:{value}" if isinstance(value, (str, int)) and str(value) else None
    if certificate is None:
        return "User:ANONYMOUS"
    mapping = (rules.mapping_rules or "DEFAULT") if rules is not None else settings.ssl_principal_mapping_rules
    return f"User:{map_principal(java_subject(certificate.subject), mapping)}"


def describe(rules: BrokerRules | None) -> str:
    """Where the naming rules of the principal came from, for messages."""
    if rules is None:
        return "the client settings (the brokers' configuration could not be read)"
    return rules.source


def broker_rules(wire: Any, *, mechanism: str | None) -> BrokerRules | None:
    """The rules of the broker this connection reached (one DescribeConfigs); ``None`` when it cannot be read."""
    try:
        node = wire.home if wire.home is not None else wire.broker_ids()[0]
        broker = wire.client()._manager.cluster.broker_metadata(node)
        resource = DescribeConfigsRequest.DescribeConfigsResource(
            resource_type=_BROKER_RESOURCE, resource_name=str(node), configuration_keys=None
        )
        request = DescribeConfigsRequest(resources=[resource], include_synonyms=False, include_documentation=False)
        response = wire.send(request, node=node)
    except errors.ReconcilerError:
        return None
    results = list(getattr(response, "results", None) or getattr(response, "resources", None) or [])
    if not results or results[0].error_code:
        return None
    configs = {str(c.name): str(c.value) for c in results[0].configs if c.value is not None}
    return rules_from_configs(configs, port=int(broker.port), mechanism=mechanism, broker=int(node))
