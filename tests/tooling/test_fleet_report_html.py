"""``report.html`` rendered by headless Chromium: what a reader sees, read back from the browser's DOM.

Two fleet runs into one folder (snapshots, no Kafka): eu-1 and us-1 drift, calm-1 has nothing to change,
ap-1's snapshot is missing. Between the runs eu-1 gets one topic back and loses another, so the trend
shows one drift resolved and one new, and only eu-1's group is open; an apply of the run then puts its results
beside the plans. The same at 500 clusters labelled by environment, team and region, where the trend and what
changed come first: in a 1280x900 window the whole trend chart is on the first screen (laid out by Chromium).
Chromium (Debian's ``chromium`` package) loads the file with networking disabled, dumps its DOM and takes a
screenshot into the test's output folder.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import time
from html.parser import HTMLParser
from pathlib import Path

import pytest

from reconciler.fleet import load_fleet, run_fleet_plan, sources, summary
from reconciler.fleet.applying import run_fleet_apply
from reconciler.model import state as s
from tests.support.fleet import EXAMPLES, live_from, write_snapshot

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="Debian's chromium is not installed (apt-get install -y chromium)"
)


class Dom(HTMLParser):
    """Every element as (tag, attributes, text directly inside it), in document order."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.elements: list[tuple[str, dict[str, str], list[str]]] = []
        self._open: list[int] = []
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append((tag, {k: v or "" for k, v in attrs}, []))
        if tag not in ("meta", "br", "img", "input", "link", "polyline"):
            self._open.append(len(self.elements) - 1)

    def handle_endtag(self, tag: str) -> None:
        while self._open:
            if self.elements[self._open.pop()][0] == tag:
                break

    def handle_data(self, data: str) -> None:
        for index in self._open:
            self.elements[index][2].append(data)

    def find(self, tag: str, **attrs: str) -> list[tuple[str, dict[str, str], list[str]]]:
        return [
            e
            for e in self.elements
            if e[0] == tag and all(e[1].get(k.replace("_", "-")) == v for k, v in attrs.items())
        ]

    def with_class(self, tag: str, cls: str) -> list[tuple[str, dict[str, str], list[str]]]:
        return [e for e in self.elements if e[0] == tag and cls in e[1].get("class", "").split()]


def chromium(*args: str) -> subprocess.CompletedProcess[str]:
    assert CHROMIUM is not None
    base = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions"]
    # every host name resolves to nothing: the report must not need the network
    base.append("--host-resolver-rules=MAP * ~NOTFOUND")
    return subprocess.run([*base, *args], capture_output=True, text=True, timeout=180, check=True)


def fleet_folder(root: Path) -> Path:
    shutil.copytree(EXAMPLES, root / "manifests")
    (root / "calm").mkdir()
    (root / "calm" / "topic.yaml").write_text(CALM_TOPIC)
    write_snapshot(calm_state(), root / "calm.json")
    write_snapshot(
        live_from(root / "manifests", drop="orders.shipped", extra_topic="x.old", retention="1"), root / "eu.json"
    )
    us = live_from(root / "manifests", drop="payments.settled", extra_topic="payments.old", retention="2000")
    sources.write_parquet_snapshot(us, root / "us.parquet")
    (root / "fleet.yaml").write_text(
        "defaults: {manifests: manifests, labels: {environment: prod}}\nclusters:\n"
        "  - {name: calm-1, manifests: calm, snapshot: calm.json, labels: {team: core, region: eu}}\n"
        "  - {name: eu-1, snapshot: eu.json, labels: {team: orders, region: eu}}\n"
        "  - {name: us-1, snapshot: us.parquet, labels: {team: orders, region: us}}\n"
        "  - {name: ap-1, snapshot: ap.json, labels: {team: core, region: ap}}\n"
    )
    return root / "fleet.yaml"


CALM_TOPIC = (
    "apiVersion: kafka-reconciler/v1\nkind: Topic\nmetadata: {name: calm.events}\n"
    "spec: {partitions: 3, replicationFactor: 1}\n"
)


