"""Make lm-evaluation-harness ``samples_*.jsonl`` fixtures with lm-eval itself, offline.

    .venv-lmeval/bin/python fixtures/lm_eval/make_lm_eval_samples.py

lm-eval 0.4.13. The tasks in ``tasks/`` read local JSON lines (no hub download); the model
is ``FixedLM`` below, a registered ``LM`` that answers from a table (no weights). The
run goes through ``simple_evaluate`` and ``EvaluationTracker`` as the ``lm_eval`` command
does with ``--log_samples --output_path``, so the files are lm-eval's own writing. They
are copied here as ``samples_gsm8k_mini.jsonl`` and ``samples_arc_mini.jsonl`` (the date
in lm-eval's name dropped so the fixture names are stable).
"""

from __future__ import annotations

import glob
import os
import shutil
import tempfile

from lm_eval import simple_evaluate
from lm_eval.api.model import LM
from lm_eval.loggers import EvaluationTracker
from lm_eval.tasks import TaskManager

HERE = os.path.dirname(os.path.abspath(__file__))

# Completions by a phrase of the question: one strict-match answer, one that only the
# flexible filter reads, one wrong.
COMPLETIONS = {
    "apples": " Tom has 3 + 4 = 7 apples.\n#### 7",
    "book costs": " Three books cost $36.",
    "Sara ran": " She ran 1,200 + 1,300 = 2,400 meters.\n#### 2,400",
}
# Log-likelihood of each continuation, by its text (greedy flag False throughout).
LOGLIKELIHOODS = {" oxygen": -2.5, " carbon dioxide": -1.25, " nitrogen": -3.0, " helium": -4.0,
                  " 50": -2.0, " 90": -1.5, " 100": -1.75}


class FixedLM(LM):
    def generate_until(self, requests, disable_tqdm: bool = False):
        out = []
        for req in requests:
            context = req.args[0]
            out.append(next((c for k, c in COMPLETIONS.items() if k in context), " I don't know."))
        return out

    def loglikelihood(self, requests, disable_tqdm: bool = False):
        return [(LOGLIKELIHOODS.get(req.args[1], -9.0), False) for req in requests]

    def loglikelihood_rolling(self, requests, disable_tqdm: bool = False):
        return [-1.0 for _ in requests]


def main() -> None:
    os.chdir(os.path.join(HERE, "tasks"))  # the tasks name their data files relative to here
    tm = TaskManager(include_path=os.path.join(HERE, "tasks"))
    with tempfile.TemporaryDirectory() as tmp:
        tracker = EvaluationTracker(output_path=tmp)
        results = simple_evaluate(model=FixedLM(), tasks=["gsm8k_mini", "arc_mini"], task_manager=tm,
                                  log_samples=True, evaluation_tracker=tracker, bootstrap_iters=0)
        samples = results.pop("samples")
        tracker.save_results_aggregated(results=results, samples=samples)
        for task_name in samples:
            tracker.save_results_samples(task_name=task_name, samples=samples[task_name])
        for path in glob.glob(os.path.join(tmp, "**", "samples_*.jsonl"), recursive=True):
            task = os.path.basename(path).split("_20")[0]  # samples_<task>_<date>.jsonl
            shutil.copyfile(path, os.path.join(HERE, task + ".jsonl"))


if __name__ == "__main__":
    main()
