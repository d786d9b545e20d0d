"""Helpers shared by test modules: row normalisation (``rows``) and the variant test data both
layouts' tests read (``variant_data``). Test modules import from here, not from each other."""
