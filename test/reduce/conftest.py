"""Settings of the reduction tests: a private compilation cache (never the user's ~/.cache/pyasc)."""

import os
import tempfile

os.environ.setdefault("PYASC_CACHE_DIR", tempfile.mkdtemp(prefix="pyasc-reduce-test-cache-"))
