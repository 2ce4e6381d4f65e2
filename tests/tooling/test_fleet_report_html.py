"""``report.html`` rendered by headless Chromium: what a reader sees, read back from the browser's DOM.

Two fleet runs into one folder (snapshots, no Kafka): eu-1 and us-1 drift, calm-1 has nothing to change,
ap-1's snapshot is missing. Between the runs eu-1 gets one topic back and loses another, so the trend
shows one drift resolved and one new. Chromium (Debian's ``chromium`` package) loads the file with
networking disabled, dumps its DOM and takes a screenshot into the test's output folder.
"""

from __future__ import annotations

import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

from reconciler.fleet import load_fleet, run_fleet_plan, sources
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
    (root / "calm" / "topic.yaml").write_text(
        "apiVersion: kafka-reconciler/v1\nkind: Topic\nmetadata: {name: calm.events}\n"
        "spec: {partitions: 3, replicationFactor: 1}\n"
    )
    calm = s.ClusterState(
        cluster_id="calm",
        controller_id=1,
        brokers=(s.Broker(1, "b1", 9092, None),),
        topics={"calm.events": s.TopicState(name="calm.events", assignment=((1,), (1,), (1,)))},
    )
    write_snapshot(calm, root / "calm.json")
    write_snapshot(
        live_from(root / "manifests", drop="orders.shipped", extra_topic="x.old", retention="1"), root / "eu.json"
    )
    us = live_from(root / "manifests", drop="payments.settled", extra_topic="payments.old", retention="2000")
    sources.write_parquet_snapshot(us, root / "us.parquet")
    (root / "fleet.yaml").write_text(
        "defaults: {manifests: manifests}\nclusters:\n"
        "  - {name: calm-1, manifests: calm, snapshot: calm.json}\n"
        "  - {name: eu-1, snapshot: eu.json}\n"
        "  - {name: us-1, snapshot: us.parquet}\n"
        "  - {name: ap-1, snapshot: ap.json}\n"
    )
    return root / "fleet.yaml"


def test_the_html_report_in_a_browser(tmp_path: Path) -> None:
    fleet_file = fleet_folder(tmp_path)
    out = tmp_path / "out"
    run_fleet_plan(load_fleet(fleet_file, env={}), out_dir=out, env={})
    eu = live_from(tmp_path / "manifests", drop="payments.settled", extra_topic="x.old", retention="1")
    write_snapshot(eu, tmp_path / "eu.json")  # orders.shipped is back, payments.settled is gone
    result = run_fleet_plan(load_fleet(fleet_file, env={}), out_dir=out, env={})
    source = (out / "report.html").read_text()
    assert "<script" not in source and "<link" not in source and " src=" not in source and " href=" not in source

    dumped = chromium("--dump-dom", (out / "report.html").as_uri()).stdout
    dom = Dom(dumped)
    assert dom.find("p", id="status")[0][1]["class"] == "partial"

    rows = dom.with_class("tr", "cluster")
    drifted = [r for r in rows if r[1]["data-drift"] != "0"]
    scores = [int(r[1]["data-drift"]) for r in drifted]
    assert scores == sorted(scores, reverse=True) and len(drifted) == 2
    expected = sorted(
        (c for c in result.summary["clusters"] if c.get("counts") and c["name"] != "calm-1"),
        key=lambda c: (-sum(c["counts"][a] for a in ("create", "update", "delete", "blocked")), c["name"]),
    )
    assert [r[1]["data-cluster"] for r in drifted] == [c["name"] for c in expected]
    unchanged = dom.find("details", id="unchanged")
    assert unchanged and "open" not in unchanged[0][1]  # folded
    assert "1 cluster(s) without changes" in "".join(unchanged[0][2]) and "calm-1" in "".join(unchanged[0][2])

    not_planned = dom.with_class("li", "unreadable")
    assert [e[1]["data-cluster"] for e in not_planned] == ["ap-1"]
    assert "cannot read snapshot" in "".join(not_planned[0][2])

    kinds = {e[1]["data-kind"]: int(e[1]["data-changes"]) for e in dom.with_class("tr", "kind")}
    by_kind = result.summary["by_kind"]
    assert kinds == {k: sum(v[a] for a in ("create", "update", "delete", "blocked")) for k, v in by_kind.items()}

    runs = dom.with_class("rect", "run")
    assert len(runs) == 2 and runs[-1][1]["data-run"] == result.summary["run"]["id"]
    assert runs[-1][1]["data-clusters-with-changes"] == str(result.summary["clusters_with_changes"])
    new, resolved = dom.find("div", id="new-drift")[0], dom.find("div", id="resolved-drift")[0]
    assert new[1]["data-count"] == "1" and "eu-1: topic/payments.settled" in "".join(new[2])
    assert resolved[1]["data-count"] == "1" and "eu-1: topic/orders.shipped" in "".join(resolved[2])

    shot = tmp_path / "report.png"
    chromium("--window-size=1280,2400", f"--screenshot={shot}", (out / "report.html").as_uri())
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 20_000
