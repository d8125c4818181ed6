"""The analysis worker's garbage collection (`server.garbage`): a full collection runs when the
worker is idle or after enough answers, and what survives it is frozen out of later ones."""

from __future__ import annotations

import gc
import multiprocessing

import pytest

from tilecheck.server.garbage import Collector


@pytest.fixture
def unfrozen():
    yield
    gc.unfreeze()  # the rest of the suite runs with nothing frozen


def test_an_idle_worker_collects_once_and_freezes_what_survives(unfrozen):
    reader, _writer = multiprocessing.Pipe(duplex=False)
    collector = Collector(idle_seconds=0.01, most_checks=100)
    collector.wait(reader)  # nothing answered yet: nothing to collect
    assert collector.collections == 0
    collector.answered()
    cycle: list[object] = []
    cycle.append(cycle)
    del cycle
    collector.wait(reader)  # idle with an answer since the last collection
    assert (collector.collections, collector.pending) == (1, 0)
    assert gc.get_freeze_count() > 0
    collector.wait(reader)  # idle again, nothing answered since: no second collection
    assert collector.collections == 1


def test_a_waiting_message_is_read_before_any_collection(unfrozen):
    reader, writer = multiprocessing.Pipe(duplex=False)
    collector = Collector(idle_seconds=5, most_checks=100)
    collector.answered()
    writer.send("check")
    collector.wait(reader)  # returns at once: the question comes first
    assert collector.collections == 0 and reader.recv() == "check"


def test_enough_answers_in_a_row_collect_without_idling(unfrozen):
    collector = Collector(idle_seconds=60, most_checks=3)
    for _ in range(2):
        collector.answered()
    assert collector.collections == 0
    collector.answered()
    assert (collector.collections, collector.pending) == (1, 0)
