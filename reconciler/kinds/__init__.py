"""Resource kinds, one declaration each (``reconciler.kinds.registry`` lists them; ``spec`` gives their shape)."""
