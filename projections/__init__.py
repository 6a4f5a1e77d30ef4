"""Read models folded from events: the board, the timeline (undo/redo), the audit; and the decision
of a command on that history (decider.py), shared by the app's service and the audit."""
