"""Read models folded from events: the board, the timeline (undo/redo), the audit."""
