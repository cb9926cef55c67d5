"""``asc.lib.runtime``: the runtime calls the tutorials make (streams, devices). Launches are
synchronous here, so a stream is only a token."""

from __future__ import annotations


class Stream:
    """A stream token (``rt.current_stream()``)."""

    def __init__(self, device: int = 0):
        self.device = device

    def __repr__(self) -> str:
        return f"Stream(device={self.device})"


_STREAM = Stream()


def current_stream(device_id: int | None = None) -> Stream:
    return _STREAM


def create_stream(priority: int = 0) -> Stream:
    return Stream()


def destroy_stream(stream: Stream) -> None:
    pass


def synchronize(stream: Stream | None = None, timeout: int = 0) -> None:
    pass


def synchronize_device() -> None:
    pass


def current_device() -> int:
    return 0


def set_device(device_id: int) -> None:
    pass


def device_count() -> int:
    return 1


def is_available() -> bool:
    return True
