"""Renderings of a plan: terminal text, pull-request markdown, and the JSON plan file.

Renderers read a ``Plan`` and return text; they never print and never see a secret value.
"""

from __future__ import annotations

from reconciler.render.json import render_json
from reconciler.render.markdown import render_markdown
from reconciler.render.text import render_text

__all__ = ["render_json", "render_markdown", "render_text"]