def calm_state(*, topics: int = 1, partitions: int = 3) -> s.ClusterState:
    """A one-broker cluster holding calm.events (``partitions``; 0: missing) and ``topics - 1`` undeclared topics."""
    held = {"calm.events": s.TopicState(name="calm.events", assignment=((1,),) * partitions)} if partitions else {}
    held.update({f"calm.extra{i}": s.TopicState(name=f"calm.extra{i}", assignment=((1,),)) for i in range(1, topics)})
    return s.ClusterState(cluster_id="calm", controller_id=1, brokers=(s.Broker(1, "b1", 9092, None),), topics=held)


def check_links(dom: Dom, out: Path) -> None:
    """Every link is a file of the folder next to the report: no other target, nothing fetched."""
    for _tag, attrs, _text in (e for e in dom.elements if "href" in e[1]):
        href = attrs["href"]
        assert "//" not in href and not href.startswith("/") and (out / href).is_file(), href


def test_the_html_report_in_a_browser(tmp_path: Path) -> None:
    fleet_file = fleet_folder(tmp_path)
    out = tmp_path / "out"
    fleet = load_fleet(fleet_file, env={})
    run_fleet_plan(fleet, out_dir=out, env={})
    eu = live_from(tmp_path / "manifests", drop="payments.settled", extra_topic="x.old", retention="1")
    write_snapshot(eu, tmp_path / "eu.json")  # orders.shipped is back, payments.settled is gone
    result = run_fleet_plan(fleet, out_dir=out, env={})
    before_apply = Dom(chromium("--dump-dom", (out / "report.html").as_uri()).stdout)
    assert [e[1].get("data-apply") for e in before_apply.with_class("td", "apply")] == [None] * 4
    opened = {g[1]["data-group"]: "open" in g[1] for g in before_apply.with_class("details", "group")}
    assert opened == {  # open: something new since the previous run
        "environment=prod · team=core · region=ap": False,  # ap-1 was not planned, as in the previous run
        "environment=prod · team=core · region=eu": False,  # calm-1: nothing to see
        "environment=prod · team=orders · region=eu": True,  # eu-1: payments.settled is new drift
        "environment=prod · team=orders · region=us": False,  # us-1: the same drift as in the previous run
    }
    applied = run_fleet_apply(fleet, out_dir=out)  # snapshot clusters: nothing to connect to, each "not-applied"
    source = (out / "report.html").read_text()
    assert "<script" not in source and "<link" not in source and " src=" not in source

    dom = Dom(chromium("--dump-dom", (out / "report.html").as_uri()).stdout)
    check_links(dom, out)
    assert dom.find("p", id="status")[0][1]["class"] == "partial"

    groups = {g[1]["data-group"]: g for g in dom.with_class("details", "group")}
    assert sorted(groups) == [
        "environment=prod · team=core · region=ap",
        "environment=prod · team=core · region=eu",
        "environment=prod · team=orders · region=eu",
        "environment=prod · team=orders · region=us",
    ]
    assert all("open" in g[1] for g in groups.values())  # each has a cluster not applied as planned
    rows = dom.with_class("tr", "cluster")
    assert sorted(r[1]["data-cluster"] for r in rows) == ["ap-1", "calm-1", "eu-1", "us-1"]
    links = {e[1]["href"] for e in dom.with_class("a", "plan")}
    assert links == {"calm-1/plan.json", "eu-1/plan.json", "us-1/plan.json"}  # ap-1 has no plan
    by_name = {c["name"]: c for c in result.summary["clusters"]}
    for row in rows:  # the drift shown is the summary's: changes wanted, -1 for a cluster not planned
        assert int(row[1]["data-drift"]) == summary.drift_score(by_name[row[1]["data-cluster"]])[0]
    apply_cells = {r[1]["data-cluster"]: r for r in rows}
    assert {c.name: c.status for c in applied.clusters} == dict.fromkeys(
        ("calm-1", "eu-1", "us-1", "ap-1"), "not-applied"
    )
    assert [e[1]["data-apply"] for e in dom.with_class("td", "apply")] == ["not-applied"] * 4
    assert "Apply results" in "".join(dom.find("p", id="applied")[0][2]) and apply_cells

    not_planned = dom.with_class("li", "unreadable")
    assert [e[1]["data-cluster"] for e in not_planned] == ["ap-1"]
    assert "cannot read snapshot" in "".join(not_planned[0][2])

    kinds = {e[1]["data-kind"]: int(e[1]["data-changes"]) for e in dom.with_class("tr", "kind")}
    by_kind = result.summary["by_kind"]
    assert kinds == {k: sum(v[a] for a in ("create", "update", "delete", "blocked")) for k, v in by_kind.items()}

    runs = dom.with_class("rect", "run")
    assert len(runs) == 2 and runs[-1][1]["data-run"] == result.summary["run"]["id"]
    assert [r[1]["data-status"] for r in runs] == ["partial", "partial"] and len(dom.with_class("text", "partial")) == 2
    assert runs[-1][1]["data-clusters-with-changes"] == str(result.summary["clusters_with_changes"])
    left = [int("".join(t[2])) for t in dom.with_class("text", "tick") if "left" in t[1]["class"]]
    assert left[0] == 0 and left[-1] >= result.summary["clusters_with_changes"] and left == sorted(left)
    assert [t for t in dom.with_class("text", "tick") if "right" in t[1]["class"]]
    new, resolved = dom.find("div", id="new-drift")[0], dom.find("div", id="resolved-drift")[0]
    assert new[1]["data-count"] == "1" and "eu-1: topic/payments.settled" in "".join(new[2])
    assert resolved[1]["data-count"] == "1" and "eu-1: topic/orders.shipped" in "".join(resolved[2])
    left_out = dom.find("p", id="left-out")[0]
    assert left_out[1]["data-count"] == "1" and "ap-1" in "".join(left_out[2])

    shot = tmp_path / "report.png"
    chromium("--window-size=1280,2400", f"--screenshot={shot}", (out / "report.html").as_uri())
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 20_000


