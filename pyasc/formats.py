"""Storage formats (layout tags) of tensors: ``ND``, ``NCHW``, ``NHWC``, ``FRACTAL_NZ`` and
``FRACTAL_Z``.

The format is metadata, as ``torch_npu``'s ``npu_format_cast`` records it: pyasc always stores
and computes on the logical (row-major) shape, so a format never changes values or the shape a
program sees. It is checked against the rank and carried to the results of elementwise ops:

* ``NCHW`` / ``NHWC``: 4 dimensions, or 3 for one image without its batch dimension (``CHW`` /
  ``HWC``, N = 1), as the documentation's ``ones((16, 32, 32), format="NCHW")`` uses it;
* ``FRACTAL_NZ``: at least 2 dimensions (matrices, tiled 16 x 16 for the cube);
* ``FRACTAL_Z``: 4 dimensions (a convolution weight ``(Cout, Cin, kH, kW)``, the cube's weight
  layout).
"""

from __future__ import annotations

from enum import Enum

from .errors import PyascError, describe


class Format(str, Enum):
    ND = "ND"
    NCHW = "NCHW"
    NHWC = "NHWC"
    FRACTAL_NZ = "FRACTAL_NZ"
    FRACTAL_Z = "FRACTAL_Z"

    def __str__(self) -> str:
        return self.value

    __repr__ = lambda self: f"pyasc.{self.value}"  # noqa: E731


ND, NCHW, NHWC, FRACTAL_NZ, FRACTAL_Z = Format.ND, Format.NCHW, Format.NHWC, Format.FRACTAL_NZ, Format.FRACTAL_Z


def as_format(spec, shape, op: str = "format") -> Format:
    """Normalise ``spec`` (a Format or its name, any case) and check it fits ``shape``."""
    if spec is None:
        return Format.ND
    if isinstance(spec, Format):
        f = spec
    else:
        try:
            f = Format(str(spec).upper())
        except ValueError:
            raise PyascError(op, f"unknown format {describe(spec)}; formats: "
                             + ", ".join(m.value for m in Format)) from None
    if f in (Format.NCHW, Format.NHWC) and len(shape) not in (3, 4):
        raise PyascError(op, f"format {f.value} needs a 4-d tensor (or a 3-d one: a single image, N = 1), "
                         f"got shape {tuple(shape)}", shapes=[shape])
    if f is Format.FRACTAL_Z and len(shape) != 4:
        raise PyascError(op, f"format FRACTAL_Z is the layout of a convolution weight and needs a 4-d tensor "
                         f"(Cout, Cin, kH, kW), got shape {tuple(shape)}", shapes=[shape])
    if f is Format.FRACTAL_NZ and len(shape) < 2:
        raise PyascError(op, f"format FRACTAL_NZ needs at least 2 dimensions, got shape {tuple(shape)}",
                         shapes=[shape])
    return f
