"""Real browser tests: `streamlit run app.py` driven by Debian's Chromium via Playwright.

The end-to-end run uploads a file, changes the mapping and the graders, reads the counts,
opens a failing row, downloads the scored CSV and checks it, and saves a screenshot of
each page into docs/screenshots/. Two more stop a long run with the Stop button and
score and compare a file large enough for the worker processes. Needs /usr/bin/chromium
(CI installs it with apt).
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHOTS = ROOT / "docs" / "screenshots"
CHROMIUM = Path("/usr/bin/chromium")
SCORED_COLUMNS = ["item", "system", "repeat", "scorer", "score", "pass", "error", "near_miss", "explanation", "metadata"]

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's Chromium at /usr/bin/chromium (apt-get install chromium)"),
]

# The uploaded file: suggested mapping id, input=question, expected=answer, output=response,
# output_b=model_b; the test then maps output_b to none.
ROWS = [
    ("q1", "Capital of France?", "Paris", "Paris", "paris"),
    ("q2", "Days to return an item?", "30", "30 days", "30"),
    ("q3", "What is 6 x 7?", "42", "The answer is 42.", "42"),
    ("q4", "Who ships returns?", "UPS", "ups", "UPS"),
    ("q5", "Refund to store balance?", "store credit", " store credit", "store credit"),
    ("q6", "Status after approval?", "approved", "denied", "approved"),
]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


SERVER_LOGS: dict[str, Path] = {}  # url -> the server's log (stdout and stderr)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """`streamlit run app.py` on a free port; killed (with its process group) at the end."""
    port = _free_port()
    log_path = tmp_path_factory.mktemp("streamlit") / "server.log"
    log = open(log_path, "w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true", "--server.port", str(port),
         "--browser.gatherUsageStats", "false"],
        cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                if urllib.request.urlopen(f"{url}/_stcore/health", timeout=2).read() == b"ok":
                    break
            except OSError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                log.flush()
                pytest.fail(f"streamlit did not become healthy (exit code {proc.poll()}):\n{log_path.read_text()[-2000:]}")
            time.sleep(0.3)
        SERVER_LOGS[url] = log_path
        yield url
    finally:
        os.killpg(proc.pid, signal.SIGTERM)  # the server and anything it started
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        log.close()


def _settle(page, timeout: float = 60.0) -> None:
    """Wait until Streamlit has finished the current run (no running indicator)."""
    page.wait_for_timeout(300)
    page.wait_for_function(
        "() => !document.querySelector('[data-testid=\"stStatusWidget\"]')", timeout=timeout * 1000
    )
    page.wait_for_timeout(300)


CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]


def _launch(p):
    """Debian's Chromium, headless, with no background network traffic."""
    return p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)


def _shot(page, name: str) -> None:
    """A screenshot of the whole page: Streamlit scrolls inside stMain, so grow the viewport."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    height = page.evaluate("() => document.querySelector('[data-testid=\"stMain\"]').scrollHeight")
    page.set_viewport_size({"width": 1400, "height": max(900, min(int(height) + 40, 7000))})
    page.wait_for_timeout(800)  # charts redraw at the new size
    page.screenshot(path=str(SHOTS / f"{name}.png"))
    page.set_viewport_size({"width": 1400, "height": 1000})


def _eventually(check, timeout: float = 60.0) -> None:
    """Retry ``check`` (raising AssertionError while not yet true, or KeyError / IndexError
    while a table is drawn only in part) until it passes: Streamlit redraws a little after
    the widget event that caused the rerun."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            check()
            return
        except (AssertionError, KeyError, IndexError):
            if time.monotonic() > deadline:
                raise
            time.sleep(0.3)


def _counts(page) -> dict[str, list[str]]:
    """The counts table as {grader: [cells...]}."""
    table = page.locator("table").filter(has_text="Near misses").first
    rows = {}
    for tr in table.locator("tbody tr").all():
        cells = [c.inner_text().strip() for c in tr.locator("td").all()]
        rows[cells[0]] = cells
    return rows


def _check(condition: bool) -> None:
    assert condition


def _nothing_past_the_edge(page) -> None:
    found = _past_the_edge(page)
    assert found == [], found


def _past_the_edge(page) -> list[str]:
    """What in the main column runs past its right edge (not inside a box that scrolls
    sideways): each as its tag, test id and first words."""
    return page.evaluate("""() => {
        const main = document.querySelector('[data-testid="stMainBlockContainer"]');
        const edge = main.getBoundingClientRect().right + 2;
        const out = [];
        for (const el of main.querySelectorAll('*')) {
            const r = el.getBoundingClientRect();
            if (!r.width || !r.height || r.right <= edge || !el.checkVisibility()) continue;  // a closed expander's too
            let a = el.parentElement, scrolls = false;
            for (; a && a !== main; a = a.parentElement) {
                const x = getComputedStyle(a).overflowX;
                if (x === 'auto' || x === 'scroll' || x === 'hidden') { scrolls = true; break; }
            }
            const key = el.closest('[class*="st-key-"]');
            if (!scrolls) out.push(`${el.tagName} ${el.getAttribute('data-testid')} ${key ? key.className.match(/st-key-\\S+/)[0] : ''} `
                                   + `${Math.round(r.right - edge)}px ${(el.textContent || '').slice(0, 40)}`);
        }
        return out.slice(0, 5);
    }""")


