"""The ``asctensor`` dialect: reductions and row-wise composites."""

OPS: list = []
ATTRIBUTES: list = []
