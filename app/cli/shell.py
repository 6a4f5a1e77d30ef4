"""`tabletrail shell LOG`: the encounter kept open at a prompt, for a GM typing command after command.

Built on prompt_toolkit (line editing, history, tab completion) rather than
hand-written terminal code. Each line is what `tabletrail do LOG …` would take
and appends exactly what `do` appends (the same parse, the same text, the same
Encounter.execute); `show`, `log`, `why …` and `explain N` read without writing;
`help` lists the verbs and `quit` (or Ctrl-D) leaves.
"""

from __future__ import annotations

import shlex
import sys
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, TextIO

from prompt_toolkit import PromptSession
from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document
from prompt_toolkit.history import FileHistory, InMemoryHistory
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from tabletrail.core.board.refusal import Rejection
from tabletrail.core.engine.registry import get as get_ruleset
from tabletrail.events.errors import ConflictError, InputError
from tabletrail.events.limits import MAX_COMMAND_CHARS, check_text
from tabletrail.service import stores
from tabletrail.service.encounter import Encounter
from tabletrail.service.syntax import command_words, parse, verbs_for
from tabletrail.text import render

if TYPE_CHECKING:
    from tabletrail.service.encounter import Encounter

READERS = ("show", "log", "why", "explain", "help", "quit")  # the shell's own words; they never write


class TableCompleter(Completer):
    """Tab completes the verb first, then fighter ids, `name=` options and cells of the map."""

    def __init__(self, enc: Encounter) -> None:

        self.enc = enc
        self.verbs = sorted({*verbs_for(enc.state.ruleset), *READERS})
        rows = enc.state.scenario.rows
        legend = enc.state.scenario.legend
        self.cells = [
            f"{x},{y}"
            for y, row in enumerate(rows)
            for x, ch in enumerate(row)
            if legend.get(ch) is None or legend[ch].terrain != "wall"
        ]

    def get_completions(self, document: Document, complete_event: Any) -> Iterable[Completion]:
        words = document.text_before_cursor.split()
        typing = "" if document.text_before_cursor.endswith((" ", "\t")) or not words else words[-1]
        first = len(words) == 0 or (len(words) == 1 and typing)
        if first:
            options: list[str] = self.verbs
        elif words[0] == "explain":
            options = [str(r.seq) for r in self.enc.records[-20:]]
        else:
            fighters = [f.id for f in self.enc.state.fighters]
            options = [*fighters, *(c for c in self.cells if "," in typing or typing[:1].isdigit())]
            options += ["roll=", "by=", "why="]
        for option in options:
            if option.startswith(typing):
                yield Completion(option, start_position=-len(typing))


def tab_bindings(completer: Completer) -> KeyBindings:
    """Tab completes a single match on the first press, with a space after it, as a shell does.

    prompt_toolkit's own Tab asks the completion started while typing, which runs as a
    background task: a Tab typed (or pasted) before that task ran found no completions yet,
    and a second press was needed. Here the completer is asked at once; several matches
    go to prompt_toolkit's menu as before.
    """
    keys = KeyBindings()

    @keys.add("tab")
    def _complete(event: KeyPressEvent) -> None:
        buffer = event.current_buffer
        state = buffer.complete_state
        if state is not None and state.completions:
            buffer.complete_next()  # the menu is showing: Tab walks it
            return
        document = buffer.document
        found = [
            c
            for c in completer.get_completions(document, CompleteEvent(completion_requested=True))
            if document.text_before_cursor[len(document.text_before_cursor) + c.start_position :] != c.text
        ]
        if len(found) == 1:
            word = found[0]
            buffer.apply_completion(
                word if word.text.endswith("=") else Completion(word.text + " ", word.start_position)
            )
        elif found:
            buffer.complete_state = None
            buffer.start_completion(insert_common_part=True)

    return keys