def _table_fits(box) -> bool:
    """Whether the table inside ``box`` is no wider than the box (a table that is cut off
    at the window's edge is wider)."""
    table, room = box.evaluate("el => [el.querySelector('table').getBoundingClientRect().width, el.clientWidth]")
    return table <= room + 1


def _select(page, key: str, option: str) -> None:
    """Pick ``option`` in a select box: its Open button lists every option (typing would filter)."""
    opener = page.locator(f".st-key-{key}[data-stale='false'] button[aria-label='Open']").first
    choice = page.get_by_role("option", name=option, exact=True)
    for attempt in range(5):  # a rerun or an opening expander can close the list again
        opener.click()
        try:
            choice.wait_for(state="visible", timeout=5_000)
            choice.click(timeout=5_000)
            break
        except Exception:
            if attempt == 4:
                raise
            page.keyboard.press("Escape")
            _settle(page)
    _settle(page)


@pytest.mark.timeout(120)
def test_a_shared_link_as_the_servers_first_request_opens_inside_the_app(server):
    """The module's first test, so its link is the new server's first request: Streamlit
    then ran pages/pass_rate.py on its own (no title, no wide layout, the folder's file
    names as the menu) until a session had run app.py; the page reruns through app.py."""
    from playwright.sync_api import expect, sync_playwright

    with sync_playwright() as p:
        browser = _launch(p)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.goto(f"{server}/pass_rate?k=34&n=40")
            _settle(page)
            _eventually(lambda: _check(page.title() == "Gradeboard"))
            links = [a.inner_text() for a in page.locator("[data-testid='stSidebarNavLink']").all()]
            assert links == ["Score a file", "Grader playground", "Compare A and B", "Pass rate", "Normalizer builder"]
            expect(page.get_by_text("34 of 40 pass: 85.0%.", exact=False)).to_be_visible()
        finally:
            browser.close()


