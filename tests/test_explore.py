"""``gcv explore``: the page, opened in a real headless Chromium, steps and highlights.

Chromium and its driver come from Debian's packages (``chromium``,
``chromium-driver``; ``.ci/run`` installs them when missing), driven by
Selenium.  Screenshots are kept in ``build/test-artefacts/``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.chrome.webdriver import WebDriver
from selenium.webdriver.common.by import By

from gcv.cli import main
from gcv.options import EXIT_BAD_INPUT, EXIT_OK
from tests.programs import require_programs
from tests.test_draw import NOT_GROUNDED, phase2_resting_on_h2

pytestmark = pytest.mark.slow

ARTEFACTS = Path(__file__).resolve().parent.parent / "build" / "test-artefacts"
SMALLEST_READABLE_PX = 12


@pytest.fixture(scope="module")
def browser() -> Iterator[WebDriver]:
    chromium, driver = require_programs("chromium", "chromedriver")
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1600,1000"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    session = webdriver.Chrome(options=options, service=Service(executable_path=driver))
    yield session
    session.quit()


def _open(browser: WebDriver, tmp_path: Path, *words: str) -> None:
    page = tmp_path / "page.html"
    assert main(["explore", *words, "-o", str(page)]) == EXIT_OK
    browser.get(page.as_uri())


def _console_errors(browser: WebDriver) -> list[str]:
    entries: list[dict[str, str]] = browser.get_log("browser")  # type: ignore[no-untyped-call]
    return [e["message"] for e in entries if e["level"] == "SEVERE"]


def _ids(browser: WebDriver, selector: str) -> set[str]:
    found = browser.find_elements(By.CSS_SELECTOR, selector)
    return {str(e.get_attribute("id")).removeprefix("node-") for e in found}


def _shown(browser: WebDriver) -> set[str]:
    return _ids(browser, "#map g.node.record:not(.absent)")


def _text(browser: WebDriver, element_id: str) -> str:
    return browser.find_element(By.ID, element_id).text


def _smallest_text_px(browser: WebDriver) -> float:
    """The height on screen of the smallest record text shown (what the screenshot shows)."""
    script = """
      const shown = [...document.querySelectorAll('#map g.node.record:not(.absent) text')]
        .map((t) => t.getBoundingClientRect().height).filter((h) => h > 0);
      return Math.min(...shown);"""
    return float(browser.execute_script(script))


def _screenshot(browser: WebDriver, name: str) -> None:
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    assert browser.save_screenshot(str(ARTEFACTS / name))


def test_phase2_opens_at_the_last_turn_and_clicking_o5_highlights_h3_h4_h1(
    browser: WebDriver, tmp_path: Path
) -> None:
    _open(browser, tmp_path, "phase2-debugging")
    assert _console_errors(browser) == []
    assert _text(browser, "turn-label") == "T13 (14 of 14)", "after the last turn, as --help says"
    browser.find_element(By.ID, "node-o5").click()
    # B.2: the retraction path o5 -> h3 -> h4 -> h1.
    assert _ids(browser, "#map g.node.hl") == {"h3", "h4", "h1"}
    assert _ids(browser, "#map g.node.sel") == {"o5"}
    assert _text(browser, "answer") == "Affected*(o5) = {h1, h3, h4}"
    assert "standing: h4 active -> resolved" in _text(browser, "summary")
    assert _smallest_text_px(browser) >= SMALLEST_READABLE_PX
    _screenshot(browser, "explorer-phase2-T13-o5.png")
    assert _console_errors(browser) == []


def test_at_is_where_the_page_opens_and_every_turn_stays_reachable(
    browser: WebDriver, tmp_path: Path
) -> None:
    _open(browser, tmp_path, "phase2-debugging", "--at", "1")
    assert _text(browser, "turn-label") == "T1 (2 of 14)"
    assert _shown(browser) == {"o1", "o2", "o3", "o4"}, "B.2 T1's records"
    browser.find_element(By.ID, "turn").send_keys("\ue010")  # End: the last turn
    assert _text(browser, "turn-label") == "T13 (14 of 14)"
    _open(browser, tmp_path, "phase2-debugging", "--at", "0")
    assert _text(browser, "turn-label") == "before the first turn (1 of 14)"
    assert _shown(browser) == set()
    assert _console_errors(browser) == []


@pytest.mark.slow
def test_phase3_verify_decision_shows_the_witness_path(browser: WebDriver, tmp_path: Path) -> None:
    _open(browser, tmp_path, "phase3-deliberation")
    assert _text(browser, "turn-label") == "T19 (20 of 20)"
    browser.find_element(By.CSS_SELECTOR, "input[name=mode][value=verify]").click()
    browser.find_element(By.ID, "node-P3").click()
    # B.3: the decision rests on the retracted a3.
    assert _ids(browser, "#map g.node.onpath") == {"P3", "a3"}
    assert "no longer grounded; affected by retraction of a3" in _text(browser, "answer")
    assert _ids(browser, "#map g.node.look-not-grounded") == {"P3"}
    assert _console_errors(browser) == []


@pytest.mark.slow
def test_phase1_shows_the_model_size_turn_by_turn(browser: WebDriver, tmp_path: Path) -> None:
    _open(browser, tmp_path, "phase1-muddy-children", "--at", "1")
    # B.1: the father's announcement leaves the 7 worlds with a muddy child; the round of
    # "I don't know" (Turns 1a-1c) leaves the 4 with at least two.
    assert "|W| = 7" in _text(browser, "epistemic")
    for _ in range(3):
        browser.find_element(By.ID, "next").click()
    assert "|W| = 4" in _text(browser, "epistemic")
    assert _console_errors(browser) == []


REJECTED = [
    {"speaker": "a", "operations": [{"op": "revise", "target": "nope"}]},
    {"speaker": "b", "operations": [{"op": "observe", "id": "o1", "claim": "again"}]},
]


def test_a_store_with_rejected_turns_shows_them_as_steps_with_their_error(
    browser: WebDriver, tmp_path: Path
) -> None:
    store = tmp_path / "talk.gcv"
    assert main(["session", "import", str(phase2_resting_on_h2(tmp_path)), "--db", str(store)]) == 0
    lines = tmp_path / "rejected.jsonl"
    lines.write_text("".join(json.dumps(turn) + "\n" for turn in REJECTED), encoding="utf-8")
    main(["session", "append", str(lines), "--db", str(store), "--keep-going"])
    _open(browser, tmp_path, "--db", str(store), "--at", "0")
    assert _text(browser, "turn-label") == "before the first turn (1 of 13)", "10 + 2 + the start"
    labels = []
    for _ in range(12):
        browser.find_element(By.ID, "next").click()
        labels.append(_text(browser, "turn-label").split(" (")[0])
        if labels[-1].endswith("rejected"):
            assert "rejected: [" in _text(browser, "operations")
    assert labels == [*(f"T{n}" for n in range(1, 11)), "T11 rejected", "T11 rejected"]
    # h2 is abandoned at T9 (B.2), and h5 and h6 rest on it: Lemma 2.1 rejects both.
    assert _ids(browser, "#map g.node.look-not-grounded") == NOT_GROUNDED
    assert _ids(browser, "#map g.node.look-abandoned") == {"h2"}
    assert all(
        "NOT GROUNDED: rests on h2" in browser.find_element(By.ID, f"node-{r}").text
        for r in NOT_GROUNDED
    )
    _screenshot(browser, "explorer-store-rejected.png")
    assert _console_errors(browser) == []


def long_conversation(turns: int) -> dict[str, object]:
    """A trace of ``turns`` turns: each an observation and a hypothesis resting on it and on
    the turn before's observation; the last turn revises o100 (when there is one)."""
    made = []
    for n in range(1, turns):
        depends = [f"o{n}"] + ([f"o{n - 1}"] if n > 1 else [])
        observe = {"op": "observe", "id": f"o{n}", "claim": f"reading {n}"}
        guess = {"op": "hypothesize", "id": f"h{n}", "claim": f"cause {n}", "depends_on": depends}
        made.append({"turn": n, "speaker": "ab"[n % 2], "operations": [observe, guess]})
    made.append({"turn": turns, "speaker": "a", "operations": [{"op": "revise", "target": "o100"}]})
    return {"format": "gcv-trace/1", "name": "long", "agents": {"a": "A", "b": "B"}, "turns": made}


def test_two_hundred_turns_open_at_the_last_with_readable_text(
    browser: WebDriver, tmp_path: Path
) -> None:
    trace = tmp_path / "long.json"
    trace.write_text(json.dumps(long_conversation(200)), encoding="utf-8")
    _open(browser, tmp_path, str(trace))
    assert _text(browser, "turn-label") == "T200 (201 of 201)"
    # Revising o100 leaves h100 and h101, which rest on it, in good standing but not grounded.
    assert _ids(browser, "#map g.node.look-not-grounded") == {"h100", "h101"}
    assert _smallest_text_px(browser) >= SMALLEST_READABLE_PX
    _screenshot(browser, "explorer-200-turns.png")
    browser.find_element(By.ID, "turn").send_keys("\ue011")  # Home: before the first turn
    assert _text(browser, "turn-label") == "before the first turn (1 of 201)"
    assert _console_errors(browser) == []


def test_explore_unknown_turn_is_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explore", "phase2-debugging", "--at", "14"]) == EXIT_BAD_INPUT
    assert "turn 14 is not in the trace" in capsys.readouterr().err