class Shell:
    """One open encounter and what the GM types at it; output goes to `out` (stdout by default)."""

    def __init__(self, path: str, out: TextIO | None = None) -> None:

        self.path = path
        self.out = out or sys.stdout
        self.enc = Encounter.open(stores.store_for(path))

    def say(self, text: str) -> None:
        print(text, file=self.out)

    def line(self, text: str) -> bool:
        """Run one line; False once the GM asked to leave. Errors are printed, never raised."""
        try:  # the length first: splitting a megabyte of words takes seconds (MAX_COMMAND_CHARS)
            check_text(text, "shell")
        except InputError as exc:
            self.say(f"error: {exc}")
            return True
        try:
            words = shlex.split(text, comments=True)
        except ValueError as exc:
            self.say(f"error: {exc}")
            return True
        if not words:
            return True
        if words[0] == "quit" or words[0] == "exit":
            return False
        try:
            self.run(words)
        except ConflictError as exc:
            self.enc.refresh()
            self.say(f"error: {exc}; the board is refreshed: enter the command again")
        except InputError as exc:
            self.say(f"error: {exc}")
        return True

    def run(self, words: list[str]) -> None:

        verb, rest = words[0], words[1:]
        if verb == "help":
            self.say("verbs: " + ", ".join(sorted(verbs_for(self.enc.state.ruleset))))
            self.say("and: show, log, why COMMAND (a dry run), explain N, quit")
            return
        if verb == "show":
            self.say(render.board(self.enc.state) + "\n" + render.fighters(self.enc.state))
            return
        if verb == "log":
            t = self.enc.timeline
            rs = get_ruleset(self.enc.state.ruleset)
            self.say(render.log_lines(self.enc.records, t.abandoned, set(t.undone), rs))
            return
        if verb in ("why", "explain"):
            self.audit(verb, rest)
            return
        words, text = command_words(words)  # exactly what `do LOG …` logs for these words
        command = parse(words, verbs=verbs_for(self.enc.state.ruleset))
        result = self.enc.execute(command, text)
        if isinstance(result, Rejection):
            self.say(str(result))
        else:
            self.say(render.done_lines(result, self.enc.state.ruleset))

    def audit(self, verb: str, rest: list[str]) -> None:
        from tabletrail.projections import audit
        from tabletrail.text import audit as audit_text

        whole = Encounter.open(self.enc.store, snapshots=False)  # the audit reads every record
        if verb == "explain":
            if len(rest) != 1 or not rest[0].isdigit():
                raise InputError("explain N: the event's number (log lists them)")
            refused = self.enc.store.refused() if hasattr(self.enc.store, "refused") else []
            self.say(audit_text.explain_text(audit.explain(whole.records, int(rest[0]), refused, self.path)))
            return
        words, text = command_words(rest, "why")
        command = parse(words, "why", verbs=verbs_for(self.enc.state.ruleset))
        self.say(audit_text.why_text(audit.dry_run(whole, command, text)))


def run_shell(path: str, history: str | None = None, session: PromptSession[str] | None = None) -> int:
    """The prompt loop: one line at a time until quit or end of input."""
    shell = Shell(path)
    if session is None and not sys.stdin.isatty():
        return run_lines(shell, sys.stdin)
    if session is None:
        session = PromptSession(history=FileHistory(history) if history else InMemoryHistory())
    completer = TableCompleter(shell.enc)
    keys = tab_bindings(completer)
    shell.say(f"{path}: {len(shell.enc.records)} events; help lists the verbs, quit leaves")
    while True:
        try:
            text = session.prompt(f"{shell.enc.state.turn.active}> ", completer=completer, key_bindings=keys)
        except KeyboardInterrupt:
            continue  # Ctrl-C drops the line being typed, as in a shell
        except EOFError:
            return 0
        if not shell.line(text):
            return 0


def run_lines(shell: Shell, lines: Iterable[str]) -> int:
    """Lines piped in (`printf 'move ari 3,4\\nshow\\n' | tabletrail shell LOG`): no terminal to draw
    a prompt on, so each line is echoed after the prompt it answers, a transcript of the session."""
    shell.say(f"{shell.path}: {len(shell.enc.records)} events; help lists the verbs, quit leaves")
    for text in lines:
        text = text.rstrip("\r\n")
        shown = text if len(text) <= MAX_COMMAND_CHARS else f"{text[:60]}… ({len(text):,} characters)"
        shell.say(f"{shell.enc.state.turn.active}> {shown}")
        if not shell.line(text):
            break
    return 0
