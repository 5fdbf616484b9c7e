"""End-to-end speed of `gradeboard score` on a generated results file.

    python bench/file_bench.py [--rows 200000] [--workers N] [--stages]

Writes ROWS generated rows (about 17 MB at 200,000: short answers, sentences, numbers and
JSON), then times, on the same rows, each run writing a new scored file:

* `gradeboard score` with all twelve graders configured (reading, scoring, writing);
* `gradeboard score` with the four cheap graders alone (exact, normalized, contains, numeric);
* the yardstick: sacrebleu.sentence_bleu plus sacrebleu.sentence_chrf over the rows, in one
  process (no reading or writing).

Targets (issue 3): twelve graders under 60% of the yardstick; the cheap four under 2 s; peak
memory under 2 GB (the largest process; worker processes are listed separately).

``--stages`` times the stages of one ``gradeboard score`` instead, in this process, for both
configurations: importing the command's modules (a fresh interpreter), reading, preparing,
scoring and writing (wall time, this process's CPU and the worker processes' CPU) and the
summary: where the end-to-end time goes.

``--floor`` times the cheap four as they are, alternated with the same command with the
near-miss probe and every explanation patched out (empty explanation cells, no near
misses: not a valid scored file, an experiment): the least the command could take here
if the probe and the explanations, which SPEC §4 and §6 require on every row, cost nothing.
"""

from __future__ import annotations

import argparse
import compileall
import csv
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from functools import partial
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from graders._testing import WORDS  # noqa: E402

ALL_TWELVE = {
    "graders": [
        {"name": "exact"}, {"name": "normalized"}, {"name": "contains"},
        {"name": "regex", "pattern": "\\d+", "at": "anywhere"},
        {"name": "numeric", "read": "last"},
        {"name": "json_schema", "schema": {"type": "object", "required": ["action"]}},
        {"name": "valid_json"}, {"name": "json_fields"}, {"name": "token_f1"},
        {"name": "bleu"}, {"name": "rouge_l"}, {"name": "chrf"},
    ],
    "overall": None,
}
CHEAP_FOUR = {"graders": [{"name": "exact"}, {"name": "normalized"}, {"name": "contains"}, {"name": "numeric", "read": "last"}]}


def _words(rng: random.Random, lo: int, hi: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(lo, hi)))


def row(rng: random.Random) -> tuple[str, str]:
    r = rng.random()
    if r < 0.45:  # short answers, often formatting variants
        exp = _words(rng, 1, 3)
        out = rng.choice([exp, exp.capitalize(), f" {exp}.", exp.upper(), _words(rng, 1, 3)])
    elif r < 0.75:  # sentences
        exp = _words(rng, 6, 16)
        words = exp.split()
        if rng.random() < 0.7 and len(words) > 2:
            words[rng.randrange(len(words))] = rng.choice(WORDS)
        out = " ".join(words) + rng.choice(["", ".", "!"])
    elif r < 0.9:  # numbers
        n = rng.choice([rng.randint(0, 999), round(rng.uniform(0, 5000), 2)])
        exp = f"{n}"
        out = rng.choice([f"The answer is {n}.", f"{n}", f"about {n + rng.choice([0, 1])} units"])
    else:  # JSON actions
        obj = {"action": rng.choice(["refund", "exchange", "deny"]), "order_id": f"A-{rng.randint(1, 9999)}"}
        exp = json.dumps(obj)
        out = rng.choice([exp, f"```json\n{exp}\n```", json.dumps({**obj, "order_id": rng.randint(1, 9999)})])
    return exp, out


def write_rows(path: Path, n: int, seed: int = 0) -> list[tuple[str, str]]:
    rng = random.Random(seed)
    pairs = [row(rng) for _ in range(n)]
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["id", "expected", "output", "version"])
        for i, (e, o) in enumerate(pairs):
            w.writerow([f"case-{i}", e, o, "bench-v1"])
    return pairs


# Runs one command and prints the largest RSS of it and its workers (KiB): each run measured
# alone, which RUSAGE_CHILDREN of this process, a running maximum, cannot tell.
_MEASURE = (
    "import resource, subprocess, sys; r = subprocess.run(sys.argv[1:], capture_output=True, text=True); "
    "sys.stderr.write(r.stderr); print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss); sys.exit(r.returncode)"
)


