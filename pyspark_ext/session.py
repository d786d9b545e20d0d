"""One call that turns the extension on for a SparkSession builder, and the local session the
demo, the dev tools, the benchmarks and the tests start with it."""
from __future__ import annotations

import os
import sys
from collections.abc import Mapping

import pyspark
from pyspark.sql import SparkSession

from . import settings
from .jar import EXTENSION_CLASS, build_jar, carries_connect_plugin
from .loaded import check_jar, refuse_running_session_without_extension

# The Spark Connect server's list of relation plugins, and the extension's.
RELATION_PLUGINS = "spark.connect.extensions.relation.classes"
CONNECT_PLUGIN_CLASS = "pysparkext.connect.ExplainReadSchemaPlugin"


def extension_confs() -> dict[str, str]:
    """The Spark settings that load the extension, building the jar first if needed."""
    return {"spark.jars": str(check_jar(build_jar())), "spark.sql.extensions": EXTENSION_CLASS}


def connect_server_confs() -> dict[str, str]:
    """``configure`` for a Spark Connect server: the settings that load the extension, plus the
    relation plugin through which Connect clients get ``explain_read_schema``. Pass them to
    ``start-connect-server.sh`` as ``--conf key=value`` (``python -m pyspark_ext conf
    --connect-server`` prints them). On Spark 3.5 the jar has no relation plugin
    (``jar.carries_connect_plugin``): the server gets the extension's rules, and its clients no
    ``explain_read_schema``, which is said once on stderr."""
    if not carries_connect_plugin():
        print(f"pyspark-ext: the Spark Connect relation plugin (explain_read_schema for Connect "
              f"clients) is not in the jar for Spark {pyspark.__version__}: pyspark 3.5 ships no "
              "spark-connect jar to build it against; the server still runs the extension's rules",
              file=sys.stderr)
        return extension_confs()
    return {**extension_confs(), RELATION_PLUGINS: CONNECT_PLUGIN_CLASS}


#: Session extensions that plan table scans in the optimizer's "Pre CBO Rules" batch, where the
#: extension's rules run too. Rules of one batch run in the order of ``spark.sql.extensions``:
#: the extension goes ahead of these, so that the format plans its scan with the columns and
#: filters the extension leaves (Delta otherwise lists the table's files again during the query).
PLAN_SCANS_IN_PRE_CBO = ("io.delta.sql.DeltaSparkSessionExtension",)


def _add(existing: str | None, value: str, ahead_of: tuple[str, ...] = ()) -> str:
    """The comma-separated list ``existing`` with ``value`` added: just ahead of the first item in
    ``ahead_of``, else at the end. A list that has it already is kept as it is."""
    items = [i.strip() for i in (existing or "").split(",") if i.strip()]
    if value in items:
        return ",".join(items)
    at = next((n for n, item in enumerate(items) if item in ahead_of), len(items))
    return ",".join([*items[:at], value, *items[at:]])


def setting_key(name: str) -> str:
    """The conf key of a ``configure`` keyword: ``strict`` is ``spark.pyspark_ext.strict``. An
    unknown name fails, naming the nearest known one."""
    key = settings.PREFIX + name
    if key not in settings.KEYS and key not in settings.RENAMED:
        nearest = settings.nearest(key)
        raise ValueError(f"configure: unknown setting {name!r} ({key}); did you mean "
                         f"{nearest.removeprefix(settings.PREFIX)!r} ({nearest})? "
                         "docs/configuration.md lists them all")
    return key


def configure(builder: SparkSession.Builder, **settings_: str | bool | int) -> SparkSession.Builder:
    """Return ``builder`` with the extension jar and ``spark.sql.extensions`` set.

    Values already on the builder for ``spark.jars`` and ``spark.sql.extensions`` are kept; ours
    are appended, except that the extension's class goes ahead of Delta Lake's
    (``PLAN_SCANS_IN_PRE_CBO``; docs/table-formats.md says why). Extra keyword settings are
    extension confs without their prefix, for example ``configure(builder, strict=True)`` sets
    ``spark.pyspark_ext.strict=true`` (a key with dots: ``**{"variant.enabled": False}``). An
    unknown keyword fails, naming the nearest known one. A value that is not of its setting's
    type, given here or already on the builder, fails here, naming the key, the value and the
    values the setting takes. A session already running without the extension fails here:
    ``getOrCreate`` would return it unchanged.
    """
    keys = {setting_key(name): _text(value) for name, value in settings_.items()}
    options = getattr(builder, "_options", {})
    given = {**{k: str(v) for k, v in options.items() if k.startswith(settings.PREFIX)}, **keys}
    bad = [why for key, value in given.items() if (why := settings.bad_value(key, value))]
    if bad:
        raise ValueError(f"configure: {'; '.join(bad)} (docs/configuration.md lists the settings)")
    if "spark.remote" not in options:
        refuse_running_session_without_extension()
    for key, value in extension_confs().items():
        ahead_of = PLAN_SCANS_IN_PRE_CBO if key == "spark.sql.extensions" else ()
        builder = builder.config(key, _add(options.get(key), value, ahead_of))
    for key, text in keys.items():
        builder = builder.config(key, text)
    return builder


def _text(value: str | bool | int) -> str:
    """A keyword value as Spark reads it: Python's ``True`` is ``true``."""
    return str(value).lower() if isinstance(value, bool) else str(value)


#: What every local session of the package's own tools and tests starts with: no web UI (it takes a
#: port per session and nobody looks at it) and no console progress bar (it garbles their output).
LOCAL_CONFS = {"spark.ui.enabled": "false", "spark.ui.showConsoleProgress": "false"}


def local_builder(app_name: str, *, master: str = "local[2]", shuffle_partitions: int | None = 2,
                  confs: Mapping[str, str] | None = None, extension: bool = True, strict: bool = False,
                  hive: bool = False) -> SparkSession.Builder:
    """The builder of a local session: ``LOCAL_CONFS``, ``shuffle_partitions`` (None: Spark's
    default), then ``confs``, Hive's catalog if ``hive``, and the extension (``configure``, in
    strict mode if ``strict``) unless ``extension`` is False. ``confs`` may set ``spark.jars`` and
    ``spark.sql.extensions``: ``configure`` adds to them. Python workers run this interpreter,
    unless ``PYSPARK_PYTHON`` says otherwise."""
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    partitions = {} if shuffle_partitions is None else {"spark.sql.shuffle.partitions": str(shuffle_partitions)}
    builder = SparkSession.builder.master(master).appName(app_name)
    for key, value in {**LOCAL_CONFS, **partitions, **(confs or {})}.items():
        builder = builder.config(key, value)
    if hive:
        builder = builder.enableHiveSupport()
    if not extension:
        return builder
    return configure(builder, strict=True) if strict else configure(builder)


def local_session(app_name: str, *, log_level: str | None = "ERROR", master: str = "local[2]",
                  shuffle_partitions: int | None = 2, confs: Mapping[str, str] | None = None,
                  extension: bool = True, strict: bool = False, hive: bool = False) -> SparkSession:
    """``local_builder``'s session, started (or the running one, which ``configure`` checks has
    the extension), logging at ``log_level`` (None: as Spark's log4j settings say)."""
    spark = local_builder(app_name, master=master, shuffle_partitions=shuffle_partitions, confs=confs,
                          extension=extension, strict=strict, hive=hive).getOrCreate()
    if log_level is not None:
        spark.sparkContext.setLogLevel(log_level)
    return spark
