"""Deterministic data the demo, the tests and the benchmarks share: the nested ad-tech event log
(``adtech``), its deeply nested variant (``adtech_deep``; the analyst queries over it with their
expected read schemas are ``devtools.deep_queries``), and the VARIANT event log with its path queries (``variant_events``,
``variant_queries``)."""
