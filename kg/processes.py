"""How this process takes its stop signals: SIGTERM ends a run or build as Ctrl-C does.
(The background servers the product starts are supervised by `kg.supervisor`.)"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

# The last SIGTERM received by `stop_signals_interrupt` (None: none yet).
received: str | None = None


@contextmanager
def stop_signals_interrupt() -> Iterator[None]:
    """SIGTERM stops the block as Ctrl-C does: it calls whatever SIGINT handler is current
    (Python's, which raises KeyboardInterrupt, or asyncio's, which cancels the running main
    task first), so runs and builds close their records `interrupted` and give their leases
    back instead of dying with the default action. `received` names the signal."""
    global received
    received = None
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def on_term(signum: int, frame: FrameType | None) -> None:
        global received
        received = signal.Signals(signum).name
        handler = signal.getsignal(signal.SIGINT)
        if callable(handler):
            handler(signal.SIGINT, frame)
        else:
            raise KeyboardInterrupt

    old_term = signal.signal(signal.SIGTERM, on_term)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, old_term)


def stop_signal_name() -> str:
    """The signal that stopped the block: SIGTERM when `stop_signals_interrupt` saw one, else
    SIGINT (Ctrl-C keeps Python's own handler, which asyncio needs to cancel cleanly)."""
    return received or "SIGINT"


_holding = False  # an `interrupts_deferred` block is open (main thread only)


@contextmanager
def interrupts_deferred() -> Iterator[None]:
    """A stop signal (SIGINT, SIGTERM) that arrives inside the block is acted on when it ends.

    Why: a KeyboardInterrupt raised inside the Neo4j driver's socket read leaves the connection
    half-read; the driver's own clean-up then fails with another error (BufferError, TypeError)
    that hides the interrupt, and the run or build is never closed `interrupted`. The store
    wraps each driver call in this block. A second signal inside it acts at once, so a query
    that hangs can still be stopped. Outside the main thread (where no handler runs) and inside
    an open block this is a no-op."""
    global _holding
    if _holding or threading.current_thread() is not threading.main_thread():
        yield
        return
    pending: list[int] = []
    signums = (signal.SIGINT, signal.SIGTERM)
    handlers = {s: signal.getsignal(s) for s in signums}

    def restore() -> None:
        for s, h in handlers.items():
            signal.signal(s, h)

    def hold(signum: int, frame: FrameType | None) -> None:
        if pending:  # the second one: stop now, as without the block
            restore()
            signal.raise_signal(signum)
        pending.append(signum)

    for s in signums:
        signal.signal(s, hold)
    _holding = True
    try:
        yield
    finally:
        _holding = False
        restore()
        if pending:  # delivered again: the command's own handler acts on it now
            signal.raise_signal(pending[0])
