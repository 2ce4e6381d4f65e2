"""``share.auto.offset.reset`` values: the validate-time check answers as Kafka's own validator answers.

Each value is given to ``ShareGroupAutoOffsetResetStrategy.Validator.ensureValid`` from the broker jars of Kafka 4.4.0
(the release the integration tests run; Java's single-file source launcher, no build step) and to the catalogue's
check; both must accept or refuse it alike.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from reconciler.model import catalogue, configs
from tests.kafka.dist import resolve

pytestmark = pytest.mark.skipif(shutil.which("java") is None, reason="needs Java to run Kafka's own validator")

JUDGE = """\
import org.apache.kafka.coordinator.group.ShareGroupAutoOffsetResetStrategy;
public class Judge {
    public static void main(String[] values) {
        for (String v : values) {
            String answer = "ok";
            try { new ShareGroupAutoOffsetResetStrategy.Validator().ensureValid("share.auto.offset.reset", v); }
            catch (RuntimeException e) { answer = "refused"; }
            System.out.println(answer + "\\t" + v);
        }
    }
}
"""
VALUES = (
    "latest", "earliest", "EARLIEST", "Latest", "latest ", "sometimes", "by_duration:PT1H", "by_duration:P1DT2H30M",
    "by_duration:PT0.5S", "by_duration:PT1,5S", "by_duration:P2D", "by_duration:PT0S", "by_duration:+PT1H",
    "by_duration:pt1h", "by_duration:", "by_duration:P", "by_duration:PT", "by_duration:P1DT", "by_duration:-PT1H",
    "by_duration:1h", "by_duration:PT1H2H", "by_duration:P1W", "BY_DURATION:PT1H", "by_duration:PT1H ",
)  # fmt: skip


def test_each_value_is_judged_as_kafkas_own_validator_judges_it(tmp_path: Path) -> None:
    source = tmp_path / "Judge.java"
    source.write_text(JUDGE, encoding="utf-8")
    jars = ":".join(str(j) for j in resolve("4.4.0").jars)
    done = subprocess.run(
        ["java", "-cp", jars, str(source), *VALUES], capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr
    kafka = {value: answer for answer, value in (line.split("\t", 1) for line in done.stdout.splitlines())}
    spec = catalogue.GROUP_CONFIGS["share.auto.offset.reset"]
    ours = {value: "refused" if configs.validate_config(spec, value) else "ok" for value in VALUES}
    assert ours == kafka
