"""Expected renders of the example plan, and the example itself."""