# Each timed run writes its scored file to a path that does not exist yet. Replacing a
# file is atomic (a rename), and the old file's blocks are freed then, on this disk (ext4
# mounted with discard) about 0.1 s per 200 MB, in the command's time. The cheap four
# used to replace the all-twelve run's 400 MB output, which timed the previous run's file
# too; the replacing run is printed separately instead.


def timed_cli(args: list[str]) -> tuple[float, float]:
    """(seconds, peak RSS MB of the largest process) of one `gradeboard` run."""
    t = time.perf_counter()
    r = subprocess.run([sys.executable, "-c", _MEASURE, sys.executable, "-m", "graders", *args], capture_output=True, text=True)
    dt = time.perf_counter() - t
    if r.returncode != 0:
        raise SystemExit(f"gradeboard failed: {r.stderr.strip()}")
    return dt, int(r.stdout.split()[-1]) / 1024


def _cpu() -> tuple[float, float]:
    """(this process's CPU seconds, its finished children's), user plus system."""
    import resource

    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime, kids.ru_utime + kids.ru_stime


def stages(data: Path, tmp: Path, workers: int | None) -> None:
    """The stage split of ``gradeboard score`` for each configuration (what ``cli.py`` runs)."""
    t = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import graders.cli, graders.pipeline"], check=True)
    print(f"import (a fresh interpreter)    {time.perf_counter() - t:6.2f} s")
    from graders.config import RunConfig
    from graders.pipeline import resolve_mapping
    from graders.readers.files import read_results
    from graders.scoring.parallel import default_workers, score_to_csv
    from graders.scoring.rows import prepare
    from graders.scoring.summary import summarize

    n_workers = workers or default_workers()
    for label, cfg_dict in (("all twelve", ALL_TWELVE), ("cheap four", CHEAP_FOUR)):
        print(f"{label} ({n_workers} workers): stage, wall, CPU here, CPU in the workers")
        config = RunConfig.from_dict(cfg_dict)
        marks = [(time.perf_counter(), *_cpu())]

        def mark(stage: str, marks: list = marks) -> None:
            now = (time.perf_counter(), *_cpu())
            wall, me, kids = (a - b for a, b in zip(now, marks[-1]))
            print(f"  {stage:<28} {wall:6.2f} s  {me:6.2f} s  {kids:6.2f} s")
            marks.append(now)

        file = read_results(data)
        mark("read")
        mapping = resolve_mapping(file, config)
        prepared = prepare(file, mapping, needs_expected=config.needs_expected)
        mark("prepare")
        scored = score_to_csv(prepared.rows, config, tmp / f"stages_{label.replace(' ', '_')}.csv", workers=n_workers)
        mark("score and write")
        summarize(scored, prepared.rows, graders=config.grader_names, left_out=prepared.left_out.to_dict(),
                  config=config.to_dict())
        mark("summary")
        del scored


def _run_without_probe_or_explanations(argv: list[str]) -> None:
    """``gradeboard score`` (``argv``) with the string graders' probe and the cheap four's
    explanations patched out, in this process (the forked workers inherit the patches)."""
    from graders import cli, registry
    from graders.metrics import contains, exact, normalized

    def no_probe(check, refs, outputs, **params):
        return [None] * len(outputs)

    for module in (exact, normalized, contains):
        module.probe_many = no_probe
    for name in CHEAP_FOUR_NAMES:
        spec = registry.REGISTRY[name]
        registry.REGISTRY[name] = replace(spec, batch=partial(spec.batch, explain=False))
    raise SystemExit(cli.main(argv))


CHEAP_FOUR_NAMES = tuple(g["name"] for g in CHEAP_FOUR["graders"])


def floor(data: Path, tmp: Path, workers: int | None, runs: int = 3) -> None:
    """The cheap four end to end, alternated with the same run without probe or explanations."""
    cpath = tmp / "cheap_four.json"
    cpath.write_text(json.dumps(CHEAP_FOUR))
    out = tmp / "out.csv"
    args = ["score", str(data), "--config", str(cpath), "--out", str(out), "--summary", str(tmp / "s.json")]
    args += [] if workers is None else ["--workers", str(workers)]
    commands = {
        "as it is": [sys.executable, "-m", "graders", *args],
        "no probe, no explanations": [sys.executable, __file__, "--run-without-probe-or-explanations", *args],
    }
    times: dict[str, list[float]] = {label: [] for label in commands}
    for _ in range(runs):
        for label, command in commands.items():
            out.unlink(missing_ok=True)  # each run writes a new file (see the note above timed_cli)
            t = time.perf_counter()
            subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
            times[label].append(time.perf_counter() - t)
    for label, ts in times.items():
        print(f"cheap four, {label:<26} {' '.join(f'{t:5.2f}' for t in ts)} s (best {min(ts):.2f} s; target < 2 s)")


