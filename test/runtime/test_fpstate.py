"""``runtime.fpstate``: a simulated run ignores NumPy's floating-point errors as ``np.errstate(all="ignore")``
does, and gives the caller's own error state back."""

import numpy as np
import pytest

from pyasc.runtime import fpstate


def test_quiet_ignores_every_error_and_restore_gives_the_state_back():
    with np.errstate(divide="raise", over="warn", invalid="call", under="ignore", call=lambda *a: None):
        before = np.geterr()
        token = fpstate.quiet()
        with np.errstate(all="ignore"):
            expected = np.geterr()
        assert np.geterr() == expected
        assert np.float32(1.0) / np.float32(0.0) == np.inf  # no FloatingPointError while quiet
        fpstate.restore(token)
        assert np.geterr() == before
        with pytest.raises(FloatingPointError):
            np.float32(1.0) / np.float32(0.0)


def test_quiet_follows_the_state_in_force_each_time():
    token = fpstate.quiet()
    fpstate.restore(token)
    with np.errstate(divide="raise"):
        token = fpstate.quiet()
        assert np.geterr()["divide"] == "ignore"
        fpstate.restore(token)
        assert np.geterr()["divide"] == "raise"
    with np.errstate(over="raise"):
        token = fpstate.quiet()
        big = np.float32(3e38) * np.float32(10.0)
        fpstate.restore(token)
        assert big == np.inf and np.geterr()["over"] == "raise"
