"""Planted secrets never leak: every command, every verbosity, forced failures; stdout, stderr, files written.

Secrets planted: the SASL password of a SCRAM-SHA-512 login in a ``--command-config`` properties file, the
SCRAM-SHA-256 password of the same user in ``KAFKA_SASL_PASSWORD``, a SCRAM user's password behind an env
reference in the manifests, a sensitive broker config value (``${VAR}`` in a BrokerConfig), a wrong password in
a properties file, and the GitHub token. kafka-python's own logging is on at ``-vvv``.
"""

from __future__ import annotations

import logging
import secrets
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from reconciler.connection.settings import Secret
from reconciler.kafka.adapter import KafkaAdapter
from reconciler.kafka.results import ScramDeletion, ScramUpsert
from reconciler.model import state as s
from reconciler.model.kinds import Kind
from tests.kafka.cluster import KafkaCluster
from tests.support.builders import acl, all_rights, lock_right
from tests.support.fake_github import FakeGitHub
from tests.support.live import cli, settings, topics_state
from tests.support.manifest_texts import topic_documents

VERBOSITY = ["", "-v", "-vv", "-vvv"]


def token(label: str) -> str:
    return f"{label}-{secrets.token_hex(8)}"


class Planted:
    """The secret values of one test and what the tool needs to use them."""

    def __init__(self, prefix: str) -> None:
        self.user = f"{prefix}ops"
        self.login_512 = token("Login512")  # in the --command-config file
        self.login_256 = token("Login256")  # in KAFKA_SASL_PASSWORD
        self.scram = token("ScramSvc")  # SCRAM user password, via an env reference
        self.broker = token("BrokerJaas")  # a sensitive broker config value
        self.wrong = token("WrongPw")  # a wrong password in a properties file
        self.github = token("ghp")  # the GitHub token

    @property
    def values(self) -> list[str]:
        return [self.login_512, self.login_256, self.scram, self.broker, self.wrong, self.github]


def rights_of(p: Planted, topic_prefix: str) -> list[s.AclBinding]:
    """The tool principal's rights, with what a whole-cluster snapshot also reads on the shared broker: the configs
    of every group that has some (other tests leave group configs there; docs/security.md lists the grant)."""
    return [
        *all_rights(f"User:{p.user}", topic_prefix),
        acl(f"User:{p.user}", "DESCRIBE_CONFIGS", "*", resource="GROUP"),
        lock_right(f"User:{p.user}"),
    ]


@pytest.fixture
def planted(kafka_sasl: KafkaCluster, topic_prefix: str) -> Iterator[Planted]:
    p = Planted(topic_prefix)
    with KafkaAdapter(settings(kafka_sasl)) as admin:
        results = admin.alter_scram_credentials(
            upserts=[
                ScramUpsert(p.user, "SCRAM-SHA-512", 4096, Secret(p.login_512)),
                ScramUpsert(p.user, "SCRAM-SHA-256", 4096, Secret(p.login_256)),
            ]
        )
        assert all(r.ok for r in results), results
        assert all(r.ok for r in admin.create_acls(rights_of(p, topic_prefix)))
    try:
        yield p
    finally:
        with KafkaAdapter(settings(kafka_sasl)) as admin:
            admin.delete_acls(rights_of(p, topic_prefix))
            admin.alter_scram_credentials(
                deletions=[ScramDeletion(p.user, m) for m in ("SCRAM-SHA-512", "SCRAM-SHA-256")]
            )
            admin.alter_scram_credentials(deletions=[ScramDeletion(f"{topic_prefix}svc", "SCRAM-SHA-512")])
            admin.delete_topics(sorted(topics_state(kafka_sasl, topic_prefix)))


def properties(path: Path, *, user: str, password: str, bootstrap: str) -> Path:
    path.write_text(
        f"bootstrap.servers={bootstrap}\nsecurity.protocol=SASL_PLAINTEXT\nsasl.mechanism=SCRAM-SHA-512\n"
        "sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required "
        f'username="{user}" password="{password}";\n'
    )
    return path


