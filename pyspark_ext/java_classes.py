"""JVM classes by their full names, for the driver's py4j calls.

``spark._jvm.a.b.C`` asks the JVM for each dotted prefix in turn: ``a``, ``a.b``, then ``a.b.C``.
Each prefix that is a package and not a class is a class-loader miss, which searches every jar on
the classpath (Spark's alone are some 250). ``explain_read_schema`` made several such misses per
call. A class built from its full name goes straight to the class.
"""
from __future__ import annotations

from py4j.java_gateway import JavaClass, JVMView


def java_class(jvm: JVMView, name: str) -> JavaClass:
    """The class ``name`` (fully qualified) of ``jvm`` (a session's ``_jvm``)."""
    return JavaClass(name, jvm._gateway_client)
