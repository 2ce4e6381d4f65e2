"""The commands of ``kafka-reconciler``, one module each (or one per small group), registered by ``reconciler.cli``.

Each command parses its options, calls a library function (``reconciler.operations``, the
renderers) and prints what it returns. A command module imports only typer and this package at start-up;
what a command needs is imported when it runs, so ``--help``, ``--version`` and ``validate`` start fast
(docs/benchmarks.md). ``options`` holds the shared options, ``output`` printing and the errors-to-exit-code rule.
"""
