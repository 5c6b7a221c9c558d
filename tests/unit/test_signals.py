"""SIGTERM ends a command as Ctrl-C does (issue 30): the stop becomes a KeyboardInterrupt that
runs and builds turn into `interrupted` records, and the handler is given back after."""

from __future__ import annotations

import os
import signal

import pytest

from kg.processes import stop_signal_name, stop_signals_interrupt


def test_sigterm_inside_the_block_interrupts_it_and_is_named():
    before = signal.getsignal(signal.SIGTERM)
    with pytest.raises(KeyboardInterrupt), stop_signals_interrupt():
        os.kill(os.getpid(), signal.SIGTERM)
        for _ in range(10**7):  # the handler runs between bytecodes
            pass
    assert stop_signal_name() == "SIGTERM"
    assert signal.getsignal(signal.SIGTERM) is before


def test_ctrl_c_is_named_sigint():
    with pytest.raises(KeyboardInterrupt), stop_signals_interrupt():
        os.kill(os.getpid(), signal.SIGINT)
        for _ in range(10**7):
            pass
    assert stop_signal_name() == "SIGINT"
