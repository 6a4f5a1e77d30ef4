"""The event vocabulary, as a ruleset records its facts: `from tabletrail.ruleset_api import events as ev`.

A ruleset adds no event type: these are the facts every log is made of (events/types.py says what
each holds); `b.emit(ev.Marked(fighter=f.id, key="held", value=..., rules=(self.rule("hold"),)))`.
"""

from tabletrail.events.types import (
    Abandoned as Abandoned,
)
from tabletrail.events.types import (
    BoardMarked as BoardMarked,
)
from tabletrail.events.types import (
    CheckRolled as CheckRolled,
)
from tabletrail.events.types import (
    CommandIssued as CommandIssued,
)
from tabletrail.events.types import (
    Damaged as Damaged,
)
from tabletrail.events.types import (
    DoorChanged as DoorChanged,
)
from tabletrail.events.types import (
    EncounterStarted as EncounterStarted,
)
from tabletrail.events.types import (
    Event as Event,
)
from tabletrail.events.types import (
    FighterJoined as FighterJoined,
)
from tabletrail.events.types import (
    FighterLeft as FighterLeft,
)
from tabletrail.events.types import (
    Linked as Linked,
)
from tabletrail.events.types import (
    Marked as Marked,
)
from tabletrail.events.types import (
    Moved as Moved,
)
from tabletrail.events.types import (
    OrderChanged as OrderChanged,
)
from tabletrail.events.types import (
    PassStarted as PassStarted,
)
from tabletrail.events.types import (
    Placed as Placed,
)
from tabletrail.events.types import (
    Redone as Redone,
)
from tabletrail.events.types import (
    Refreshed as Refreshed,
)
from tabletrail.events.types import (
    RoundStarted as RoundStarted,
)
from tabletrail.events.types import (
    RulingMade as RulingMade,
)
from tabletrail.events.types import (
    SettingChanged as SettingChanged,
)
from tabletrail.events.types import (
    Spent as Spent,
)
from tabletrail.events.types import (
    StateChanged as StateChanged,
)
from tabletrail.events.types import (
    Step as Step,
)
from tabletrail.events.types import (
    TurnEnded as TurnEnded,
)
from tabletrail.events.types import (
    TurnStarted as TurnStarted,
)
from tabletrail.events.types import (
    Undone as Undone,
)
from tabletrail.events.types import (
    Unlinked as Unlinked,
)
from tabletrail.events.types import (
    Unmarked as Unmarked,
)
