"""The runner never sends a request before it has read the previous one's response: a round
trip cut short (a signal, an error of the runner's own) ends the implementation, so no later
request can read an earlier one's answer."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from gcv.conformance.process import Crashed, Implementation, _LineReader
from tests.conformance.helpers import fake

START = {"cmd": "start", "agents": ["a"], "atoms": ["p"]}
OBSERVE = {
    "cmd": "apply",
    "speaker": "a",
    "operations": [{"op": "observe", "id": "o1", "claim": "c"}],
}


@pytest.fixture
def impl() -> Iterator[Implementation]:
    # Timeouts far above any wait: only the cut below may end a round trip early.
    started = Implementation(fake("correct"), timeout=600, start_timeout=600)
    started.start()
    yield started
    started.kill()


class _Cut(BaseException):
    """Stands for a signal arriving after a request went out, before its response is read."""


def test_a_round_trip_cut_short_ends_the_implementation(
    impl: Implementation, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert impl.request(START)["ok"]
    reading = _LineReader.line

    def cut(self: _LineReader, *args: object, **kwargs: object) -> bytes | None:
        raise _Cut

    monkeypatch.setattr(_LineReader, "line", cut)
    with pytest.raises(_Cut):
        impl.request(OBSERVE)
    monkeypatch.setattr(_LineReader, "line", reading)
    assert not impl.alive, "a process whose answer was not read must not be asked again"
    with pytest.raises(Crashed):
        impl.request(OBSERVE)
    impl.restart()
    assert impl.request(START)["ok"]
    assert impl.request(OBSERVE) == {
        "id": impl.last_request["id"],
        "ok": True,
        "result": {"turn": 1},
    }
