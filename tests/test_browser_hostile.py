"""Hostile data stays inert on every page, in Debian's Chromium (issue 32, 1).

Model outputs, ids, inputs, column names, version names, file names, configuration files and
the pass-rate page's query parameters carry Markdown images (``![x](http://127.0.0.1:9/…)``,
the exfiltration form), HTML with event handlers, ``<script>``, plain and ``javascript:``
links and KaTeX. Each page draws them (a row opened on the Score and Compare pages, the
JSON Schema violation that quotes the output, a duplicate header and a malformed line in
an error, the Normalizer's figures, the playground's table of grades), and the page must:

* make no request outside the app's own origin (nothing listens on 127.0.0.1:9: a request
  there is the leak, whether or not it is answered);
* run no injected script (each payload would set ``window.__pwned`` or log ``PWNED``);
* hold no link or image to 127.0.0.1:9 or to ``javascript:`` (a plain link rendered
  clickable is one click from the leak).
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from urllib.parse import quote, urlsplit

import pytest

from tests import test_browser
from tests.test_browser import CHROMIUM, _eventually, _launch, _select, _settle

server = test_browser.server  # the fixture: this module's own `streamlit run app.py`

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's Chromium at /usr/bin/chromium (apt-get install chromium)"),
]

LEAK = "http://127.0.0.1:9"


def hostile(tag: str) -> str:
    """Every payload at once, each naming ``tag`` (so a failure says which text leaked)."""
    return " ".join([
        f"![x]({LEAK}/{tag}-md-image)",
        f"<img src={LEAK}/{tag}-html-image.png onerror=\"window.__pwned='{tag}-img'\">",
        f"<script>window.__pwned='{tag}-script';console.log('PWNED {tag}')</script>",
        f"<svg onload=\"window.__pwned='{tag}-svg'\"></svg>",
        f"<iframe src={LEAK}/{tag}-iframe></iframe>",
        f"<style>@import url({LEAK}/{tag}-css);</style>",
        f"{LEAK}/{tag}-plain-link www.{tag}.invalid",
        f"[click]({LEAK}/{tag}-md-link) [js](javascript:window.__pwned='{tag}-js')",
        f"$\\href{{javascript:window.__pwned='{tag}-katex'}}{{k}}$ :red[{tag}] `tick",
    ])


class Guard:
    """Every request of a browser context outside the app's origin, every console line, and
    what a page holds that it must not."""

    def __init__(self, context, origin: str) -> None:
        self.origin = urlsplit(origin).netloc
        self.outside: list[str] = []
        self.console: list[str] = []
        context.on("request", self._request)
        context.on("page", self._page)
        for page in context.pages:
            self._page(page)

    def _page(self, page) -> None:
        page.on("console", lambda m: self.console.append(m.text))
        page.on("websocket", lambda ws: self._request(ws))

    def _request(self, request) -> None:
        url = request.url
        parts = urlsplit(url)
        if parts.scheme in ("data", "blob", "about") or parts.netloc == self.origin:
            return
        self.outside.append(url)

    def check(self, page, where: str) -> None:
        page.wait_for_timeout(1500)  # an image or a style loads a moment after it is drawn
        found = page.evaluate("""() => {
            const bad = u => {  // where the link or the source goes, not what its query carries
                if (!u) return false;
                const url = new URL(u, location.href);
                return url.protocol === 'javascript:' || url.host === '127.0.0.1:9' || url.hostname.endsWith('.invalid');
            };
            const out = [];
            for (const el of document.querySelectorAll('a, img, iframe, script, link, svg, source, video, audio, object, embed')) {
                const u = el.getAttribute('href') || el.getAttribute('src') || el.getAttribute('data') || '';
                if (bad(u) || el.getAttribute('onerror') || el.getAttribute('onload')) {
                    const box = el.closest('[data-testid]:not(a):not(img)');
                    out.push(`${box ? box.getAttribute('data-testid') + ' ' + box.textContent.slice(0, 60) : ''}: ${el.outerHTML.slice(0, 100)}`);
                }
            }
            return out;
        }""")
        pwned = page.evaluate("() => window.__pwned === undefined ? null : String(window.__pwned)")
        problems = {"requests outside the app": self.outside, "elements from the data": found,
                    "an injected script ran": pwned, "console": [c for c in self.console if "PWNED" in c]}
        assert not any(problems.values()), f"{where}: {problems}"


def _guarded(browser, url: str):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    return context, Guard(context, url)


def _upload(context, url: str, path: Path, config: Path | None = None):
    """A new page in the guarded context, as tests/test_browser.py's ``_upload_on_a_fresh_page``."""
    return test_browser._upload_on(context.new_page(), url, path, config)


