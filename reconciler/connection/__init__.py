"""How the tool finds a cluster: connection settings (``settings``), their precedence over flags, files,
profiles and the environment (``layers``), Java client ``.properties`` files and JAAS lines (``properties``),
and secrets read from the environment or files (``secrets``).

This package re-exports nothing: ``validate`` imports ``secrets`` alone without the rest of the connection layer.
"""
