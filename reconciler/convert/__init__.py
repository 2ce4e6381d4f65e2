"""``convert``: manifests from another tool's files: Strimzi ``KafkaTopic``/``KafkaUser`` or a kafka-gitops state file.

``read_inputs`` parses the input files (every YAML document; Kubernetes ``List`` objects are unpacked),
the format's converter fills a ``Bundle``, and ``convert`` writes the manifests plus ``CONVERSION.md``,
which lists what has no equivalent. The mapping tables are in docs/adopting.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.error import MarkedYAMLError, YAMLError

from reconciler.adopt import output
from reconciler.adopt.adoption_report import AdoptionReport
from reconciler.adopt.output import ManifestFile
from reconciler.base import errors, fileio
from reconciler.convert import kafka_gitops, strimzi
from reconciler.manifests import yamlio
from reconciler.manifests.depth import reader_error_position, too_deep

FORMATS = ("strimzi", "kafka-gitops")
Input = tuple[str, Any]  # (where: "file" or "file#N", document)


def _files(paths: Sequence[Path]) -> list[Path]:
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            found.extend(sorted(p for p in path.rglob("*") if p.suffix in (".yaml", ".yml") and p.is_file()))
        elif path.is_file():
            found.append(path)
        else:
            raise errors.ConfigError(f"{path}: no such file or directory")
    if not found:
        raise errors.ConfigError("no input files (give YAML files or directories holding them)")
    return found


def read_inputs(paths: Sequence[Path]) -> list[Input]:
    """Every YAML document of the input files, Kubernetes ``List`` items unpacked; clear errors for bad YAML."""
    yaml = YAML(typ="safe", pure=True)
    out: list[Input] = []
    for path in _files(paths):
        text = fileio.read_text(path, what="input file", encoding="utf-8-sig")
        deep = too_deep(text, pure=True, limit=yamlio.MAX_DEPTH)
        if deep is not None:
            raise errors.ConfigError(f"{path}:{deep[0]}:{deep[1]}: nesting deeper than {yamlio.MAX_DEPTH} levels")
        try:
            documents = [d for d in yaml.load_all(text) if d is not None]
        except MarkedYAMLError as exc:
            mark = exc.problem_mark
            where = f"{path}:{mark.line + 1}:{mark.column + 1}" if mark is not None else str(path)
            raise errors.ConfigError(f"{where}: YAML syntax error: {exc.problem or exc.context}") from None
        except YAMLError as exc:  # a reader error (a control character) carries an offset, not a mark
            at = reader_error_position(text, exc)
            where = f"{path}:{at[0]}:{at[1]}" if at is not None else str(path)
            raise errors.ConfigError(f"{where}: YAML syntax error: {str(exc).splitlines()[0]}") from None
        for index, doc in enumerate(documents, start=1):
            where = str(path) if len(documents) == 1 else f"{path}#{index}"
            if (
                isinstance(doc, dict)
                and isinstance(doc.get("items"), list)
                and str(doc.get("kind", "")).endswith("List")
            ):
                out.extend((f"{where} item {i}", item) for i, item in enumerate(doc["items"], start=1))
            else:
                out.append((where, doc))
    return out


def build_conversion(fmt: str, inputs: Sequence[Path]) -> tuple[list[ManifestFile], AdoptionReport]:
    """The manifests converted from ``inputs`` in format ``fmt`` and the report (no writes)."""
    documents = read_inputs(inputs)
    if fmt == "strimzi":
        bundle = strimzi.convert(documents)
    elif fmt == "kafka-gitops":
        bundle = kafka_gitops.convert(documents)
    else:
        raise errors.ConfigError(f"unknown input format {fmt!r}; use one of {', '.join(FORMATS)}")
    files = bundle.files()
    report = bundle.report
    report.intro = [f"Converted from {', '.join(str(p) for p in inputs)}."]
    report.next_steps = [
        "Read the notes above: each one is a difference from what the source tool did.",
        "Run `kafka-reconciler validate` on the output, then `plan` against the cluster the source tool managed.",
        "Stop the source tool from managing these resources before the first apply (two writers fight).",
        "Enable deletes in ownership.yaml one kind at a time, once plans have stayed empty.",
    ]
    return files, report


def convert(fmt: str, inputs: Sequence[Path], *, out_dir: Path, force: bool) -> AdoptionReport:
    """Convert ``inputs`` and write the manifests and CONVERSION.md into ``out_dir``."""
    files, report = build_conversion(fmt, inputs)
    existing = output.prepare_out_dir(out_dir, force=force)
    report.out_dir = out_dir
    report.files, report.leftovers = output.write_output(
        out_dir, files, extra={"CONVERSION.md": report.markdown()}, existing=existing
    )
    return report