@pytest.mark.timeout(420)
def test_score_a_file_in_a_real_browser(server, tmp_path):
    from playwright.sync_api import expect, sync_playwright

    from graders import grade

    upload = tmp_path / "desk_check.csv"
    with open(upload, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["id", "question", "answer", "response", "model_b"])
        w.writerows(ROWS)

    with sync_playwright() as p:
        browser = _launch(p)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000}, accept_downloads=True)
            page.goto(server, wait_until="domcontentloaded")

            # Opens on the returns-desk sample, already scored with its configuration.
            expect(page.get_by_text("40 cases scored")).to_be_visible(timeout=90_000)
            _settle(page)
            _eventually(lambda: _check(_counts(page)["Exact match"][3:6:2] == ["8", "40"]))  # Passed, Graded
            # the counts table sits in a box that scrolls sideways in a narrow window
            assert page.locator(".gb-counts table").count() == 1
            assert page.locator(".gb-counts").evaluate("e => getComputedStyle(e).overflowX") == "auto"
            page.locator("[data-testid='stVegaLiteChart'] canvas, [data-testid='stVegaLiteChart'] svg").first.wait_for()
            _shot(page, "score")

            # Upload a file.
            page.locator(".st-key-score_upload input[type='file']").set_input_files(str(upload))
            expect(page.get_by_text("desk_check.csv")).to_be_visible(timeout=60_000)
            expect(page.get_by_text("6 rows", exact=False).first).to_be_visible()
            _settle(page)
            _eventually(lambda: _check("System" in page.locator("table").filter(has_text="Near misses").first.inner_text()))

            # Change the mapping: no second model.
            page.get_by_text("Column mapping (the suggested column", exact=False).click()
            _settle(page)
            _select(page, "gb_w_score_map_output_b", "— none —")
            expect(page.get_by_text("6 cases scored")).to_be_visible(timeout=60_000)

            # The user's own file starts from the default graders, not the sample's (issue 33):
            # add numeric, reading the last number.
            _eventually(lambda: _check("Regex (JavaScript)" not in _counts(page)))
            _select(page, "gb_w_score_graders", "Numeric (numeric)")
            page.locator("[data-testid='stExpander']").filter(has_text="Numeric —").locator("summary").click()
            page.locator(".st-key-gb_w_score_numeric_read").get_by_text("last", exact=True).click()
            _settle(page)

            # Read the counts and check them against the library.
            expected = {
                label: str(sum(grade(name, r[2], r[3], **params).status == "pass" for r in ROWS))
                for label, name, params in (("Exact match", "exact", {}), ("Numeric", "numeric", {"read": "last"}),
                                            ("Normalized match", "normalized", {}))
            }

            def counts_match() -> None:
                counts = _counts(page)
                assert "Regex (JavaScript)" not in counts and "JSON Schema" not in counts, list(counts)
                for label, passed in expected.items():
                    assert counts[label][5] == "6" and counts[label][3] == passed, (label, counts[label])

            _eventually(counts_match)
            exact_passed = int(_counts(page)["Exact match"][3])

            # Open the first failing row (file order: q1 passes everything but ... the first fail).
            grid = page.locator(".st-key-gb_filter_table [data-testid='stDataFrame']")
            grid.scroll_into_view_if_needed()
            box = grid.bounding_box()
            page.mouse.click(box["x"] + 18, box["y"] + 35 + 17)  # the row marker of the first row
            heading = page.locator("h4").filter(has_text="Case ")
            expect(heading).to_be_visible(timeout=30_000)
            expect(page.locator("mark").first).to_be_visible()
            # The texts keep their spaces and line breaks, and the marked character has width.
            assert page.locator(".gb-text").first.evaluate("e => getComputedStyle(e).whiteSpace") == "pre-wrap"
            assert page.locator(".gb-text mark").first.bounding_box()["width"] > 0
            _shot(page, "score_detail")

            # Download the scored CSV and check it.
            with page.expect_download(timeout=60_000) as info:
                page.locator(".st-key-gb_dl_scored button").click()
            text = Path(info.value.path()).read_text(encoding="utf-8")
            reader = list(csv.DictReader(io.StringIO(text)))
            assert list(reader[0]) == SCORED_COLUMNS
            assert sum(r["scorer"] == "exact" and r["pass"] == "true" for r in reader) == exact_passed
            assert {r["item"] for r in reader} == {r[0] for r in ROWS}
            assert not any(r["scorer"] in ("regex", "json_schema") for r in reader)
            assert {r["metadata"] for r in reader if r["scorer"] == "numeric"} == {'{"abs_tol": 0.0, "read": "last", "rel_tol": 0.0}'}

            # A screenshot of each page, switching through the sidebar (one session).
            for title, name, marker in (
                ("Grader playground", "playground", "Verdict"),
                ("Pass rate", "pass_rate", None),
                ("Normalizer builder", "normalizer", None),
            ):
                page.locator("[data-testid='stSidebarNavLink']").filter(has_text=title).click()
                page.locator("h1").first.wait_for(timeout=60_000)
                if marker:
                    expect(page.get_by_text(marker).first).to_be_visible(timeout=60_000)
                _settle(page)
                _shot(page, name)
                if name == "playground":  # a doubled space is seen, and marked where it starts
                    page.locator(".st-key-gb_w_pg_expected textarea").fill("store credit")
                    page.locator(".st-key-gb_w_pg_output textarea").fill("store  credit")
                    page.locator(".st-key-gb_w_pg_output textarea").press("Tab")
                    _settle(page)
                    boxes = page.locator(".gb-text")
                    _eventually(lambda boxes=boxes: _check(boxes.nth(1).text_content() == "store  credit"))
                    mark = boxes.nth(1).locator("mark")
                    assert mark.text_content() == " " and mark.bounding_box()["width"] > 0
                    # In a 1,024-pixel window the results table fits its column: a long
                    # signature breaks inside, where it used to push the table past the edge.
                    page.set_viewport_size({"width": 1024, "height": 1000})
                    _settle(page)
                    _eventually(lambda: _check(_table_fits(page.locator("[data-testid='stTable']").first)))
                    page.set_viewport_size({"width": 1400, "height": 1000})
            # Back on the Score page, the uploaded file and the changed graders are still there.
            page.locator("[data-testid='stSidebarNavLink']").filter(has_text="Score a file").click()
            expect(page.get_by_text("6 cases scored")).to_be_visible(timeout=60_000)
            _eventually(lambda: _check("Regex (JavaScript)" not in _counts(page)))
            # In a 1,024-pixel window nothing on the page runs past the main column's edge
            # (the charts stand one above the other; a table that is too wide scrolls).
            page.set_viewport_size({"width": 1024, "height": 1000})
            _settle(page)
            _eventually(lambda: _nothing_past_the_edge(page))
            page.set_viewport_size({"width": 1400, "height": 1000})

            # Compare the sample A/B file: one click loads it, the metric table and the
            # disagreements follow.
            page.locator("[data-testid='stSidebarNavLink']").filter(has_text="Compare A and B").click()
            # The Score page has an "A/B wide" button too: click Compare's, once it is shown.
            page.wait_for_url(re.compile(r"/compare(\?|$)"), timeout=60_000)
            expect(page.get_by_role("heading", name="Compare A and B").first).to_be_visible(timeout=60_000)
            page.get_by_role("button", name="A/B wide", exact=True).click()
            expect(page.get_by_role("heading", name="Metrics")).to_be_visible(timeout=120_000)
            expect(page.get_by_role("heading", name="Where A and B disagree")).to_be_visible(timeout=120_000)
            _settle(page)
            _shot(page, "compare")
        finally:
            browser.close()


