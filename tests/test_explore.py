"""``gcv explore``: the page, opened in a real headless Chromium, steps and highlights.

Chromium and its driver come from Debian's packages (``chromium``,
``chromium-driver``; ``.ci/run`` installs them when missing), driven by
Selenium.  The screenshot of Phase 2 at T13 with o5 clicked is kept in
``build/test-artefacts/``.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.chrome.webdriver import WebDriver
from selenium.webdriver.common.by import By

from gcv.cli import EXIT_BAD_INPUT, EXIT_OK, main

ARTEFACTS = Path(__file__).resolve().parent.parent / "build" / "test-artefacts"


@pytest.fixture(scope="module")
def browser() -> Iterator[WebDriver]:
    chromium, driver = shutil.which("chromium"), shutil.which("chromedriver")
    assert chromium and driver, "needs Debian's chromium and chromium-driver (see .ci/run)"
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1600,1000"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    session = webdriver.Chrome(options=options, service=Service(executable_path=driver))
    yield session
    session.quit()


def _open(browser: WebDriver, tmp_path: Path, trace: str) -> None:
    page = tmp_path / f"{trace}.html"
    assert main(["explore", trace, "-o", str(page)]) == EXIT_OK
    browser.get(page.as_uri())


def _console_errors(browser: WebDriver) -> list[str]:
    entries: list[dict[str, str]] = browser.get_log("browser")  # type: ignore[no-untyped-call]
    return [e["message"] for e in entries if e["level"] == "SEVERE"]


def _ids(browser: WebDriver, selector: str) -> set[str]:
    found = browser.find_elements(By.CSS_SELECTOR, selector)
    return {str(e.get_attribute("id")).removeprefix("node-") for e in found}


def _text(browser: WebDriver, element_id: str) -> str:
    return browser.find_element(By.ID, element_id).text


def test_phase2_t13_clicking_o5_highlights_h3_h4_h1(browser: WebDriver, tmp_path: Path) -> None:
    _open(browser, tmp_path, "phase2-debugging")
    assert _console_errors(browser) == []
    assert _text(browser, "turn-label") == "T1 (1 of 13)"
    assert _ids(browser, "#map g.node") == {"o1", "o2", "o3", "o4"}, "B.2 T1's records"
    for _ in range(12):
        browser.find_element(By.ID, "next").click()
    assert _text(browser, "turn-label") == "T13 (13 of 13)"
    browser.find_element(By.ID, "node-o5").click()
    # B.2: the retraction path o5 -> h3 -> h4 -> h1.
    assert _ids(browser, "#map g.node.hl") == {"h3", "h4", "h1"}
    assert _ids(browser, "#map g.node.sel") == {"o5"}
    assert _text(browser, "answer") == "Affected*(o5) = {h1, h3, h4}"
    assert "standing: h4 active -> resolved" in _text(browser, "summary")
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    assert browser.save_screenshot(str(ARTEFACTS / "explorer-phase2-T13-o5.png"))
    assert _console_errors(browser) == []


def test_phase3_verify_decision_shows_the_witness_path(browser: WebDriver, tmp_path: Path) -> None:
    _open(browser, tmp_path, "phase3-deliberation")
    browser.find_element(By.ID, "turn").send_keys("\ue010")  # End: the last turn
    assert _text(browser, "turn-label") == "T19 (19 of 19)"
    browser.find_element(By.CSS_SELECTOR, "input[name=mode][value=verify]").click()
    browser.find_element(By.ID, "node-P3").click()
    # B.3: the decision rests on the retracted a3.
    assert _ids(browser, "#map g.node.onpath") == {"P3", "a3"}
    assert "no longer grounded; affected by retraction of a3" in _text(browser, "answer")
    assert _console_errors(browser) == []


def test_phase1_shows_the_model_size_turn_by_turn(browser: WebDriver, tmp_path: Path) -> None:
    _open(browser, tmp_path, "phase1-muddy-children")
    # B.1: the father's announcement leaves the 7 worlds with a muddy child; the round of
    # "I don't know" (Turns 1a-1c) leaves the 4 with at least two.
    assert "|W| = 7" in _text(browser, "epistemic")
    for _ in range(3):
        browser.find_element(By.ID, "next").click()
    assert "|W| = 4" in _text(browser, "epistemic")
    assert _console_errors(browser) == []


def test_explore_unknown_turn_is_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explore", "phase2-debugging", "--at", "14"]) == EXIT_BAD_INPUT
    assert "turn 14 is not in the trace" in capsys.readouterr().err
