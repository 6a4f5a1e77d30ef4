"""Read models folded from the log: replays, the timeline, the replay bundle."""
