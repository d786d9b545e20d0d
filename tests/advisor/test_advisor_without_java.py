"""The advisor needs no Spark and no Java (docs/advisor.md): ``advise`` without ``--sample`` runs
in a process that has no ``java`` on its path and no ``JAVA_HOME``, so starting a JVM would fail."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _without_java() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("JAVA_HOME", "SPARK_HOME", "PYSPARK_SUBMIT_ARGS")}
    java = shutil.which("java")
    folders = env.get("PATH", "").split(os.pathsep)
    if java is not None:
        real = {str(Path(java).parent), str(Path(java).resolve().parent)}
        folders = [f for f in folders if f not in real and not Path(f, "java").exists()]
    env["PATH"] = os.pathsep.join(folders)
    env["PYTHONPATH"] = str(ROOT)
    return env


def test_advise_runs_where_no_java_is_installed(tmp_path: Path) -> None:
    env = _without_java()
    assert shutil.which("java", path=env["PATH"]) is None
    workload = tmp_path / "workload.sql"
    workload.write_text("SELECT user.geo.city, v:price::decimal(10,2) FROM events WHERE id > 3;\n"
                        "SELECT count(*) FROM events WHERE v:user.name::string = 'a';\n")
    done = subprocess.run(
        [sys.executable, "-m", "pyspark_ext", "advise", "--queries", str(workload), "--format", "json",
         "--table", "events=id bigint, user struct<id: int, geo: struct<city: string>>, v variant"],
        env=env, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    assert doc["analysed"] == 2 and doc["failed"] == 0
    assert "user:struct<geo:struct<city:string>>" in doc["read_schemas"]["events"]
    assert {p["path"] for p in doc["variant_paths"]} == {"$.price", "$.user.name"}
