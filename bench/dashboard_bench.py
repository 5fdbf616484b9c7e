"""Speed of the Score page with 200,000 rows loaded (issue 5), through AppTest.

    python bench/dashboard_bench.py [--rows 200000]

Generates ROWS rows (bench/file_bench.py's generator: short answers, sentences, numbers,
JSON), then drives pages/score.py through ``streamlit.testing.v1.AppTest`` and times whole
script runs (what a user waits for after a click, minus the browser's drawing):

* first scoring of the cheap graders (exact, normalized, contains, numeric): the run after
  the upload — reading the file, preparing the rows, scoring in the worker processes
  (their explanations deferred: the page fills in those of the rows it shows,
  ``batch.explain_rows``), summarizing, charts (the workers' forkserver, started when the
  app opens, is waited for before the upload and its wait printed on its own);
* a filter change (show: near misses; one grader; a text search): no rescoring;
* a threshold change (token_f1 added with a threshold, then the threshold moved): only
  ``apply_thresholds`` for that grader.

* per-grader caching (issue 33): the file scored with three cheap graders (exact,
  normalized, numeric), then a fourth added (contains: only it is scored), then removed
  (nothing is scored);
* the results grid: the next page, a page past row 100,000, a sort by a score, a search;
  also ``grid.matching`` + ``grid.page_frame`` alone (what a page costs beside the rerun);
* Compare's first run on 200,000 wide pairs (id, expected, output, output_b) with the four
  cheap graders: ``compare_prepared`` with the arguments the page's ``cached_comparison``
  passes it (its workers and forkserver), not a browser.

Each figure is printed beside the same run's command-line time: ``gradeboard score`` of
the same file with the configuration the page then has, and ``gradeboard compare`` for
Compare. Targets: filter and threshold re-render < 1 s; first cheap scoring < 3 s; adding
one cheap grader < 2 s; removing one < 0.5 s; paging the grid < 0.5 s; Compare's first run
< 10 s. The machine may be shared: the load average is printed before and after.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from file_bench import CHEAP_FOUR, timed_cli, write_rows  # noqa: E402

THREE = {"graders": [g for g in CHEAP_FOUR["graders"] if g["name"] != "contains"], "overall": None}

WITH_F1 = {"graders": CHEAP_FOUR["graders"] + [{"name": "token_f1", "threshold": 0.5}], "overall": None}


def timed_run(at, label: str, results: dict[str, float]) -> float:
    t = time.perf_counter()
    at.run()
    dt = time.perf_counter() - t
    if at.exception:
        raise SystemExit(f"{label}: {at.exception[0].message}")
    errors = [e.value for e in at.error]
    if errors:
        raise SystemExit(f"{label}: {errors}")
    results[label] = dt
    print(f"  {label:<44} {dt:7.2f} s")
    return dt


def cli_seconds(data: Path, config: dict, tmp: Path, name: str, command: str = "score") -> float:
    """The same run's `gradeboard score` (or `compare`) time on ``data`` with ``config``."""
    cfg = tmp / f"{name}.json"
    cfg.write_text(json.dumps(config), encoding="utf-8")
    seconds, _ = timed_cli([command, str(data), "--config", str(cfg), "--out", str(tmp / f"{name}.out.csv")])
    return seconds


def write_wide(path: Path, n: int, seed: int = 0) -> None:
    """``n`` wide pairs: id, expected, output (A), output_b (B), from file_bench's rows."""
    import csv
    import random

    from file_bench import row

    rng = random.Random(seed)
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["id", "expected", "output", "output_b"])
        for i in range(n):
            exp, out = row(rng)
            w.writerow([f"case-{i}", exp, out, rng.choice([exp, out, exp.upper()])])


