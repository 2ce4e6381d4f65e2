"""Secrets in text the tool did not write (broker and library messages, log records) are replaced without
mangling the text around them: a short secret only where it stands on its own, a long one anywhere."""

from __future__ import annotations

import logging
import string

from hypothesis import given
from hypothesis import strategies as st

from reconciler.base import scrubbing
from reconciler.connection.settings import ConnectionSettings, Secret
from reconciler.kafka import redact
from reconciler.kafka.wire import Wire

MESSAGE = "cannot reach Kafka at 127.0.0.1:9: no broker answered within 2s (broker b refused: bad auth)"


def test_a_one_character_secret_inside_words_is_left_alone() -> None:
    assert scrubbing.scrub("no broker answered", ["b"]) == "no broker answered"


def test_a_short_secret_standing_on_its_own_is_replaced() -> None:
    assert scrubbing.scrub("password=b; login 'b' refused", ["b"]) == "password=***; login '***' refused"
    assert scrubbing.scrub(MESSAGE, ["b"]) == MESSAGE.replace("broker b refused", "broker *** refused")


def test_a_short_secret_in_the_repr_of_the_sasl_plain_bytes_is_replaced() -> None:
    record = r"SaslAuthenticateRequest(auth_bytes=b'alice\x00alice\x00b')"
    assert scrubbing.scrub(record, ["b"]) == r"SaslAuthenticateRequest(auth_bytes=b'alice\x00alice\x00***')"


def test_a_long_secret_is_replaced_inside_words_too() -> None:
    assert scrubbing.scrub("user:pw-Hunter2@host, xpw-Hunter2x", ["pw-Hunter2"]) == "user:***@host, x***x"


def test_a_secret_containing_a_shorter_one_is_replaced_whole() -> None:
    assert scrubbing.scrub("token s3cr3t-token-long given", ["s3cr3t", "s3cr3t-token-long"]) == "token *** given"


def test_empty_secrets_and_no_secrets_leave_the_text_as_it_is() -> None:
    assert scrubbing.scrub(MESSAGE, []) == MESSAGE
    assert scrubbing.scrub(MESSAGE, [""]) == MESSAGE


printable = st.text(alphabet=string.printable.replace("*", ""), max_size=60)  # "*" would blur the check


@given(text=printable, secret=st.text(alphabet=string.printable, min_size=scrubbing.MIN_SUBSTRING, max_size=12))
def test_a_long_secret_never_survives(text: str, secret: str) -> None:
    assert secret not in scrubbing.scrub(text + secret + text, [secret])


@given(
    before=printable,
    after=printable,
    secret=st.text(alphabet=string.ascii_letters + string.digits, min_size=1, max_size=3),
)
def test_a_short_secret_quoted_as_a_value_never_survives_and_nothing_else_changes(
    before: str, after: str, secret: str
) -> None:
    text = f"{before} password={secret} {after}"
    scrubbed = scrubbing.scrub(text, [secret])
    assert f"={secret} " not in scrubbed
    assert scrubbed.replace("***", secret) == text  # only the secret itself was replaced, no word around it


def test_the_wire_scrubs_a_one_character_password_without_mangling_the_message() -> None:
    settings = ConnectionSettings(
        bootstrap_servers=("127.0.0.1:9",),
        security_protocol="SASL_PLAINTEXT",
        sasl_mechanism="PLAIN",
        username="alice",
        password=Secret("b"),
    )
    assert Wire(settings).scrub(MESSAGE) == MESSAGE.replace("broker b refused", "broker *** refused")


def test_the_library_log_filter_keeps_words_and_hides_a_one_character_password() -> None:
    kept = set(redact._RedactSecrets.secrets)
    try:
        redact.redact_library_logs(Secret("b"))
        plain = logging.LogRecord("kafka.net.connection", logging.DEBUG, __file__, 1, "no broker answered", None, None)
        sent = logging.LogRecord("kafka.net.connection", logging.DEBUG, __file__, 1, "%s", (b"al\x00al\x00b",), None)
        assert redact._REDACT.filter(plain) and plain.getMessage() == "no broker answered"
        assert redact._REDACT.filter(sent) and sent.getMessage() == r"b'al\x00al\x00***'"
    finally:
        redact._RedactSecrets.secrets = kept
        redact._RedactSecrets.matcher = scrubbing.pattern(kept)
