"""Deterministic data the demo, the tests and the benchmarks share: the nested ad-tech event log
(``adtech``), its deeply nested variant and analyst queries over it (``adtech_deep``,
``deep_queries``), and the VARIANT event log with its path queries (``variant_events``,
``variant_queries``)."""
