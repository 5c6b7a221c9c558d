"""What every command shares: the rich consoles, the error exit, the store helper and the one
place where the product's errors become a message and an exit code."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, NoReturn

import typer
from rich.console import Console
from typer.core import TyperGroup

from kg.errors import KGError, ServerError
from kg.supervisor import State

if TYPE_CHECKING:
    from kg.settings import Settings
    from kg.store import Store

console = Console()
err_console = Console(stderr=True)


def fail(message: str, code: int = 1) -> NoReturn:
    # The message is plain text: markup in it (a `[redacted]` marker, `[1, 2]`, a file
    # name in brackets) is shown as written, never taken as a rich tag and swallowed.
    from rich.text import Text

    # soft_wrap: no line breaks inserted at the console width (a pipe's is 80), so a one-line
    # message stays one line for scripts and logs
    err_console.print(
        Text.assemble(("error:", "bold red"), " ", message), highlight=False, soft_wrap=True
    )
    raise typer.Exit(code)


def _print_log_tail(tail: str) -> None:
    err_console.print("[dim]--- last lines of the log ---[/]")
    err_console.print(tail, markup=False, highlight=False)


def exit_unless_running(state: State, log_tail: Callable[[], str], crashed: str) -> None:
    """The end of `kg db status` / `kg llm status` for a server that is not running: a crashed
    one shows its log's tail and exits 3 (`crashed` says what to do), a stopped one exits 0,
    a starting one 2. A running one returns."""
    if state is State.CRASHED:
        _print_log_tail(log_tail())
        fail(crashed, code=3)
    if state is not State.RUNNING:
        raise typer.Exit(0 if state is State.STOPPED else 2)


def report(exc: BaseException) -> NoReturn:
    """Print a product error (or an unreachable/refusing Neo4j) as one clear message; exit 1."""
    if isinstance(exc, ServerError):
        if exc.log_tail:
            _print_log_tail(exc.log_tail)
        fail(exc.message + (f"\n  fix: {exc.fix}" if exc.fix else ""))
    problems, source = getattr(exc, "problems", None), getattr(exc, "file", None)
    if isinstance(exc, KGError) and problems and source is not None:
        # A refused file (PERSPECTRA): every problem into a report file, the first ones here.
        from kg.error_report import screen_lines, write_error_report

        lines = [p.render(source) if hasattr(p, "render") else str(p) for p in problems]
        path = write_error_report(source, lines)
        fail(
            f"{len(lines)} problem(s) in {source}, nothing written:\n"
            + "\n".join(screen_lines(lines, path))
        )
    if isinstance(exc, KGError):
        fail(str(exc), getattr(exc, "exit_code", 1))
    from neo4j.exceptions import AuthError, ServiceUnavailable

    if isinstance(exc, ServiceUnavailable | AuthError):
        from kg.settings import get_settings

        fail(
            f"Neo4j at {get_settings().bolt_uri} is not usable ({type(exc).__name__}: {exc}); "
            "start the local server with `kg db up` or check NEO4J_URI/NEO4J_PASSWORD"
        )
    fail(f"{type(exc).__name__}: {exc}")


def _is_driver_error(exc: BaseException) -> bool:
    # Checked by module so that the driver is not imported before a command needs it.
    return type(exc).__module__.startswith("neo4j.")


class KGGroup(TyperGroup):
    """The `kg` command group: catches `KGError` (and the driver's errors) once, for every
    sub-command, instead of each command listing the exceptions it expects."""

    def invoke(self, ctx: Any) -> Any:
        from kg.processes import stop_signal_name, stop_signals_interrupt

        try:
            with stop_signals_interrupt():  # SIGTERM ends a command as Ctrl-C does
                return super().invoke(ctx)
        except KGError as exc:
            report(exc)
        except KeyboardInterrupt:
            fail(f"interrupted ({stop_signal_name()})", 130)
        except Exception as exc:
            if _is_driver_error(exc):
                report(exc)
            raise


@contextmanager
def open_store(settings: Settings | None = None) -> Iterator[Store]:
    """The store (of the current settings by default), closed at the end; its errors reach
    `KGGroup`. The driver is imported here, inside the command, to keep `kg --help` fast."""
    import logging

    from kg.store import Store

    # The driver logs every failed connection and retry; a lost server must give one error
    # line: its exceptions reach KGGroup (or the command) and are reported there.
    logging.getLogger("neo4j").setLevel(logging.CRITICAL)
    with Store(settings) as store:
        yield store
