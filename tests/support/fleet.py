"""Fleet test data: a live state derived from the example manifests with drift, generated desired/live pairs
(hypothesis strategies shared by the local and Spark engine parity tests) and the snapshot files a fleet reads."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from hypothesis import strategies as st

from reconciler import operations, planner
from reconciler.connect import secrets as connect_secrets
from reconciler.fleet import sources
from reconciler.kinds.connector import evidence as connect_evidence
from reconciler.model import desired as d
from reconciler.model import state as s
from reconciler.model.capabilities import API_SINCE
from reconciler.model.kinds import Kind
from reconciler.snapshot import files

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "platform"


def live_from(manifests: Path, *, drop: str, extra_topic: str, retention: str) -> s.ClusterState:
    """A live state that matches the manifests except: one topic missing, one undeclared, one config changed."""
    wanted = operations.load_manifests([manifests], env={}).desired
    brokers = tuple(s.Broker(i, f"b{i}", 9092, f"rack-{i % 2}") for i in (1, 2, 3))
    topics = {}
    for name, t in wanted.topics.items():
        if name == drop:
            continue
        layout = tuple(tuple((p + r) % 3 + 1 for r in range(t.replication_factor)) for p in range(t.partitions))
        configs = dict(t.configs)
        if name == "orders.created":
            configs["retention.ms"] = retention
        topics[name] = s.TopicState(name=name, assignment=layout, configs=configs)
    topics[extra_topic] = s.TopicState(name=extra_topic, assignment=((1, 2, 3),))
    topics["__consumer_offsets"] = s.TopicState(name="__consumer_offsets", assignment=((1, 2, 3),), internal=True)
    return s.ClusterState(
        cluster_id=f"id-{drop}",
        controller_id=1,
        brokers=brokers,
        topics=topics,
        broker_configs={},
        acls=frozenset(list(wanted.acls)[1:]),
        quotas={},
        scram_users={},
        group_configs={n: dict(e.configs) for n, e in wanted.group_configs.items()},
        client_metrics={n: dict(e.configs) for n, e in wanted.client_metrics.items()},
    )


TOPICS = ("orders", "payments", "team.audit", "team.clicks", "__consumer_offsets", "app-connect-configs", "x.internal")
CONFIG_KEYS = ("retention.ms", "cleanup.policy", "min.insync.replicas", "segment.bytes")
CONFIG_VALUES = ("1", "2", "delete", "compact", "604800000", "86400000", "1073741824")
PRINCIPALS = ("User:alice", "User:bob", "User:team-x", "User:*")
USERS = ("alice", "bob", "team-x")
KINDS = tuple(Kind)

names = st.sampled_from
configs = st.dictionaries(names(CONFIG_KEYS), names(CONFIG_VALUES), max_size=3)
sources_ = st.one_of(st.none(), st.builds(d.Source, st.just("topics.yaml"), st.integers(1, 50)))


@st.composite
def brokers(draw: st.DrawFn) -> tuple[s.Broker, ...]:
    count = draw(st.integers(1, 3))
    racked = draw(st.booleans())
    return tuple(s.Broker(i, f"b{i}", 9092, f"r{i % 2}" if racked else None) for i in range(1, count + 1))


@st.composite
def live_topic(draw: st.DrawFn, name: str) -> s.TopicState:
    partitions = draw(st.integers(1, 4))
    replicas = st.lists(st.integers(1, 3), min_size=1, max_size=3, unique=True).map(tuple)
    assignment = tuple(draw(replicas) for _ in range(partitions))
    cfg: dict[str, str | None] = dict(draw(configs))
    sensitive: frozenset[str] = frozenset()
    if draw(st.booleans()) and cfg:
        key = sorted(cfg)[0]
        cfg[key] = None
        sensitive = frozenset({key})
    return s.TopicState(
        name=name,
        assignment=assignment,
        internal=draw(st.booleans()) if name.startswith("__") else False,
        configs=cfg,
        defaults=draw(st.dictionaries(names(CONFIG_KEYS), names(CONFIG_VALUES), max_size=2)),
        sensitive=sensitive,
        topic_id=draw(st.one_of(st.none(), st.just("AAAAAAAAAAAAAAAAAAAAAA"))),
    )


@st.composite
def desired_topic(draw: st.DrawFn, name: str) -> d.DesiredTopic:
    partitions = draw(st.integers(1, 4))
    rf = draw(st.integers(1, 3))
    assignment = None
    if draw(st.integers(0, 4)) == 0:
        assignment = tuple(tuple((p + r) % 3 + 1 for r in range(rf)) for p in range(partitions))
    return d.DesiredTopic(name, partitions, rf, draw(configs), assignment, draw(sources_))


acl_bindings = st.builds(
    s.AclBinding,
    names(("TOPIC", "GROUP")),
    names(("LITERAL", "PREFIXED")),
    names(("orders", "team.", "*")),
    names(PRINCIPALS),
    names(("*", "10.0.0.1")),
    names(("READ", "WRITE", "DESCRIBE", "ALL")),
    names(("ALLOW", "DENY")),
)
# Named users, the default user (None) and a user's default client-id, side by side.
quota_entities = st.one_of(
    st.builds(lambda u: s.QuotaEntity.of(user=u), st.one_of(names(USERS), st.none())),
    st.builds(lambda u: s.QuotaEntity.of(user=u, client_id=None), names(USERS)),
)
quota_values = st.dictionaries(
    names(("producer_byte_rate", "consumer_byte_rate")), st.sampled_from((1024.0, 2048.0, 1e6)), min_size=1
)
patterns = st.builds(d.NamePattern, st.just("prefix"), names(("team.", "orders", "User:", "User:team", "")))


CONNECTORS = ("sink-a", "sink-b", "src-c")
CONNECTOR_CLASSES = ("FileStreamSink", "org.apache.kafka.connect.file.FileStreamSourceConnector", "Missing")
# A file secret every process of the machine reads alike (a Spark executor too): its digest is on the live side.
CONNECTOR_SECRET = d.SecretRef(file=str(Path(__file__).with_name("connector-secret.txt")))
connector_configs = st.fixed_dictionaries(
    {"connector.class": names(CONNECTOR_CLASSES), "tasks.max": names(("1", "2"))},
    optional={"file": names(("/tmp/a", "/tmp/b")), "topics": names(("orders", "payments"))},
)


@st.composite
def desired_connector(draw: st.DrawFn, name: str) -> d.DesiredConnector:
    return d.DesiredConnector(
        name=name,
        config=draw(connector_configs),
        state=draw(names(s.CONNECTOR_STATES)),
        secrets=draw(st.sampled_from(({}, {"connection.password": CONNECTOR_SECRET}))),
        reset_offsets=draw(st.booleans()),
        source=draw(sources_),
        positions=draw(st.sampled_from(({}, {"tasks.max": d.Source("connectors.yaml", 7, 5)}))),
    )


@st.composite
def live_connector(draw: st.DrawFn, name: str) -> s.ConnectorState:
    config = dict(draw(connector_configs))
    secret = draw(st.sampled_from((None, "s3cret", "old")))
    if secret is not None:
        config["connection.password"] = connect_secrets.digest(name, "connection.password", secret)
    tasks = draw(st.lists(st.builds(s.ConnectorTask, st.integers(0, 1), names(("RUNNING", "FAILED"))), max_size=2))
    return s.ConnectorState(
        name=name,
        config=config,
        state=draw(names(("RUNNING", "PAUSED", "STOPPED", "FAILED", "UNASSIGNED"))),
        tasks=tuple(tasks),
        type=draw(names((None, "sink", "source"))),
        trace=draw(names((None, "boom"))),
    )


@st.composite
def live_connect(draw: st.DrawFn) -> s.ConnectState | None:
    if draw(st.integers(0, 4)) == 0:
        return None
    plugins = draw(names((None, ("org.apache.kafka.connect.file.FileStreamSinkConnector",))))
    found = draw(st.lists(names(CONNECTORS), unique=True, max_size=3))
    return s.ConnectState("http://connect:8083", {n: draw(live_connector(n)) for n in found}, plugins)


def offline(wanted: d.DesiredState, live: s.ClusterState) -> s.ClusterState:
    """``live`` as a single-cluster offline plan from a snapshot takes it (the declared secrets digested)."""
    return connect_evidence.offline(live, wanted)


@st.composite
def cluster_pairs(draw: st.DrawFn) -> tuple[d.DesiredState, s.ClusterState]:
    """One cluster's desired state and live state, overlapping, with ownership and sections not read."""
    topic_names = draw(st.lists(names(TOPICS), unique=True, max_size=5))
    live_names = draw(st.lists(names(TOPICS), unique=True, max_size=5))
    want_topics = {n: draw(desired_topic(n)) for n in topic_names}
    live_topics = {n: draw(live_topic(n)) for n in live_names}
    want_acls = draw(st.lists(acl_bindings, unique=True, max_size=4))
    live_acls = draw(st.lists(acl_bindings, unique=True, max_size=4))
    want_quotas = draw(st.dictionaries(quota_entities, quota_values, max_size=2))
    live_quotas = draw(st.dictionaries(quota_entities, quota_values, max_size=2))
    want_users = draw(st.lists(names(USERS), unique=True, max_size=2))
    live_users = draw(
        st.dictionaries(
            names(USERS),
            st.lists(
                st.builds(s.ScramCredential, names(s.SCRAM_MECHANISMS), names((4096, 8192))),
                max_size=2,
                unique_by=lambda c: c.mechanism,
            ).map(tuple),
            max_size=2,
        )
    )
    broker_keys = names((s.CLUSTER_DEFAULT, "1"))
    want_brokers = draw(
        st.dictionaries(
            broker_keys,
            st.dictionaries(names(("log.cleaner.threads", "message.max.bytes")), names(("1", "2"))),
            max_size=2,
        )
    )
    live_brokers = draw(
        st.dictionaries(
            broker_keys,
            st.dictionaries(names(("log.cleaner.threads", "message.max.bytes")), names(("1", "2", None))),
            max_size=2,
        )
    )
    ownership = d.Ownership(
        topics=tuple(draw(st.lists(patterns, max_size=2))),
        principals=tuple(draw(st.lists(patterns, max_size=2))),
        delete={k: True for k in draw(st.lists(names(KINDS), unique=True))},
        managed_kinds=frozenset(draw(st.lists(names(KINDS), unique=True, min_size=3))),
        connectors=tuple(draw(st.lists(st.builds(d.NamePattern, st.just("prefix"), names(("sink-", ""))), max_size=1))),
        max_deletes=draw(st.one_of(st.none(), st.integers(0, 3))),
    )
    wanted = d.DesiredState(
        topics=want_topics,
        acls={b: draw(sources_) for b in want_acls},
        quotas={e: d.DesiredQuota(e, v, draw(sources_)) for e, v in want_quotas.items()},
        scram_users={
            u: d.DesiredScramUser(
                u,
                draw(names(s.SCRAM_MECHANISMS)),
                draw(names((4096, 8192))),
                d.SecretRef(env=f"{u.upper().replace('-', '_')}_PASSWORD"),
                draw(st.one_of(st.none(), st.just("2024-01"))),
                draw(sources_),
            )
            for u in want_users
        },
        broker_configs={b: d.DesiredBrokerConfig(b, c, draw(sources_)) for b, c in want_brokers.items()},
        ownership=ownership,
        connectors={n: draw(desired_connector(n)) for n in draw(st.lists(names(CONNECTORS), unique=True, max_size=3))},
    )
    unread = draw(st.sets(names(("acls", "quotas", "scram_users", "topics"))))
    live = s.ClusterState(
        cluster_id=draw(st.one_of(st.none(), st.just("c-1"))),
        controller_id=1,
        brokers=draw(brokers()),
        topics=None if "topics" in unread else live_topics,
        broker_configs=live_brokers,
        broker_config_sensitive=frozenset(draw(st.sets(names(("message.max.bytes",))))),
        cluster_configs=draw(
            st.dictionaries(names(("min.insync.replicas", "auto.create.topics.enable")), names(("1", "2", "true")))
        ),
        acls=None if "acls" in unread else frozenset(live_acls),
        quotas=None if "quotas" in unread else live_quotas,
        scram_users=None if "scram_users" in unread else live_users,
        reassignments=tuple(
            s.Reassignment(t, 0, (1, 2), (2,), ()) for t in draw(st.lists(names(TOPICS), unique=True, max_size=1))
        ),
        # A cluster with every admin API the tool uses (one lacking some blocks those kinds: test_planner_unsupported).
        capabilities=dict.fromkeys(API_SINCE, 0) | {"CreateTopics": 7},
        unavailable={"acl": "no authorizer"} if "acls" in unread else {},
        connect=draw(live_connect()),
    )
    return wanted, live