def compare_first_run(data: Path, config: dict) -> tuple[float, int]:
    """Compare's first run as the page makes it: ``compare_prepared`` with the arguments of
    ``ui.comparing.cached_comparison`` (its workers, its start method), after the page's
    read and prepare (timed too: the page does them before). (seconds, pairs)."""
    from graders.compare.comparison import compare_prepared
    from graders.config import RunConfig
    from graders.pipeline import resolve_mapping
    from graders.readers.files import read_results
    from graders.scoring.rows import prepare
    from ui import comparing

    run_config = RunConfig.from_dict(config)
    t = time.perf_counter()
    file = read_results(data.read_bytes())
    mapping = resolve_mapping(file, run_config)
    prepared = prepare(file, mapping, needs_expected=run_config.needs_expected)
    comparison = compare_prepared(prepared, run_config, mapping, resamples=2000, seed=0, workers=comparing.WORKERS,
                                  start_method=comparing.START_METHOD, primary=[run_config.grader_names[0]])
    dt = time.perf_counter() - t
    return dt, int(comparison.summary.get("pairs", 0) if isinstance(getattr(comparison, "summary", None), dict) else 0)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=200_000)
    ap.add_argument("--skip-compare", action="store_true", help="leave Compare's first run out")
    args = ap.parse_args()
    from streamlit.testing.v1 import AppTest

    from graders.readers.files import read_results
    from ui.present import grid as grid_mod

    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        data = tmp / "rows.csv"
        write_rows(data, args.rows)
        raw = data.read_bytes()
        t = time.perf_counter()
        read_results(raw)
        t_read = time.perf_counter() - t
        print(f"{args.rows:,} rows, {len(raw) / 1e6:.1f} MB; read_results alone {t_read:.2f} s; "
              f"cores {os.cpu_count()}, load average {os.getloadavg()[0]:.2f}")

        results: dict[str, float] = {}
        cli: dict[str, float] = {}
        at = AppTest.from_file(str(ROOT / "pages" / "score.py"), default_timeout=1800)
        at.run()  # the returns-desk sample
        at.file_uploader(key="gb_config_upload").set_value(
            ("cheap.json", json.dumps(CHEAP_FOUR).encode(), "application/json"))
        at.run()
        # The app starts its worker processes' forkserver in the background when it opens; a
        # user's upload comes seconds later. Wait for it here so that the upload run does not
        # count the server's start (printed on its own).
        from ui import scoring

        t = time.perf_counter()
        for thread in scoring._warming:
            thread.join()
        print(f"worker forkserver ready {time.perf_counter() - t:.2f} s after the sample's run")
        print("Score page, AppTest script runs:")
        at.file_uploader(key="score_upload").set_value((data.name, raw, "text/csv"))
        timed_run(at, "first scoring, cheap four (upload run)", results)
        view = at.session_state["gb_view"]
        print(f"    {sum(len(p) for p in view['parts'].values()):,} scored rows")
        cli["first scoring, cheap four (upload run)"] = cli_seconds(data, CHEAP_FOUR, tmp, "four")

        runs = at.session_state["gb_score_count"]
        at.multiselect(key="gb_w_score_filter_kinds").set_value(["near misses"])
        timed_run(at, "filter change: show near misses", results)
        at.multiselect(key="gb_w_score_filter_graders").set_value(["normalized"])
        timed_run(at, "filter change: one grader", results)
        at.text_input(key="gb_w_score_filter_text").input("refund")
        timed_run(at, "filter change: text search", results)
        at.text_input(key="gb_w_score_filter_text").input("")
        at.multiselect(key="gb_w_score_filter_kinds").set_value(["failures"])
        at.multiselect(key="gb_w_score_filter_graders").set_value([])
        timed_run(at, "filter change: back to failures, every grader", results)
        assert at.session_state["gb_score_count"] == runs, "a filter change rescored"

        # The results grid, paged over the whole file.
        at.number_input(key="gb_w_grid_page").set_value(2)
        timed_run(at, "grid: next page (rows 101-200)", results)
        last = (args.rows + grid_mod.PAGE_ROWS - 1) // grid_mod.PAGE_ROWS
        at.number_input(key="gb_w_grid_page").set_value(min(last, 1001))
        timed_run(at, "grid: page 1,001 (past row 100,000)", results)
        at.selectbox(key="gb_w_grid_sort").set_value(grid_mod.score_column("numeric"))
        timed_run(at, "grid: sort by numeric's score (first time)", results)
        at.number_input(key="gb_w_grid_page").set_value(3)
        timed_run(at, "grid: page 3 of the sorted rows", results)
        at.text_input(key="gb_w_grid_search").input("refund")
        timed_run(at, "grid: search 'refund'", results)
        at.text_input(key="gb_w_grid_search").input("")
        at.selectbox(key="gb_w_grid_sort").set_value(grid_mod.FILE_ORDER)
        timed_run(at, "grid: back to every row, file order", results)
        assert at.session_state["gb_score_count"] == runs, "the grid rescored"
        grid = at.session_state["gb_view"]["grid"]
        query = grid_mod.GridQuery(sort=grid_mod.score_column("exact"), descending=True, verdicts=("fail",))
        t = time.perf_counter()
        shown = grid_mod.page_frame(grid, grid_mod.page_positions(grid_mod.matching(grid, query), 500))
        dt = time.perf_counter() - t
        print(f"  {'grid functions alone: new sort + filter, page 500':<44} {dt:7.2f} s ({len(shown)} rows)")
        results["grid functions alone"] = dt

        # Per-grader caching: three cheap graders, then a fourth added and removed.
        at.file_uploader(key="gb_config_upload").set_value(
            ("three.json", json.dumps(THREE).encode(), "application/json"))
        timed_run(at, "(setup) three cheap graders: all cached", results)
        runs, graded = at.session_state["gb_score_count"], at.session_state.get("gb_graders_scored", 0)
        at.session_state["gb_pieces"] = {k: p for k, p in at.session_state["gb_pieces"].items() if p.name != "contains"}
        at.multiselect(key="gb_w_score_graders").set_value([*at.multiselect(key="gb_w_score_graders").value, "contains"])
        timed_run(at, "add one cheap grader (contains)", results)
        assert (at.session_state["gb_score_count"], at.session_state["gb_graders_scored"]) == (runs + 1, graded + 1), \
            "adding a grader scored more than that grader"
        cli["add one cheap grader (contains)"] = cli["first scoring, cheap four (upload run)"]
        at.multiselect(key="gb_w_score_graders").set_value([g["name"] for g in THREE["graders"]])
        timed_run(at, "remove one grader (contains)", results)
        assert at.session_state["gb_score_count"] == runs + 1, "removing a grader rescored"
        cli["remove one grader (contains)"] = cli_seconds(data, THREE, tmp, "three")
        for k in [k for k in results if k.startswith("grid")]:
            cli[k] = cli["first scoring, cheap four (upload run)"]

        at.file_uploader(key="gb_config_upload").set_value(
            ("f1.json", json.dumps(WITH_F1).encode(), "application/json"))
        timed_run(at, "(setup) add token_f1, threshold 0.5: scoring it", results)
        runs = at.session_state["gb_score_count"]
        at.number_input(key="gb_w_score_token_f1_threshold").set_value(0.7)
        timed_run(at, "threshold change: token_f1 0.5 -> 0.7", results)
        at.number_input(key="gb_w_score_token_f1_threshold").set_value(0.3)
        timed_run(at, "threshold change: token_f1 0.7 -> 0.3", results)
        at.number_input(key="gb_w_score_token_f1_threshold").set_value(0.7)
        timed_run(at, "threshold change: back to 0.7 (memoized)", results)
        assert at.session_state["gb_score_count"] == runs, "a threshold change rescored"
        with_f1 = {**WITH_F1, "graders": [{**g, "threshold": 0.7} if g["name"] == "token_f1" else g for g in WITH_F1["graders"]]}
        cli_f1 = cli_seconds(data, with_f1, tmp, "f1")
        for k in [k for k in results if k.startswith("threshold")]:
            cli[k] = cli_f1
        del at

        if not args.skip_compare:
            wide = tmp / "wide.csv"
            write_wide(wide, args.rows)
            seconds, _ = compare_first_run(wide, CHEAP_FOUR)
            results["Compare's first run, cheap four"] = seconds
            cli["Compare's first run, cheap four"] = cli_seconds(wide, CHEAP_FOUR, tmp, "compare", "compare")
            print(f"  {'Compare: first run, ' + format(args.rows, ',') + ' wide pairs, cheap four':<44} {seconds:7.2f} s")

    print(f"load average now {os.getloadavg()[0]:.2f}")
    print("Beside the command line (the same run, the same file and configuration):")
    for k, v in results.items():
        if k in cli:
            print(f"  {k:<48} {v:6.2f} s   gradeboard {cli[k]:6.2f} s")
    filters = [v for k, v in results.items() if k.startswith("filter")]
    thresholds = [v for k, v in results.items() if k.startswith("threshold")]
    paging = [v for k, v in results.items() if k.startswith("grid:") and "page" in k]
    first = results["first scoring, cheap four (upload run)"]
    print("Targets:")

    def target(what: str, value: float, limit: float) -> None:
        print(f"  {what:<28} {value:6.2f} s  (target < {limit:g} s)  {'ok' if value < limit else 'MISSED'}")

    target("filter re-render, worst", max(filters), 1)
    target("threshold re-render, worst", max(thresholds), 1)
    target("first cheap scoring", first, 3)
    target("add one cheap grader", results["add one cheap grader (contains)"], 2)
    target("remove one grader", results["remove one grader (contains)"], 0.5)
    target("grid paging, worst", max(paging), 0.5)
    if "Compare's first run, cheap four" in results:
        target("Compare's first run", results["Compare's first run, cheap four"], 10)


if __name__ == "__main__":
    main()