def manifests(root: Path, prefix: str, *, sensitive_broker_config: bool) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    text = topic_documents({f"{prefix}secret-topic": (1, 1, {"retention.ms": "3600000"})})
    text += (
        "---\napiVersion: kafka-reconciler/v1\nkind: ScramUser\n"
        f'metadata: {{name: "{prefix}svc"}}\n'
        "spec: {mechanism: SCRAM-SHA-512, iterations: 4096, passwordFrom: {env: SVC_SCRAM_PASSWORD}}\n"
        "---\napiVersion: kafka-reconciler/v1\nkind: Ownership\nmetadata: {name: o}\n"
        f'spec: {{topics: [{{prefix: "{prefix}"}}], principals: [{{prefix: "User:{prefix}"}}]}}\n'
    )
    if sensitive_broker_config:
        text += (
            "---\napiVersion: kafka-reconciler/v1\nkind: BrokerConfig\nmetadata: {name: tls}\n"
            'spec:\n  broker: "1"\n  configs:\n'
            '    ssl.keystore.password: "${BROKER_JAAS}"\n'
        )
    (root / "m.yaml").write_text(text)
    return root


class Leaks:
    """Every output and file of the runs, searched for every planted value."""

    def __init__(self, planted: Planted) -> None:
        self.planted = planted
        self.runs = 0
        self.checked_bytes = 0

    def check(self, what: str, text: str) -> None:
        self.checked_bytes += len(text)
        for value in self.planted.values:
            assert value not in text, f"{what} leaks a planted secret"

    def run(self, args: list[str], *, env: dict[str, str], expect: set[int]) -> str:
        result = cli(args, env=env, timeout=180)
        self.runs += 1
        what = " ".join(a for a in args if not a.startswith("/"))
        assert result.returncode in expect, (what, result.returncode, result.stderr[-2000:])
        assert "Traceback" not in result.stderr, (what, result.stderr[-3000:])
        self.check(f"{what} (stdout)", result.stdout)
        self.check(f"{what} (stderr)", result.stderr)
        return result.stdout + result.stderr

    def files(self, root: Path) -> None:
        for path in sorted(root.rglob("*")):
            if path.is_file() and path.suffix in (".json", ".md", ".yaml", ".txt"):
                self.check(str(path.name), path.read_text(errors="replace"))


