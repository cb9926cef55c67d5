"""The user-facing runtime, gathered in one place: streams and events (``streams.py``), device
memory (``memory.py``) and the profiler (``profiling.py``); see those modules."""

from .memory import (MemoryPool, check_fits, empty_cache, max_memory_allocated, memory_allocated, memory_allocator,
                     memory_release, memory_reserved, memory_stats, reset_peak_memory_stats, set_memory_capacity,
                     track_tensor)
from .profiling import LaunchRecord, OpRecord, Profiler, ProfileSummary, profiler
from .streams import Event, Stream, copy, current_stream, default_stream, launch, stream, synchronize

__all__ = ["Event", "LaunchRecord", "MemoryPool", "OpRecord", "check_fits", "ProfileSummary", "Profiler", "Stream", "copy",
           "current_stream", "default_stream", "empty_cache", "launch", "max_memory_allocated", "memory_allocated",
           "memory_allocator", "memory_release", "memory_reserved", "memory_stats", "profiler",
           "reset_peak_memory_stats", "set_memory_capacity", "stream", "synchronize", "track_tensor"]
