"""Defaults that several stages share, defined once: the commands show them in their help, the planner and the
operations use them. Standard library only, so every command line may import it.
"""

from __future__ import annotations

IN_USE_WINDOW_DAYS = 7
IN_USE_WINDOW = f"{IN_USE_WINDOW_DAYS}d"  # as --in-use-window takes it
IN_USE_WINDOW_MS = IN_USE_WINDOW_DAYS * 24 * 3600 * 1000  # a record newer than this makes a topic in use
MAX_DELETES = 10  # most resources one plan may delete unless the Ownership document or --max-deletes says otherwise
# The group whose membership is the cluster's apply lock (``reconciler.kafka.lock``); the principal needs READ on it.
APPLY_LOCK_GROUP = "kafka-reconciler.apply-lock"
