"""Where a pipeline keeps its versions, and how a version is committed.

Layout under the pipeline's directory (local path, ``hdfs://`` or an object store URI)::

    _versions/00000003.json          committed manifests; a version exists iff its manifest does
    _lease.json                      held while a run or vacuum works on the pipeline
    v00000003/<stage>/content/       files written while making version 3 (some carried into 4+)
    v00000003/<stage>/key_mappings/
    v00000003/<stage>/update/
    v00000003/<stage>/_staging/      Produce's output and the old mappings it replaces (scratch)

A manifest lists, per stage, the files of content, key_mappings and update in key order with each
file's rows and first/last key. Files are immutable; version N+1's manifest may list files of
version N unchanged (carried over), so a file belongs to every version whose manifest names it.
Committing is one exclusive creation of ``_versions/N.json`` (write a temp file, then hard-link it
into place on local disks, or ``FileSystem.rename`` through Hadoop elsewhere; both fail if the
name exists). Anything not named by a committed manifest is invisible and ``vacuum`` removes it.
"""
from __future__ import annotations

import json
import os
import socket
import time
import uuid
from dataclasses import dataclass
from typing import Any

import pyarrow.fs as pafs

from .errors import ProducerError

VERSIONS = "_versions"
LEASE = "_lease.json"


def version_dir(n: int) -> str:
    return f"v{n:08d}"


@dataclass(frozen=True)
class Store:
    """A pipeline directory, usable on the driver and (pickled) in Python workers."""
    root: str

    @staticmethod
    def at(path: str) -> "Store":
        if "://" not in path and not path.startswith("file:"):
            path = os.path.abspath(path)
        return Store(path.rstrip("/"))

    @property
    def local(self) -> bool:
        return "://" not in self.root and not self.root.startswith("file:")

    def fs(self) -> tuple[pafs.FileSystem, str]:
        if self.local:
            return pafs.LocalFileSystem(), self.root
        return pafs.FileSystem.from_uri(self.root)

    def path(self, rel: str) -> str:
        """The filesystem path of ``rel`` for ``self.fs()``."""
        return f"{self.fs()[1]}/{rel}"

    def uri(self, rel: str) -> str:
        """``rel`` as Spark (Hadoop) reads it."""
        return f"file://{self.root}/{rel}" if self.local else f"{self.root}/{rel}"

    # -- reading --------------------------------------------------------------------------------

    def read_text(self, rel: str) -> str | None:
        fs, base = self.fs()
        try:
            with fs.open_input_stream(f"{base}/{rel}") as f:
                return f.read().decode()
        except (FileNotFoundError, OSError):
            return None

    def list(self, rel: str) -> list[pafs.FileInfo]:
        fs, base = self.fs()
        try:
            return fs.get_file_info(pafs.FileSelector(f"{base}/{rel}", recursive=False))
        except (FileNotFoundError, OSError):
            return []

    def versions(self) -> list[int]:
        out = []
        for info in self.list(VERSIONS):
            name = info.base_name
            if name.endswith(".json") and name[:-5].isdigit():
                out.append(int(name[:-5]))
        return sorted(out)

    def manifest(self, n: int) -> dict[str, Any]:
        text = self.read_text(f"{VERSIONS}/{n:08d}.json")
        if text is None:
            raise ProducerError(f"pipeline {self.root} has no version {n} "
                                f"(committed versions: {self.versions() or 'none'})")
        return json.loads(text)

    # -- writing --------------------------------------------------------------------------------

    def create_exclusive(self, rel: str, text: str) -> bool:
        """Create ``rel`` with ``text`` unless it exists; True if this call created it. Atomic:
        readers see no file or the whole file."""
        fs, base = self.fs()
        fs.create_dir(os.path.dirname(f"{base}/{rel}"), recursive=True)
        tmp = f"{base}/{rel}.{uuid.uuid4().hex}.tmp"
        with fs.open_output_stream(tmp) as f:
            f.write(text.encode())
        try:
            if self.local:
                try:
                    os.link(tmp, f"{base}/{rel}")
                    return True
                except FileExistsError:
                    return False
            return _hadoop_rename(self.uri(os.path.relpath(tmp, base)), self.uri(rel))
        finally:
            fs.delete_file(tmp)

    def delete(self, rel: str) -> None:
        fs, base = self.fs()
        info = fs.get_file_info(f"{base}/{rel}")
        if info.type == pafs.FileType.Directory:
            fs.delete_dir(f"{base}/{rel}")
        elif info.type == pafs.FileType.File:
            fs.delete_file(f"{base}/{rel}")

    def commit(self, n: int, manifest: dict[str, Any]) -> None:
        if not self.create_exclusive(f"{VERSIONS}/{n:08d}.json", json.dumps(manifest, indent=1)):
            raise ProducerError(f"pipeline {self.root}: version {n} was committed by another run "
                                "meanwhile; this run's files are left uncommitted (vacuum them)")


