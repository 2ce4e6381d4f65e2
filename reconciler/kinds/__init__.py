"""Resource kinds, one declaration each (``reconciler.kinds.places`` names each kind's place, ``registry`` lists the
declarations; ``spec`` gives their shape)."""
