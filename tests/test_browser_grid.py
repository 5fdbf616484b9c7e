"""Real browser (Debian's Chromium through Playwright) on the Score page of issue 33: a
user's file starts from the default graders; the results grid shows each case's
expected answer and output and pages past row 1,000; a count's pass-rate link opens the
calculator in the same tab and session, the file kept; in a 1,024-pixel window the
headline figures (Pass rate, Mean score) are in view, and nothing needs an emoji font.

The ``server`` fixture is tests/test_browser.py's (through tests/conftest.py)."""

from __future__ import annotations

import csv
import re

import pytest
from test_browser import CHROMIUM, _counts, _eventually, _launch, _settle

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's Chromium at /usr/bin/chromium (apt-get install chromium)"),
]

ROWS = 1500
# Characters drawn from an emoji font where the system has one (a box where it has not).
EMOJI = re.compile("[\U0001F000-\U0001FAFF\u2600-\u27BF\u2B00-\u2BFF\uFE0F]")
WAIT = 60_000  # milliseconds: generous, the machine may be shared


def _write(path) -> None:
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["id", "question", "answer", "response"])
        for i in range(ROWS):
            answer = f"refund order {i}"
            w.writerow([f"c{i:04d}", f"What happens to order {i}?", answer, answer if i % 3 else answer.upper()])


def _grid_cells(page) -> list[str]:
    """The visible cells of the results grid (its accessible table: the grid itself is a canvas)."""
    return [c.strip() for c in page.locator(".st-key-gb_grid_table td").all_inner_texts()]


def _go_to_page(page, number: int) -> None:
    box = page.locator(".st-key-gb_w_grid_page input")
    box.fill(str(number))
    box.press("Enter")
    _settle(page, timeout=120)


@pytest.mark.timeout(600)
def test_the_grid_the_pass_rate_link_and_a_1024_pixel_window(server, tmp_path):
    from playwright.sync_api import expect, sync_playwright

    upload = tmp_path / "orders.csv"
    _write(upload)
    with sync_playwright() as p:
        browser = _launch(p)
        try:
            context = browser.new_context(viewport={"width": 1400, "height": 1000})
            page = context.new_page()
            page.set_default_timeout(WAIT)
            page.goto(server, wait_until="domcontentloaded")
            expect(page.get_by_text("40 cases scored")).to_be_visible(timeout=120_000)
            _settle(page, timeout=120)

            # A user's file after the sample: the default graders, not the sample's.
            page.locator(".st-key-score_upload input[type='file']").set_input_files(str(upload))
            expect(page.get_by_text(f"{ROWS:,} cases scored")).to_be_visible(timeout=120_000)
            _settle(page, timeout=120)
            _eventually(lambda: _check_graders(page), timeout=60)

            # The grid: one row per case with its expected answer and output.
            grid = page.locator(".st-key-gb_grid_table")
            grid.scroll_into_view_if_needed()
            headers = [h.strip() for h in grid.locator("th").all_inner_texts()]
            assert {"case", "input", "expected", "output", "Exact match"} <= set(headers), headers
            _eventually(lambda: _check_cells(page, ["c0000", "refund order 0", "REFUND ORDER 0"]), timeout=60)

            # Paged over the whole file: page 11 holds rows 1,001 to 1,100.
            _go_to_page(page, 11)
            expect(page.get_by_text("rows 1,001–1,100", exact=False)).to_be_visible(timeout=WAIT)
            grid.scroll_into_view_if_needed()
            _eventually(lambda: _check_cells(page, ["c1000", "refund order 1000"]), timeout=60)
            _go_to_page(page, 15)  # the last page (the grid draws the rows in view: its first ones)
            expect(page.get_by_text("rows 1,401–1,500, page 15 of 15", exact=False)).to_be_visible(timeout=WAIT)
            grid.scroll_into_view_if_needed()
            _eventually(lambda: _check_cells(page, ["c1400", "refund order 1400"]), timeout=60)
            assert not EMOJI.search(" ".join(_grid_cells(page)))

            # A pass count opens the calculator in this tab and session; the file stays.
            exact = _counts(page)["Exact match"]
            link = page.locator(".st-key-gb_rate_links a").filter(has_text="Exact match").first
            link.scroll_into_view_if_needed()
            link.click()
            page.wait_for_url(re.compile(r".*/pass_rate\?k=\d+&n=\d+.*"), timeout=WAIT)
            _settle(page)
            assert len(context.pages) == 1  # no new tab
            expect(page.get_by_text(f"{exact[3]} of {ROWS:,} pass", exact=False).first).to_be_visible(timeout=WAIT)
            page.locator("[data-testid='stSidebarNavLink']").filter(has_text="Score a file").click()
            expect(page.get_by_text(f"{ROWS:,} cases scored")).to_be_visible(timeout=WAIT)  # the file kept
            expect(page.get_by_text("orders.csv").first).to_be_visible(timeout=WAIT)
            _settle(page)

            # 1,024 pixels wide: the headline figures of the counts table are in view.
            page.set_viewport_size({"width": 1024, "height": 900})
            _settle(page)
            table = page.locator(".gb-counts table")
            table.scroll_into_view_if_needed()
            page.wait_for_timeout(500)

            def headline_in_view() -> None:
                edge = page.evaluate("() => Math.min(window.innerWidth, document.querySelector("
                                     "'[data-testid=\"stMainBlockContainer\"]').getBoundingClientRect().right)")
                for name in ("Pass rate (Wilson 95%)", "Mean score"):
                    cell = table.locator("th").filter(has_text=name).first
                    box = cell.bounding_box()
                    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= edge + 1, (name, box, edge)
                first_row = table.locator("tbody tr").first.locator("td")
                for i in (1, 2):  # its pass rate and mean score
                    box = first_row.nth(i).bounding_box()
                    assert box["x"] + box["width"] <= edge + 1, (i, box, edge)
                    assert first_row.nth(i).inner_text().strip()

            _eventually(headline_in_view, timeout=60)
            assert not EMOJI.search(page.locator("[data-testid='stMain']").inner_text())
        finally:
            browser.close()


def _check_graders(page) -> None:
    counts = _counts(page)
    assert set(counts) == {"Exact match", "Normalized match"}, list(counts)


def _check_cells(page, wanted: list[str]) -> None:
    cells = _grid_cells(page)
    missing = [w for w in wanted if w not in cells]
    assert not missing, (missing, cells[:20])
