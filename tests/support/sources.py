"""The repository's source files read and parsed once per test session, for the meta-tests that check the code base
as text (tests/unit/test_references.py, tests/unit/test_code_shape.py): each file is read and ``ast.parse``d at
most once however many tests look at it."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


class Sources:
    """Text and syntax trees of the repository's files, each read on first use and kept."""

    def __init__(self, root: Path = ROOT) -> None:
        self.root = root
        self._texts: dict[Path, str] = {}
        self._trees: dict[Path, ast.Module] = {}

    def python_files(self, folder: str) -> list[Path]:
        """The ``.py`` files under ``folder`` (relative to the repository root), sorted."""
        return sorted((self.root / folder).rglob("*.py"))

    def text(self, path: Path) -> str:
        if path not in self._texts:
            self._texts[path] = path.read_text(encoding="utf-8")
        return self._texts[path]

    def tree(self, path: Path) -> ast.Module:
        if path not in self._trees:
            self._trees[path] = ast.parse(self.text(path))
        return self._trees[path]