def main() -> None:
    if sys.argv[1:2] == ["--run-without-probe-or-explanations"]:
        _run_without_probe_or_explanations(sys.argv[2:])
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=200_000)
    ap.add_argument("--workers", type=int, default=None)
    ap.add_argument("--stages", action="store_true", help="time the stages of one run instead")
    ap.add_argument("--floor", action="store_true", help="the cheap four with and without probe and explanations")
    args = ap.parse_args()
    # Bytecode as an installed package has it: pip compiles it at install, and an editable
    # install writes it on first import, unless PYTHONDONTWRITEBYTECODE is set (as on the
    # machine these targets are set on), when every run compiled graders/ again (60 ms).
    compileall.compile_dir(ROOT / "graders", quiet=1)
    if args.floor or args.stages:
        with tempfile.TemporaryDirectory() as tmp:
            data = Path(tmp) / "rows.csv"
            write_rows(data, args.rows)
            print(f"{args.rows} rows, {data.stat().st_size / 1e6:.1f} MB")
            (floor if args.floor else stages)(data, Path(tmp), args.workers)
        return
    import sacrebleu

    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        data = tmp / "rows.csv"
        pairs = write_rows(data, args.rows)
        size_mb = data.stat().st_size / 1e6
        print(f"{args.rows} rows, {size_mb:.1f} MB")
        extra = [] if args.workers is None else ["--workers", str(args.workers)]
        results = {}
        for label, cfg in (("all twelve", ALL_TWELVE), ("cheap four", CHEAP_FOUR)):
            cpath = tmp / f"{label.replace(' ', '_')}.json"
            cpath.write_text(json.dumps(cfg))
            command = ["score", str(data), "--config", str(cpath), "--out", str(tmp / f"{label.replace(' ', '_')}.csv"),
                       "--summary", str(tmp / "summary.json"), *extra]
            dt, peak = timed_cli(command)  # a new file (see the note above timed_cli)
            results[label] = dt
            print(f"gradeboard score, {label:<10}: {dt:7.2f} s   peak RSS {peak:7.0f} MB")
            if label == "cheap four":
                again, _ = timed_cli(command)
                print(f"  the same again, replacing the file it wrote: {again:.2f} s")
        bleu = sacrebleu.metrics.BLEU(effective_order=True)
        t = time.perf_counter()
        for e, o in pairs:
            sacrebleu.sentence_bleu(o, [e])
        t_bleu = time.perf_counter() - t
        t = time.perf_counter()
        for e, o in pairs:
            sacrebleu.sentence_chrf(o, [e])
        t_chrf = time.perf_counter() - t
        del bleu
        yard = t_bleu + t_chrf
        print(f"yardstick sacrebleu sentence_bleu {t_bleu:.2f} s + sentence_chrf {t_chrf:.2f} s = {yard:.2f} s")
        print(f"all twelve / yardstick = {results['all twelve'] / yard:.2f} (target < 0.60)")
        print(f"cheap four: {results['cheap four']:.2f} s (target < 2 s)")
        # Per-grader split, in this process, one worker.
        print("per-grader split (in-process, 1 worker, scoring only: no preparing, writing or summary):")
        from graders.config import RunConfig
        from graders.pipeline import resolve_mapping
        from graders.readers.files import read_results
        from graders.scoring.parallel import score_frame
        from graders.scoring.rows import prepare

        t = time.perf_counter()
        file = read_results(data)
        print(f"  read            {time.perf_counter() - t:6.2f} s")
        for g in ALL_TWELVE["graders"]:
            cfg = RunConfig.from_dict({"graders": [g]})
            rows = prepare(file, resolve_mapping(file, cfg), needs_expected=cfg.needs_expected).rows
            t = time.perf_counter()
            score_frame(rows, cfg, workers=1)
            print(f"  {g['name']:<15} {time.perf_counter() - t:6.2f} s")
    print(f"cores: {os.cpu_count()}")


if __name__ == "__main__":
    main()
