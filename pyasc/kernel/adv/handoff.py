"""The AIC -> AIV hand-off of a MIX Matmul kernel (cross-core flags)."""

from __future__ import annotations


def finish_core(t) -> None:
    """Close the hand-off at the end of a core's trace (set on the AIC once its matmuls are done)."""
    hook = t.cache.get("finish")
    if hook is not None:
        hook(t)