def _upload_on_a_fresh_page(browser, server: str, path: Path, config: Path | None = None):
    """A new page on the server, once the sample is scored, with ``config`` restored (the
    graders a file uploaded after it runs; without one, the defaults) and ``path`` uploaded."""
    return _upload_on(browser.new_page(viewport={"width": 1400, "height": 1000}), server, path, config)


def _upload_on(page, server: str, path: Path, config: Path | None = None):
    """``page`` opened on the server, then as ``_upload_on_a_fresh_page``."""
    from playwright.sync_api import expect

    page.goto(server, wait_until="domcontentloaded")
    expect(page.get_by_text("40 cases scored")).to_be_visible(timeout=90_000)
    _settle(page)
    if config is not None:
        page.locator(".st-key-gb_config_upload input[type='file']").set_input_files(str(config))
        expect(page.get_by_text("Restored the mapping", exact=False).first).to_be_visible(timeout=90_000)
        _settle(page, timeout=120)
    page.locator(".st-key-score_upload input[type='file']").set_input_files(str(path))
    return page


@pytest.mark.timeout(300)
def test_stop_scoring_in_a_real_browser(server, tmp_path):
    """The Stop button interrupts a long run between chunks; nothing partial is shown."""
    from playwright.sync_api import expect, sync_playwright

    big = tmp_path / "big.csv"
    with open(big, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["id", "expected", "output"])
        for i in range(60_000):
            w.writerow([f"c{i}", f"the refund for order {i} is approved", f"The refund for order {i} was approved."])
    slow = tmp_path / "slow.config.json"  # graders slow enough to stop (exact and normalized finish at once)
    slow.write_text(json.dumps({"graders": [{"name": n} for n in ("exact", "token_f1", "bleu", "rouge_l", "chrf")]}))

    with sync_playwright() as p:
        browser = _launch(p)
        try:
            page = _upload_on_a_fresh_page(browser, server, big, slow)
            expect(page.get_by_text("Scoring…", exact=False).first).to_be_visible(timeout=60_000)
            page.locator(".st-key-gb_stop[data-stale='false'] button").first.click()
            expect(page.get_by_text("Scoring was stopped after", exact=False)).to_be_visible(timeout=120_000)
            expect(page.locator(".st-key-gb_score_again button")).to_be_visible()
            assert page.get_by_text("60000 cases scored").count() == 0
            assert page.get_by_text("60,000 cases scored").count() == 0
        finally:
            browser.close()


@pytest.mark.timeout(300)
def test_large_file_compared_in_worker_processes(server, tmp_path):
    """A file large enough for the worker processes (24,000 prepared rows): both the Score
    page and the Compare page score it in forkserver workers under the real server, and the
    server logs no error (a worker re-running the page script would break the pool)."""
    from playwright.sync_api import expect, sync_playwright

    big = tmp_path / "wide_big.csv"
    with open(big, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["id", "expected", "output", "output_b"])
        for i in range(12_000):  # A is always right; B is right on every third case
            w.writerow([f"c{i}", f"order {i} refunded", f"order {i} refunded", f"order {i} refunded" if i % 3 == 0 else "no"])

    with sync_playwright() as p:
        browser = _launch(p)
        try:
            page = _upload_on_a_fresh_page(browser, server, big)
            expect(page.get_by_text("wide_big.csv")).to_be_visible(timeout=60_000)
            expect(page.get_by_text("24,000 outputs scored")).to_be_visible(timeout=120_000)  # A's and B's
            page.locator("[data-testid='stSidebarNavLink']").filter(has_text="Compare A and B").click()
            expect(page.get_by_role("heading", name="Metrics")).to_be_visible(timeout=120_000)
            _settle(page, timeout=120)
            assert page.get_by_text("The comparison failed", exact=False).count() == 0
            # A passes every case on exact match, B every third: the figures of all 12,000 pairs.
            expect(page.get_by_text("12,000 pairs ·", exact=False)).to_be_visible()
            expect(page.get_by_text("pass rate A 100.0%, B 33.3%", exact=False).first).to_be_visible()
        finally:
            browser.close()
    log = SERVER_LOGS[server].read_text()
    assert "Traceback" not in log and "BrokenProcessPool" not in log, log[-3000:]
