"""A Spark Connect server with the extension, started with the ``start-connect-server.sh`` that
ships inside pyspark, for as long as a ``with`` block runs. pyspark 3.5 from pip ships neither that
script nor the server's jar: there the server class runs through ``spark-submit``, its jar given
in ``spark.jars`` (``deps/spark-connect/spark-3.5/pom.xml``)."""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pyspark

STARTUP_TIMEOUT = 120
SERVER_CLASS = "org.apache.spark.sql.connect.service.SparkConnectServer"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("localhost", 0))
        return s.getsockname()[1]


def _answers(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(1)
        return s.connect_ex(("localhost", port)) == 0


@contextmanager
def connect_server(confs: dict[str, str], workdir: Path, master: str = "local[2]") -> Iterator[int]:
    """Start the server in the foreground (``--wait``) in its own process group, wait until its
    gRPC port answers, yield the port; stop the whole group afterwards. Its output goes to
    ``workdir/connect-server.log``, which a startup failure shows."""
    spark_home = os.path.dirname(pyspark.__file__)
    port = free_port()
    env = dict(os.environ)
    env.update(SPARK_HOME=spark_home, PYSPARK_PYTHON=sys.executable,
               # spark-daemon.sh keeps logs and a pid file per user and instance: ours are private,
               # so neither the package directory nor another server's pid file is touched.
               SPARK_LOG_DIR=str(workdir / "logs"), SPARK_PID_DIR=str(workdir / "pids"))
    env.pop("SPARK_REMOTE", None)
    env.pop("SPARK_CONNECT_MODE_ENABLED", None)
    settings = {**confs, "spark.connect.grpc.binding.port": str(port),
                "spark.ui.enabled": "false", "spark.ui.showConsoleProgress": "false"}
    script = Path(spark_home) / "sbin" / "start-connect-server.sh"
    if script.is_file():
        command = ["bash", str(script), "--wait", "--master", master]
    else:  # pyspark 3.5: spark-submit knows the class needs no application jar
        command = [f"{spark_home}/bin/spark-submit", "--class", SERVER_CLASS, "--master", master]
    for key, value in settings.items():
        command += ["--conf", f"{key}={value}"]
    log_path = workdir / "connect-server.log"
    with log_path.open("w") as log:
        proc = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + STARTUP_TIMEOUT
        while not _answers(port):
            if proc.poll() is not None or time.monotonic() > deadline:
                state = "timed out" if proc.poll() is None else f"exited with {proc.returncode}"
                raise RuntimeError(f"the Spark Connect server {state} before its port {port} "
                                   f"answered; its log ends:\n{log_path.read_text()[-6000:]}")
            time.sleep(0.5)
        yield port
    finally:
        _stop(proc)


def _stop(proc: subprocess.Popen) -> None:
    for sig, wait in ((signal.SIGTERM, 20), (signal.SIGKILL, 10)):
        if proc.poll() is not None:
            break
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            break
        try:
            proc.wait(timeout=wait)
        except subprocess.TimeoutExpired:
            continue
    # The JVM is a child in the same group; make sure none of the group outlives the block.
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
