"""Conformance harness for the Parquet project's shredded-variant test files (parquet-testing's
``shredded_variant`` directory), read in place from ``tests.support.conformance.cases.CONFORMANCE_DIR``.

``cases`` loads and decodes the cases, ``run`` is the command-line runner
(``python -m tests.support.conformance.run [--extension]``) and ``tests/variant_read/test_conformance.py`` the pytest
module. See README.md in this directory.
"""