def _write_csv(path: Path, rows: list[list[str]]) -> Path:
    with open(path, "w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerows(rows)
    return path


def _schema_config(path: Path) -> Path:
    """Exact, contains and a JSON Schema whose violation quotes the output's ``action``."""
    schema = {"type": "object", "properties": {"action": {"enum": ["refund", "deny"]}}, "required": ["action"]}
    path.write_text(json.dumps({
        "graders": [{"name": "exact"}, {"name": "contains"}, {"name": "json_schema", "schema": schema}],
    }))
    return path


def _open_first_row(page) -> None:
    """Select the first row of the Score page's filtered table (its detail opens)."""
    from playwright.sync_api import expect

    grid = page.locator(".st-key-gb_filter_table [data-testid='stDataFrame']")
    grid.scroll_into_view_if_needed()
    box = grid.bounding_box()
    page.mouse.click(box["x"] + 18, box["y"] + 35 + 17)
    expect(page.locator("h4").filter(has_text="Case ")).to_be_visible(timeout=30_000)
    _settle(page)


def _nav(page, title: str) -> None:
    page.locator("[data-testid='stSidebarNavLink']").filter(has_text=title).click()
    page.locator("h1").first.wait_for(timeout=60_000)
    _settle(page, timeout=120)


@pytest.mark.timeout(420)
def test_hostile_file_on_the_score_compare_and_normalizer_pages(server, tmp_path):
    """A CSV whose header, ids, inputs, references and outputs are hostile, graded with a
    JSON Schema whose violation message quotes the output: the Score page with a row
    opened, then the same session's Normalizer page and (two outputs: output and a hostile
    second column) the Compare page with its first disagreement opened."""
    from playwright.sync_api import expect, sync_playwright

    header = ["id", "question", "answer", "response", hostile("header")]
    rows = [header] + [
        [hostile(f"id{i}"), hostile(f"input{i}"), hostile(f"expected{i}"),
         json.dumps({"action": hostile(f"output{i}")}), json.dumps({"action": f"deny {i}"})]
        for i in range(3)
    ]
    upload = _write_csv(tmp_path / "hostile.csv", rows)
    config = _schema_config(tmp_path / "hostile.config.json")
    with sync_playwright() as p:
        browser = _launch(p)
        try:
            context, guard = _guarded(browser, server)
            page = _upload(context, server, upload, config)
            expect(page.get_by_text("hostile.csv").first).to_be_visible(timeout=60_000)
            expect(page.get_by_text("3 cases scored").first).to_be_visible(timeout=90_000)
            _settle(page)
            guard.check(page, "Score page")
            _open_first_row(page)
            # the JSON Schema grader's violation, which quotes the output, in the table of grades
            expect(page.locator("[data-testid='stTable']").filter(has_text="is not one of").first).to_be_visible(timeout=30_000)
            guard.check(page, "Score page, a row opened")

            _nav(page, "Normalizer builder")
            expect(page.get_by_text("Exact fails").first).to_be_visible(timeout=60_000)
            guard.check(page, "Normalizer page")

            # The hostile second column as output_b: two systems named by their columns.
            _nav(page, "Compare A and B")
            page.get_by_text("Columns", exact=True).first.click()
            _settle(page)
            _select(page, "gb_w_compare_map_output_b", hostile("header"))
            expect(page.get_by_role("heading", name="Where A and B disagree")).to_be_visible(timeout=120_000)
            _settle(page, timeout=120)
            guard.check(page, "Compare page (wide)")
        finally:
            browser.close()


@pytest.mark.timeout(420)
def test_hostile_versions_on_the_compare_page(server, tmp_path):
    """A long JSON lines file whose version names, keys, ids and texts are hostile (a
    version with backticks, which would close the reproducing command's code span), on
    the Compare page: the sides, the metrics, the rows and a pair opened, the command."""
    from playwright.sync_api import expect, sync_playwright

    versions = [f"`{hostile('va')}`", hostile("vb")]
    lines = []
    for i in range(6):
        for j, version in enumerate(versions):
            lines.append(json.dumps({
                "id": hostile(f"case{i}"), "version": version, "input": hostile(f"in{i}"),
                "expected": "refund", "output": "refund" if (i + j) % 2 else hostile(f"out{i}{j}"),
                hostile("key"): hostile(f"cell{i}"),
            }))
    upload = tmp_path / "hostile_long.jsonl"
    upload.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with sync_playwright() as p:
        browser = _launch(p)
        try:
            context, guard = _guarded(browser, server)
            page = _upload(context, server, upload)
            expect(page.get_by_text("hostile_long.jsonl").first).to_be_visible(timeout=60_000)
            _settle(page, timeout=120)
            guard.check(page, "Score page (long file)")
            _nav(page, "Compare A and B")
            expect(page.get_by_role("heading", name="Where A and B disagree")).to_be_visible(timeout=120_000)
            expect(page.get_by_text("The configuration reproduces this comparison", exact=False)).to_be_visible(timeout=60_000)
            _settle(page, timeout=120)
            guard.check(page, "Compare page (long file)")
        finally:
            browser.close()


@pytest.mark.timeout(300)
def test_hostile_files_that_cannot_be_read(server, tmp_path):
    """The messages of files and configurations that cannot be used quote them: a
    duplicate header, a malformed quote on every line (the error) and on one line (the
    left-out report), a hostile file name, a configuration naming a hostile grader."""
    from playwright.sync_api import expect, sync_playwright

    dup = _write_csv(tmp_path / "duplicate.csv", [["id", hostile("dup"), hostile("dup")], ["1", "a", "b"]])
    broken = tmp_path / "broken.csv"
    broken.write_text(f'id,output\n1,"{hostile("q1")}" tail\n2,"{hostile("q2")}" more\n', encoding="utf-8")
    partly = tmp_path / "partly.csv"
    partly.write_text(f'id,expected,output\n1,a,a\n2,b,"{hostile("q3")}" tail\n', encoding="utf-8")
    # A file name cannot hold "/": a scheme without slashes is read as an address all the same.
    named = tmp_path / "![n](http:127.0.0.1:9) <img src=x onerror=window.__pwned=1>.csv"
    _write_csv(named, [["id", "expected", "output"], ["1", "a", "b"]])
    bad_config = tmp_path / "bad.config.json"
    bad_config.write_text(json.dumps({"graders": [{"name": hostile("grader")}]}))
    with sync_playwright() as p:
        browser = _launch(p)
        try:
            context, guard = _guarded(browser, server)
            page = _upload(context, server, dup)
            expect(page.get_by_text("duplicate column name", exact=False).first).to_be_visible(timeout=60_000)
            guard.check(page, "a duplicate header")
            for path, marker in ((broken, "quoted cell"), (partly, "1 row"), (named, "1 row")):
                page.locator(".st-key-score_upload input[type='file']").set_input_files(str(path))
                expect(page.get_by_text(marker, exact=False).first).to_be_visible(timeout=60_000)
                _settle(page)
                guard.check(page, path.name)
            page.locator(".st-key-gb_config_upload input[type='file']").set_input_files(str(bad_config))
            expect(page.get_by_text("Could not use the configuration", exact=False).first).to_be_visible(timeout=60_000)
            _settle(page)
            guard.check(page, "a configuration naming a hostile grader")
        finally:
            browser.close()


@pytest.mark.timeout(300)
def test_hostile_query_parameters_and_playground_text(server):
    """The pass-rate page takes its figures and label from the link; the playground shows
    what was typed (as pasted from a model) in its table of grades."""
    from playwright.sync_api import expect, sync_playwright

    with sync_playwright() as p:
        browser = _launch(p)
        try:
            context, guard = _guarded(browser, server)
            page = context.new_page()
            for query, marker in (
                (f"k={quote(hostile('k'))}&n=3&confidence={quote(hostile('conf'))}", "Cannot compute the interval"),
                (f"k=1&n=3&label={quote(hostile('label'))}", "1 of 3 pass"),
                (f"k=0&n=0&label={quote(hostile('none'))}", "no cases"),
            ):
                page.goto(f"{server}/pass_rate?{query}")
                _settle(page)
                expect(page.get_by_text(marker, exact=False).first).to_be_visible(timeout=60_000)
                guard.check(page, f"pass rate ?{query[:40]}")

            page.goto(f"{server}/playground")
            _settle(page)
            expect(page.get_by_text("Verdict").first).to_be_visible(timeout=60_000)
            page.locator(".st-key-gb_w_pg_expected textarea").fill(hostile("pg-expected"))
            page.locator(".st-key-gb_w_pg_output textarea").fill(json.dumps({"action": hostile("pg-output")}))
            page.locator(".st-key-gb_w_pg_output textarea").press("Tab")
            _settle(page)
            _eventually(lambda: page.get_by_text("pg-output-md-link", exact=False).first.wait_for(timeout=1000))
            guard.check(page, "playground")
        finally:
            browser.close()