@pytest.mark.slow
def test_no_command_leaks_a_secret(
    kafka_sasl: KafkaCluster, topic_prefix: str, tmp_path: Path, planted: Planted
) -> None:
    leaks = Leaks(planted)
    props = properties(
        tmp_path / "ops.properties", user=planted.user, password=planted.login_512, bootstrap=kafka_sasl.bootstrap
    )
    wrong = properties(
        tmp_path / "wrong.properties", user=planted.user, password=planted.wrong, bootstrap=kafka_sasl.bootstrap
    )
    offline = manifests(tmp_path / "all", topic_prefix, sensitive_broker_config=False)
    # Sensitive broker configs are refused in manifests; the refusal must not echo the value.
    sensitive = manifests(tmp_path / "sensitive", topic_prefix, sensitive_broker_config=True)
    applied = manifests(tmp_path / "apply", topic_prefix, sensitive_broker_config=False)
    env = {"SVC_SCRAM_PASSWORD": planted.scram, "BROKER_JAAS": planted.broker}
    env_login = {
        **env,
        "KAFKA_BOOTSTRAP_SERVERS": kafka_sasl.bootstrap,
        "KAFKA_SECURITY_PROTOCOL": "SASL_PLAINTEXT",
        "KAFKA_SASL_MECHANISM": "SCRAM-SHA-256",
        "KAFKA_SASL_USERNAME": planted.user,
        "KAFKA_SASL_PASSWORD": planted.login_256,
    }
    out = tmp_path / "out"
    out.mkdir()

    # validate and show take no verbosity: each runs once (show on the plan file written at the most verbose level)
    leaks.run(["validate", str(offline)], env=env, expect={0})
    leaks.run(["validate", str(sensitive)], env=env, expect={1})
    for v in VERBOSITY:
        vv = [v] if v else []
        leaks.run(["plan", str(sensitive), "--command-config", str(props), *vv], env=env, expect={1})
        plan_file = out / f"plan{v}.json"
        leaks.run(
            ["plan", str(offline), "--out", str(plan_file), "--command-config", str(props), *vv], env=env, expect={0}
        )
        assert stat.S_IMODE(plan_file.stat().st_mode) == 0o600
        if v == VERBOSITY[-1]:
            for fmt in ("text", "markdown", "json"):
                leaks.run(["show", str(plan_file), "--format", fmt], env={}, expect={0})
        leaks.run(["plan", str(offline), "--format", "json", *vv], env=env_login, expect={0})
        leaks.run(
            ["snapshot", "--out", str(out / f"snap{v}.json"), "--command-config", str(props), *vv], env={}, expect={0}
        )
        leaks.run(["import", "--out", str(out / f"import{v}"), "--command-config", str(props), *vv], env={}, expect={0})
        leaks.run(["apply", str(applied), "--dry-run", "--command-config", str(props), *vv], env=env, expect={0})
        # forced failures: wrong password, unreachable broker, missing variable, a broker error
        leaks.run(["plan", str(offline), "--command-config", str(wrong), *vv], env=env, expect={1})
        unreachable = {**env_login, "KAFKA_BOOTSTRAP_SERVERS": "127.0.0.1:9", "KAFKA_REQUEST_TIMEOUT_MS": "2000"}
        leaks.run(["apply", str(applied), "--auto-approve", *vv], env=unreachable, expect={1})
        leaks.run(["apply", str(applied), "--auto-approve", "--command-config", str(props), *vv], env={}, expect={1})
        leaks.run(["plan", str(sensitive), "--command-config", str(props), *vv], env={}, expect={1})

    # The real apply (env login, SCRAM user password from an env reference), then a broker error.
    report = leaks.run(["apply", str(applied), "--auto-approve", "-vvv"], env=env_login, expect={0})
    assert "applied" in report
    broken = tmp_path / "broken"
    broken.mkdir()
    # a topic outside the prefix the login may create: the rights check refuses before writing (exit 1) and names
    # the grants it lacks (kafka-acls lines included); that refusal, at -vvv, must not leak either
    (broken / "m.yaml").write_text(topic_documents({f"x{topic_prefix}denied": (1, 1, {})}))
    refused = leaks.run(["apply", str(broken), "--auto-approve", "-vvv"], env=env_login, expect={1})
    assert f"x{topic_prefix}denied" in refused and "kafka-acls" in refused

    # The plan comment, through a local GitHub API that records every request body.
    with FakeGitHub(token=planted.github) as github:
        github_env = {"GITHUB_TOKEN": planted.github, "GITHUB_REPOSITORY": "acme/kafka"}
        args = ["comment", "--plan", str(out / "plan-vvv.json"), "--pr", "7", "--api-url", github.url]
        leaks.run(args, env=github_env, expect={0})
        bodies = [str(call.body) for call in github.calls()]
        assert bodies
        for body in bodies:
            leaks.check("comment body", body)

    leaks.files(tmp_path)
    print(f"\n{leaks.runs} command runs, {leaks.checked_bytes:,} bytes of output and files checked, no secret found")


def test_kafka_python_debug_logging_never_shows_the_password(
    kafka_sasl: KafkaCluster, caplog: pytest.LogCaptureFixture
) -> None:
    """Regression: kafka-python logs the SASL PLAIN request, password included, at DEBUG. The adapter keeps the
    library at INFO, but an application embedding it may turn DEBUG on afterwards; the password is redacted."""
    login = settings(kafka_sasl)
    assert login.password is not None
    with KafkaAdapter(login) as adapter:
        caplog.set_level(logging.DEBUG, logger="kafka")  # after the adapter was created, before it connects
        adapter.read_state(kinds=frozenset({Kind.TOPIC}), topic_filter=lambda _n: False)
    assert "SaslAuthenticateRequest" in caplog.text  # the record that used to carry the password
    assert login.password.reveal() not in caplog.text
    assert "***" in caplog.text