TEAMS = ("payments", "orders", "search", "ads", "core")
REGIONS = ("eu-west-1", "us-east-1", "ap-south-1", "eu-central-1", "us-west-2")


def big_fleet(root: Path, clusters: int) -> Path:
    """``clusters`` clusters over two environments, five teams and five regions; every 7th drifts (its topic
    missing, two undeclared), every 11th has partitions to add, every 50th has no snapshot."""
    (root / "calm").mkdir(parents=True)
    (root / "calm" / "topic.yaml").write_text(CALM_TOPIC)
    write_snapshot(calm_state(), root / "calm.json")
    write_snapshot(calm_state(topics=3, partitions=0), root / "extra.json")
    write_snapshot(calm_state(partitions=1), root / "small.json")
    lines = ["defaults: {manifests: calm}", "clusters:"]
    for i in range(clusters):
        snapshot = (
            "none.json"
            if i % 50 == 49
            else "extra.json"
            if i % 7 == 0
            else "small.json"
            if i % 11 == 0
            else "calm.json"
        )
        labels = (
            f"{{environment: {'prod' if i % 2 else 'staging'}, team: {TEAMS[i % 5]}, region: {REGIONS[i // 5 % 5]}}}"
        )
        lines.append(f"  - {{name: c{i:03d}, snapshot: {snapshot}, labels: {labels}}}")
    (root / "fleet.yaml").write_text("\n".join(lines) + "\n")
    return root / "fleet.yaml"


def first_screen(report: Path, *, width: int = 1280, height: int = 900) -> dict[str, float]:
    """Where the report's trend chart and its "since the last successful run" line are, in a ``width`` x ``height``
    browser window, as Chromium lays the page out: measured by a page of the test's that frames the report (the
    report itself runs no script)."""
    probe = report.parent / "first-screen.html"
    probe.write_text(
        "<!DOCTYPE html><html><head><style>body{margin:0}iframe{border:0;width:100vw;height:100vh}</style></head>"
        f'<body><iframe id="report" src="{report.name}"></iframe><script>'
        'document.getElementById("report").addEventListener("load", () => {'
        ' const page = document.getElementById("report").contentDocument;'
        ' const chart = page.getElementById("trend-chart").getBoundingClientRect();'
        ' const since = page.getElementById("compared-with").getBoundingClientRect();'
        " document.body.dataset.found = JSON.stringify({chart_bottom: chart.bottom, since_top: since.top,"
        " screen: innerHeight});"
        "});</script></body></html>"
    )
    dom = Dom(
        chromium(
            "--allow-file-access-from-files",  # the probe reads the framed report's layout
            "--virtual-time-budget=10000",
            f"--window-size={width},{height}",
            "--dump-dom",
            probe.as_uri(),
        ).stdout
    )
    probe.unlink()
    found: dict[str, float] = json.loads(dom.find("body")[0][1]["data-found"])
    return found


