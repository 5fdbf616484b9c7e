"""Make the Inspect log fixtures with Inspect itself, offline.

    .venv-inspect/bin/python fixtures/inspect/make_inspect_logs.py

Writes ``inspect_log.eval`` (zip, Zstandard members) and ``inspect_log.json`` (the same
run in Inspect's JSON log format) beside this script, plus ``inspect_log_truncated.eval``
(the ``.eval`` file cut in half) for the error tests. Model ``mockllm/model`` with
``custom_outputs`` as a function of the prompt, so each sample's answer is fixed whatever
order Inspect runs them in. Three samples (a string target, a list target, and a
chat-message input with an integer id and nested metadata), 2 epochs, scorers ``match()``
and ``includes()``: the JSON log stays under 100 KB. inspect-ai 0.3.285.
"""

from __future__ import annotations

import glob
import os
import shutil
import tempfile

from inspect_ai import Task, eval as inspect_eval
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessageSystem, ChatMessageUser, ModelOutput, ModelUsage, get_model
from inspect_ai.scorer import includes, match
from inspect_ai.solver import generate

HERE = os.path.dirname(os.path.abspath(__file__))

SAMPLES = [
    Sample(id="q1", input="What is 2+2? Answer with a number.", target="4",
           metadata={"topic": "arithmetic", "difficulty": 1, "verified": True}),
    Sample(id="q2", input="Name one primary colour.", target=["red", "blue", "yellow"],
           metadata={"topic": "colours", "difficulty": 2, "tags": ["any-of", "short"]}),
    Sample(id=3, input=[ChatMessageSystem(content="Answer in one sentence."),
                        ChatMessageUser(content='What is the capital of France? Say "Paris" if unsure.')],
           target="Paris", metadata={"topic": "geography", "difficulty": 1.5, "source": {"book": "atlas", "page": 12}}),
]

# The reply to each prompt (by a phrase in its last message).
ANSWERS = {
    "2+2": "The answer is 4",
    "primary colour": "Blue",
    "capital of France": 'The capital of France is "Paris".\tDone.',
}


def reply(messages, tools, tool_choice, config) -> ModelOutput:
    prompt = messages[-1].text
    text = next((a for key, a in ANSWERS.items() if key in prompt), "I do not know.")
    output = ModelOutput.from_content(model="mockllm/model", content=text)
    # Usage given, so mockllm does not count tokens with tiktoken (which downloads its
    # encodings: not possible offline).
    output.usage = ModelUsage(input_tokens=len(prompt.split()), output_tokens=len(text.split()),
                              total_tokens=len(prompt.split()) + len(text.split()))
    return output


def main() -> None:
    task = Task(dataset=MemoryDataset(SAMPLES, name="tiny"), solver=generate(),
                scorer=[match(), includes()], epochs=2, name="tiny_task")
    for fmt in ("eval", "json"):
        with tempfile.TemporaryDirectory() as tmp:
            model = get_model("mockllm/model", custom_outputs=reply)
            [log] = inspect_eval(task, model=model, log_dir=tmp, log_format=fmt, display="none")
            assert log.status == "success", log.error
            [path] = glob.glob(os.path.join(tmp, f"*.{fmt}"))
            shutil.copyfile(path, os.path.join(HERE, f"inspect_log.{fmt}"))
    with open(os.path.join(HERE, "inspect_log.eval"), "rb") as fh:
        data = fh.read()
    with open(os.path.join(HERE, "inspect_log_truncated.eval"), "wb") as fh:
        fh.write(data[: len(data) // 2])


if __name__ == "__main__":
    main()
