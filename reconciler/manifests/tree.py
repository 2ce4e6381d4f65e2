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
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path

from reconciler.manifests.loader import OVERLAYS_DIR


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
            siblings = sorted(_shown(p, base) for p in root.iterdir() if p.suffix in (".yaml", ".yml") and p.is_file())
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
