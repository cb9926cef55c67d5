"""``asc.adv``: the high-level Matmul API."""
