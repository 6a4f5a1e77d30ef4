"""Event and command types, codecs, the append-only log and its stores."""
