"""One call that turns the extension on for a SparkSession builder."""
from __future__ import annotations

from pyspark.sql import SparkSession

from . import settings
from .jar import EXTENSION_CLASS, build_jar
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
    --connect-server`` prints them)."""
    return {**extension_confs(), RELATION_PLUGINS: CONNECT_PLUGIN_CLASS}


def _append(existing: str | None, value: str) -> str:
    items = [i for i in (existing or "").split(",") if i.strip()]
    return ",".join(items if value in items else [*items, value])


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
    are appended. Extra keyword settings are extension confs without their prefix, for example
    ``configure(builder, strict=True)`` sets ``spark.pyspark_ext.strict=true`` (a key with dots:
    ``**{"variant.enabled": False}``). An unknown keyword fails, naming the nearest known one. A
    session already running without the extension fails here: ``getOrCreate`` would return it
    unchanged.
    """
    keys = {setting_key(name): value for name, value in settings_.items()}
    options = getattr(builder, "_options", {})
    if "spark.remote" not in options:
        refuse_running_session_without_extension()
    for key, value in extension_confs().items():
        builder = builder.config(key, _append(options.get(key), value))
    for key, value in keys.items():
        text = str(value).lower() if isinstance(value, bool) else str(value)
        builder = builder.config(key, text)
    return builder
