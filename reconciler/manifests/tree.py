"""Which manifest trees a list of changed files belongs to: ``validate --tree`` for pre-commit hooks.

pre-commit passes only the files a commit touches, but a manifest is valid only together with the rest of
its tree (shared ``TopicDefaults``, roles, ownership, the other topics' ACLs). With ``--tree`` each file stands
for its whole tree, which is loaded and validated as ``validate DIR`` would:

- the tree of a file is the ``--root`` directory that contains it, if one was given;
- otherwise the top-level directory holding it, relative to the current directory (where pre-commit runs:
  the repository root), so ``kafka/team-a/topics.yaml`` belongs to ``kafka/``;
- a file directly in the current directory belongs to the YAML files beside it (not to subdirectories).

A file under ``<tree>/overlays/<env>/`` also has that tree validated with ``--environment <env>``, since
overlays are only loaded for their environment.

A changed YAML file that is not a kafka-reconciler manifest (``is_manifest``: a workflow, ``.pre-commit-config.yaml``,
a Kubernetes resource) is skipped, so the hook may run on every YAML file of a repository; so are such files beside
a changed top-level manifest.
"""

from __future__ import annotations

import dataclasses
import difflib
import re
from collections.abc import Sequence
from pathlib import Path

from reconciler.manifests import models
from reconciler.manifests.loader import OVERLAYS_DIR

_API = re.compile(rb"\bapiVersion['\"]?\s*:\s*['\"]?([A-Za-z0-9._-]*)")
_OUR_KIND = re.compile(
    rb"\bkind['\"]?\s*:\s*['\"]?(?:" + "|".join(models.DOCUMENTS).encode() + rb")['\"]?\s*(?:$|[,}#])", re.M
)
_SNIFF_BYTES = 1 << 20


def is_manifest(path: Path) -> bool:
    """Whether a YAML file is a kafka-reconciler manifest: a document says ``apiVersion: kafka-reconciler/...`` (or a
    near miss of it, such as ``kafka-reconcilr/v1``), or names none and has one of the tool's kinds (a manifest
    with a mistyped or missing apiVersion is validated, and told so).
    Workflow files, ``.pre-commit-config.yaml``, Kubernetes and Strimzi resources are not. An unreadable file
    counts as one, so that validating it reports why."""
    try:
        with path.open("rb") as f:
            head = f.read(_SNIFF_BYTES)
    except OSError:
        return True
    groups = [m.group(1).decode("ascii", "replace").lower() for m in _API.finditer(head)]
    if not groups:
        return _OUR_KIND.search(head) is not None
    # ours, or a near miss of ours (kafka-reconcilr/v1): validated, so the typo is reported
    return any(difflib.SequenceMatcher(None, g, "kafka-reconciler").ratio() >= 0.85 for g in groups)


def manifest_files(files: Sequence[Path]) -> tuple[list[Path], list[Path]]:
    """``files`` split into manifests (and directories) and the YAML files that are not manifests."""
    kept: list[Path] = []
    skipped: list[Path] = []
    for path in files:
        (kept if path.is_dir() or is_manifest(path) else skipped).append(path)
    return kept, skipped


@dataclasses.dataclass(frozen=True, slots=True)
class Tree:
    """What to load (directories or files) and the environments whose overlays the changed files touch."""

    label: str
    paths: tuple[Path, ...]
    environments: tuple[str, ...]


def _overlay_environment(relative: Path) -> str | None:
    parts = relative.parts[:-1]
    for index, part in enumerate(parts[:-1]):
        if part == OVERLAYS_DIR:
            return parts[index + 1]
    return None


def _inside(path: Path, root: Path) -> bool:
    try:
        path.relative_to(root)
    except ValueError:
        return False
    return True


def trees(files: Sequence[Path], *, roots: Sequence[Path] = (), cwd: Path | None = None) -> list[Tree]:
    """The trees ``files`` belong to, in the order first named; a directory given as a file is its own tree."""
    base = (cwd or Path.cwd()).resolve()
    chosen = [r.resolve() for r in roots]
    found: dict[Path, tuple[str, list[Path], set[str]]] = {}
    for given in files:
        path = given.resolve()
        root = next((r for r in sorted(chosen, key=lambda r: -len(r.parts)) if _inside(path, r)), None)
        if root is None and given.is_dir():
            root = path
        if root is None and _inside(path, base) and len(path.relative_to(base).parts) > 1:
            root = base / path.relative_to(base).parts[0]
        if root is None:  # a file at the top level, or outside the current directory: its siblings
            root = path.parent
            siblings = sorted(
                _shown(p, base)
                for p in root.iterdir()
                if p.suffix in (".yaml", ".yml") and p.is_file() and is_manifest(p)
            )
            label = _label(root, base) + " (top-level files)"
            found.setdefault(root, (label, siblings, set()))
            continue
        entry = found.setdefault(root, (_label(root, base), [_shown(root, base)], set()))
        env = _overlay_environment(path.relative_to(root)) if path != root else None
        if env is not None:
            entry[2].add(env)
    return [Tree(label, tuple(paths), tuple(sorted(envs))) for label, paths, envs in found.values()]


def _shown(path: Path, base: Path) -> Path:
    """Relative to the current directory when inside it, so diagnostics name ``kafka/topics.yaml:6:3``."""
    return path.relative_to(base) if _inside(path, base) and path != base else path


def _label(root: Path, base: Path) -> str:
    if root == base:
        return "."
    return root.relative_to(base).as_posix() + "/" if _inside(root, base) else str(root)
