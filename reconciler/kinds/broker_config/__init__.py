"""The broker config kind: dynamic configs of one broker or of every broker (``<default>``)."""