fleets = st.lists(cluster_pairs(), min_size=1, max_size=3)


def write_snapshot(live: s.ClusterState, path: Path) -> Path:
    """JSON for ``.json`` paths, the Parquet row model for ``.parquet``."""
    if path.suffix == ".parquet":
        sources.write_parquet_snapshot(live, path)
    else:
        files.write_snapshot(live, path)
    return path


def fleet_inputs(
    pairs: list[tuple[d.DesiredState, s.ClusterState]], directory: Path
) -> tuple[list[sources.ClusterTask], dict[str, sources.DesiredSet], dict[str, str]]:
    """Tasks reading snapshot files (JSON and Parquet in turn), and the single-cluster plan of each."""
    tasks, desired_sets, expected = [], {}, {}
    for i, (wanted, live) in enumerate(pairs):
        name = f"cluster-{i}"
        path = write_snapshot(live, directory / f"{name}.{'parquet' if i % 2 else 'json'}")
        key = f"manifests-{i}"
        desired_sets[key] = sources.DesiredSet(key, wanted, {})
        tasks.append(sources.ClusterTask(name=name, desired_key=key, snapshot=str(path)))
        expected[name] = planner.plan(
            wanted, offline(wanted, files.read_snapshot(path) if path.suffix == ".json" else live)
        ).to_json()
    return tasks, desired_sets, expected


@pytest.fixture
def fleet_dir(tmp_path: Path) -> Path:
    """A fleet of three clusters on the example manifests: eu-1 (JSON snapshot), us-1 (Parquet), ap-1 (missing)."""
    shutil.copytree(EXAMPLES, tmp_path / "manifests")
    eu = live_from(tmp_path / "manifests", drop="orders.shipped", extra_topic="orders.legacy", retention="1000")
    us = live_from(tmp_path / "manifests", drop="payments.settled", extra_topic="payments.old", retention="2000")
    files.write_snapshot(eu, tmp_path / "eu.json")
    sources.write_parquet_snapshot(us, tmp_path / "us.parquet")
    (tmp_path / "fleet.yaml").write_text(
        "defaults:\n"
        "  manifests: manifests\n"
        "clusters:\n"
        "  - name: eu-1\n"
        "    snapshot: eu.json\n"
        "  - name: us-1\n"
        "    snapshot: us.parquet\n"
        "  - name: ap-1\n"
        "    snapshot: ap.json\n"
    )
    return tmp_path