def test_the_html_report_of_500_clusters_in_a_browser(tmp_path: Path) -> None:
    fleet_file = big_fleet(tmp_path, 500)
    out = tmp_path / "out"
    fleet = load_fleet(fleet_file, env={})
    run_fleet_plan(fleet, out_dir=out, env={})
    write_snapshot(calm_state(), tmp_path / "small.json")  # the partitions were added since
    text = fleet_file.read_text()  # and c001 drifts now: the one thing new
    fleet_file.write_text(text.replace("{name: c001, snapshot: calm.json,", "{name: c001, snapshot: extra.json,"))
    fleet = load_fleet(fleet_file, env={})
    started = time.monotonic()
    result = run_fleet_plan(fleet, out_dir=out, env={})
    size = (out / "report.html").stat().st_size
    print(f"\n500 clusters: run {time.monotonic() - started:.1f}s, report.html {size} bytes")

    dom = Dom(chromium("--dump-dom", (out / "report.html").as_uri()).stdout)
    check_links(dom, out)
    rows = dom.with_class("tr", "cluster")
    assert len(rows) == 500 and len({r[1]["data-cluster"] for r in rows}) == 500
    groups = dom.with_class("details", "group")
    combos = {
        (c["labels"]["environment"], c["labels"]["team"], c["labels"]["region"]) for c in result.summary["clusters"]
    }
    assert len(groups) == len(combos)
    assert sum(int(g[1]["data-clusters"]) for g in groups) == 500
    labels = {c["name"]: c["labels"] for c in result.summary["clusters"]}
    for group in groups:  # every cluster of a group carries the group's labels
        wanted = dict(part.split("=", 1) for part in group[1]["data-group"].split(" · "))
        start = dom.elements.index(group)
        members = [e for e in dom.elements[start:] if e[0] == "tr" and "cluster" in e[1].get("class", "")]
        for member in members[: int(group[1]["data-clusters"])]:
            assert labels[member[1]["data-cluster"]] == wanted
    planned = [c for c in result.summary["clusters"] if c["status"] == "planned"]
    assert len(dom.with_class("a", "plan")) == len(planned) == 490
    changed = sum(1 for c in planned if any(c["counts"][a] for a in ("create", "update", "delete")))
    assert sum(int(g[1]["data-with-changes"]) for g in groups) == changed > 0
    resolved = dom.find("div", id="resolved-drift")[0]
    assert resolved[1]["data-count"] != "0"  # the partitions added on the "small" clusters
    assert dom.find("p", id="left-out")[0][1]["data-count"] == "10"
    assert dom.find("div", id="new-drift")[0][1]["data-count"] == "1"  # c001 lost calm.events

    # what changed first: the whole trend chart and the start of what changed in view when the report opens
    seen = first_screen(out / "report.html")
    assert seen["screen"] > 700 and seen["chart_bottom"] <= seen["screen"], seen
    assert seen["since_top"] < seen["screen"], seen
    order = [e[1].get("id") for e in dom.elements if e[0] == "section"]
    assert order.index("trend") < order.index("clusters"), order
    # only the group holding something new is open
    opened = [g[1]["data-group"] for g in groups if "open" in g[1]]
    c001 = labels["c001"]
    assert opened == [f"environment={c001['environment']} · team={c001['team']} · region={c001['region']}"]
    assert len(groups) >= 45 and sum(int(g[1]["data-with-changes"]) > 0 for g in groups) > 40  # folded, not gone

    shot = tmp_path / "report-500.png"
    chromium("--window-size=1280,4000", f"--screenshot={shot}", (out / "report.html").as_uri())
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 20_000
