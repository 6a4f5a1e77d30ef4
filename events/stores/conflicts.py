"""Why an append was refused: another writer came first, or the command is in the log already."""

from tabletrail.events.errors import ConflictError


class VersionConflict(ConflictError):
    """Another writer appended first: names the version this writer expected and the one it found."""

    def __init__(self, where: str, expected: int, actual: int) -> None:
        self.expected = expected
        self.actual = actual
        super().__init__(
            f"{where}: version conflict: this writer expected the encounter at version {expected}, "
            f"but it is at version {actual} (another writer appended first); nothing was appended: "
            "reload the encounter and retry"
        )


class DuplicateCommand(ConflictError):
    """A batch with this command id is already in the log: the retry must return it, not append."""

    def __init__(self, where: str, command_id: str) -> None:
        self.command_id = command_id
        super().__init__(f"{where}: command id {command_id!r} is already in the log; nothing was appended")
