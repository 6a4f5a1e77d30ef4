"""The GM's home page of a PostgreSQL database: `tabletrail serve postgresql://HOST/DB`.

The same page and builder as a served folder's (app/web/home.py), over the database's encounters:
they are listed from its `encounters` table, opened through the hosted tables (app/web/hosted.py),
and a draft is a row of a table of its own (`home_drafts`), so it survives a restart and every
worker sees it. The home's link is kept hashed with the invitation links, under a name no
encounter may take. Archiving marks an encounter (`home_archived`): it leaves the list and stays
in the database, where `tabletrail export` still reaches it. A battle-map picture is not kept: a
hosted table reads no picture files.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from tabletrail.events.stores.postgres_store import PostgresStore, encounters, parse_url
from tabletrail.service.drafts import Drafts, begin_from_file, slug
from tabletrail.service.scenario_toml import toml_text
from tabletrail.web.api.home import HOME_ROUTES
from tabletrail.web.endpoints import routes_of
from tabletrail.web.home import answering_errors, summary_row
from tabletrail.web.invites import GM, SESSION, Invites, StoreKeep

if TYPE_CHECKING:
    from starlette.applications import Starlette

HOME = "tabletrail-home-page"  # the home's links are kept under this name; no encounter may take it
HOME_KEY = "the GM's home page"  # what its links' digests are bound to (the tokens' secrets are random)
TABLES = (
    "CREATE TABLE IF NOT EXISTS {s}.home_drafts (name TEXT PRIMARY KEY, doc BYTEA NOT NULL)",
    "CREATE TABLE IF NOT EXISTS {s}.home_archived "
    "(encounter TEXT PRIMARY KEY, at TIMESTAMPTZ NOT NULL DEFAULT now())",
)


class Tables(Protocol):
    """The hosted tables of the database (app/web/hosted.py's `Encounters`), by what this page asks of them:
    an encounter's table view, made at its first request. Named by shape, so this module sits under
    the hosted server that builds on it."""

    def app_for(self, name: str) -> Starlette: ...


class Rows:
    """The home's own tables in the store's schema, through the store's connection and its errors; made
    (with tabletrail's tables, in a database that has none yet) at the first request that needs them."""

    def __init__(self, url: str) -> None:
        self.store = PostgresStore(url, encounter=HOME)
        self.made = False

    def ensure(self) -> None:
        if self.made:
            return
        with self.store._conn("making the home page's tables", create=True) as conn:  # noqa: SLF001
            for statement in TABLES:
                conn.execute(self.store._q(statement))  # noqa: SLF001
        self.made = True

    def all(self, doing: str, query: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        self.ensure()
        return self.store._all(doing, query, params)  # noqa: SLF001

    def run(self, doing: str, query: str, params: tuple[Any, ...] = ()) -> None:
        self.ensure()
        with self.store._conn(doing) as conn:  # noqa: SLF001
            conn.execute(self.store._q(query), params)  # noqa: SLF001


class HomeKeep(StoreKeep):
    """The home's links, kept as an encounter's are, once the tables are there."""

    def __init__(self, rows: Rows) -> None:
        super().__init__(rows.store)
        self.rows = rows

    def load(self) -> list[Any]:
        self.rows.ensure()
        return super().load()

    def save(self, invite: Any) -> None:
        self.rows.ensure()
        super().save(invite)


class DatabaseDrafts(Drafts):
    """Drafts kept as rows of the database's `home_drafts` table."""

    keeps_pictures = False

    def __init__(self, url: str, rows: Rows) -> None:
        self.url = url
        self.rows = rows

    def names(self) -> list[str]:
        return [
            r[0] for r in self.rows.all("listing drafts", "SELECT name FROM {s}.home_drafts ORDER BY name")
        ]

    def _read(self, name: str) -> bytes | None:
        found = self.rows.all("reading a draft", "SELECT doc FROM {s}.home_drafts WHERE name = %s", (name,))
        return bytes(found[0][0]) if found else None

    def _keep(self, name: str, data: bytes) -> None:
        self.rows.run(
            "keeping a draft",
            "INSERT INTO {s}.home_drafts (name, doc) VALUES (%s, %s) "
            "ON CONFLICT (name) DO UPDATE SET doc = excluded.doc",
            (name, data),
        )

    def _drop(self, name: str) -> None:
        self.rows.run("throwing a draft away", "DELETE FROM {s}.home_drafts WHERE name = %s", (name,))

    def _keep_picture(self, name: str, data: bytes, suffix: str) -> str:
        raise AssertionError("a database's drafts keep no picture (keeps_pictures is False)")

    def _begin(self, name: str, raw: dict[str, Any]) -> str:
        """The scenario file written where `tabletrail new` reads it, then the encounter begun from it in
        the database, under a name no encounter has yet."""

        taken = {n for n, _, _ in encounters(self.url)} | {HOME}
        base = slug(str(raw["encounter"]["name"]))
        encounter, n = base, 1
        while encounter in taken:
            n += 1
            encounter = f"{base}-{n}"
        with tempfile.TemporaryDirectory() as tmp:
            scenario_path = Path(tmp) / f"{encounter}.toml"
            scenario_path.write_text(
                toml_text(raw, "Built in tabletrail's encounter builder."), encoding="utf-8"
            )
            begin_from_file(scenario_path, PostgresStore(self.url, encounter=encounter))
        return encounter


class DatabaseHome:
    """The encounters and drafts of one database, and the GM's links to its home page."""

    folder: Path | None = None  # no scenario files of its own: the shipped ones are offered

    def __init__(self, url: str, tables: Tables) -> None:
        self.url = url
        self.tables = tables
        self.shown = f"Encounters in {parse_url(url).shown}"
        self.rows = Rows(url)
        self.drafts = DatabaseDrafts(url, self.rows)
        self.invites = Invites(HomeKeep(self.rows), HOME_KEY)
        self._summaries: dict[str, tuple[int, dict[str, Any]]] = {}

    def _found(self) -> list[tuple[str, int, str]]:
        archived = {
            r[0]
            for r in self.rows.all("listing archived encounters", "SELECT encounter FROM {s}.home_archived")
        }
        return [row for row in encounters(self.url) if row[0] != HOME and row[0] not in archived]

    def names(self) -> list[str]:
        """The database's encounters, the latest started first (archived ones left out)."""
        return [name for name, _, _ in sorted(self._found(), key=lambda r: r[2], reverse=True)]

    def log(self, name: str) -> str:
        if name not in {n for n, _, _ in self._found()}:
            raise LookupError(f"no encounter {name!r} in {parse_url(self.url).shown}")
        return name

    def app_for(self, name: str) -> Starlette:
        self.log(name)
        return self.tables.app_for(name)

    def invites_of(self, name: str) -> Invites:
        return self.app_for(name).state.table.invites  # type: ignore[no-any-return]

    def summary(self, name: str) -> dict[str, Any]:
        enc = self.app_for(name).state.table.live()
        version = len(enc.records)
        kept = self._summaries.get(name)
        if kept is not None and kept[0] == version:
            return kept[1]
        row = summary_row(name, enc.state, version)
        self._summaries[name] = (version, row)
        return row

    def archive(self, name: str) -> str:
        self.log(name)
        self.rows.run(
            "archiving an encounter",
            "INSERT INTO {s}.home_archived (encounter) VALUES (%s) ON CONFLICT DO NOTHING",
            (name,),
        )
        return f"{name}, kept in the database (tabletrail export reaches it)"


def home_routes(url: str, tables: Tables, exposed: bool = False) -> list[Any]:
    """The home page's routes over a database's hosted tables (app/web/hosted.py adds them)."""

    return answering_errors(routes_of(HOME_ROUTES, DatabaseHome(url, tables), exposed))


def home_link(url: str) -> str:
    """A new link to the database's home page (its token: shown once, kept hashed)."""

    _, token = Invites(HomeKeep(Rows(url)), HOME_KEY).make(GM, label=SESSION)
    return token
