"""Entry point for ``python -m reconciler``."""

from reconciler.cli import app

if __name__ == "__main__":
    app()
