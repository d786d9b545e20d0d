"""The first example of docs/producers.md, run as written, and the Spark work a small pipeline
costs: its jobs and tasks (through Spark's status tracker), never its time."""
from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.support.differential import confs

pytestmark = [pytest.mark.slow, pytest.mark.producers_lines]

DOCS = Path(__file__).resolve().parents[2] / "docs" / "producers.md"


def first_example() -> str:
    """The first Python block under "## Usage" of docs/producers.md."""
    usage = DOCS.read_text().split("\n## Usage\n", 1)[1]
    return re.search(r"```python\n(.*?)```", usage, re.S).group(1)


@dataclass
class Work:
    jobs: list[int] = field(default_factory=list)
    tasks: dict[int, int] = field(default_factory=dict)  # stage id -> its tasks


@contextmanager
def spark_work(spark) -> Iterator[Work]:
    """The jobs started in the block, from any thread (the pipeline writes stages side by side),
    and each of their stages' task counts."""
    tracker = spark.sparkContext.statusTracker()
    before = set(tracker.getJobIdsForGroup(None))
    work = Work()
    yield work
    work.jobs = sorted(set(tracker.getJobIdsForGroup(None)) - before)
    for job in work.jobs:
        for stage in tracker.getJobInfo(job).stageIds:
            info = tracker.getStageInfo(stage)
            if info is not None:
                work.tasks[stage] = info.numTasks


def test_the_first_example_runs_as_written_and_updates_one_key_among_many(spark, tmp_path):
    code = first_example()
    assert '"/data/pipelines/people"' in code
    scope = {"spark": spark}
    # Spark's default shuffle partitions (200), as a user's session has them, not the tests' 2
    with confs(spark, {"spark.sql.shuffle.partitions": "200"}), spark_work(spark) as work:
        exec(code.replace('"/data/pipelines/people"', repr(str(tmp_path / "people"))), scope)
    p = scope["p"]
    assert p.versions() == [2]  # the example vacuums version 1 at the end
    dupes = {}
    for key, value in p.content("dupes").collect():
        dupes.setdefault(key, []).append(value.id)
    # e0@x..e49@x have two people each (i and i + 250); person 7 moved from e7@x to e100@x
    want = {f"e{i}@x": [i, i + 250] for i in range(50) if i != 7}
    want["e100@x"] = [7, 100]
    assert {k: sorted(v) for k, v in dupes.items()} == want
    assert [(t, k) for t, k, _ in p.changes("dupes").collect()] == [
        ("Add", "e100@x"), ("Update", "e100@x"), ("Delete", "e7@x")]
    assert sorted(k for _, k, _ in p.changes("by_email").collect()) == [
        "e100@x", "e100@x", "e7@x"]
    assert len(p.content("people").collect()) == 300
    # The small-data pipeline's shape: a few tasks per stage (one per small file a scan reads,
    # or one for a shuffle), never one per shuffle partition (200 tasks each for the stages'
    # Produce), and a bounded number of small jobs for the run, the update and the reads.
    print(f"{len(work.jobs)} jobs, {len(work.tasks)} stages, {sum(work.tasks.values())} tasks")
    assert max(work.tasks.values()) <= 8, sorted(work.tasks.values())[-5:]
    assert sum(work.tasks.values()) <= 250, sum(work.tasks.values())
    assert len(work.jobs) <= 80, len(work.jobs)