def _hadoop_rename(src: str, dst: str) -> bool:
    """Hadoop's rename fails (returns False) when ``dst`` exists: an exclusive publish on HDFS and
    on object-store connectors that implement it."""
    from pyspark.sql import SparkSession

    from ..java_classes import java_class
    spark = SparkSession.getActiveSession()
    hadoop_path = java_class(spark.sparkContext._jvm, "org.apache.hadoop.fs.Path")
    conf = spark.sparkContext._jsc.hadoopConfiguration()
    path = hadoop_path(dst)
    fs = path.getFileSystem(conf)
    return bool(fs.rename(hadoop_path(src), path))


# -- the lease ----------------------------------------------------------------------------------

def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def lease_holder(store: Store) -> dict[str, Any] | None:
    text = store.read_text(LEASE)
    return None if text is None else json.loads(text)


def stale(holder: dict[str, Any]) -> bool:
    """A lease is stale when its owner ran on this host and that process is gone (a crash)."""
    return holder.get("host") == socket.gethostname() and not _pid_alive(int(holder["pid"]))


def acquire(store: Store, purpose: str) -> dict[str, Any]:
    """Take the pipeline's lease, breaking a stale one; a live holder -> ProducerError."""
    me = {"host": socket.gethostname(), "pid": os.getpid(), "token": uuid.uuid4().hex,
          "since": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "purpose": purpose}
    for _ in range(2):
        if store.create_exclusive(LEASE, json.dumps(me)):
            return me
        holder = lease_holder(store)
        if holder is None:
            continue
        if stale(holder):
            import logging
            logging.getLogger(__name__).warning(
                "pipeline %s: breaking the stale lease of crashed run %s (pid %s on %s, %s)",
                store.root, holder.get("purpose"), holder.get("pid"), holder.get("host"),
                holder.get("since"))
            store.delete(LEASE)
            continue
        raise ProducerError(
            f"pipeline {store.root} is busy: {holder.get('purpose')} by pid {holder.get('pid')} "
            f"on {holder.get('host')} since {holder.get('since')}. Nothing was changed. If that "
            f"run is dead (e.g. on another host), call Pipeline.break_lease() or delete "
            f"{store.root}/{LEASE}")
    raise ProducerError(f"pipeline {store.root}: could not take the lease")


def release(store: Store, lease: dict[str, Any]) -> None:
    holder = lease_holder(store)
    if holder is not None and holder.get("token") == lease["token"]:
        store.delete(LEASE)


# -- vacuum -------------------------------------------------------------------------------------

def referenced(manifest: dict[str, Any]) -> set[str]:
    out = set()
    for stage in manifest["stages"].values():
        for kind in ("content", "key_mappings", "update"):
            out.update(f["path"] for f in stage[kind])
    return out


def vacuum(store: Store, keep: int = 1) -> dict[str, int]:
    """Drop all but the newest ``keep`` versions and every file no kept manifest names
    (uncommitted leftovers of crashed runs included). The caller holds the lease."""
    versions = store.versions()
    kept = versions[-keep:] if keep > 0 else []
    for n in versions:
        if n not in kept:
            store.delete(f"{VERSIONS}/{n:08d}.json")
    live = set()
    for n in kept:
        live |= referenced(store.manifest(n))
    fs, base = store.fs()
    removed = 0
    for info in store.list(""):
        if info.type != pafs.FileType.Directory or not info.base_name.startswith("v"):
            continue
        files = fs.get_file_info(pafs.FileSelector(info.path, recursive=True))
        dead = [f for f in files if f.type == pafs.FileType.File
                and os.path.relpath(f.path, base) not in live]
        if len(dead) == sum(f.type == pafs.FileType.File for f in files):
            fs.delete_dir(info.path)
        else:
            for f in dead:
                fs.delete_file(f.path)
        removed += len(dead)
    for info in store.list(VERSIONS):
        if info.base_name.endswith(".tmp"):
            fs.delete_file(info.path)
    return {"versions_dropped": len(versions) - len(kept), "files_removed": removed}
