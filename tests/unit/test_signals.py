"""SIGTERM ends a command as Ctrl-C does (issue 30): the stop becomes a KeyboardInterrupt that
runs and builds turn into `interrupted` records, and the handler is given back after."""

from __future__ import annotations

import os
import signal

import pytest

from kg.processes import interrupts_deferred, stop_signal_name, stop_signals_interrupt


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


def _spin() -> None:
    for _ in range(10**6):  # the handler runs between bytecodes
        pass


def test_a_signal_inside_a_driver_call_acts_when_the_call_ends():
    # inside the block (the store's driver I/O) the interrupt waits; it is raised right after
    reached_end = False
    with pytest.raises(KeyboardInterrupt), stop_signals_interrupt():
        with interrupts_deferred():
            os.kill(os.getpid(), signal.SIGTERM)
            _spin()
            with interrupts_deferred():  # nested: the outer block holds
                _spin()
            reached_end = True
        _spin()
    assert reached_end and stop_signal_name() == "SIGTERM"
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_a_second_signal_inside_the_block_acts_at_once():
    reached_end = False
    with pytest.raises(KeyboardInterrupt), interrupts_deferred():
        os.kill(os.getpid(), signal.SIGINT)
        _spin()
        os.kill(os.getpid(), signal.SIGINT)
        _spin()
        reached_end = True
    assert not reached_end
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
