"""The ``asctile`` dialect: reductions over tile rows."""

OPS: list = []
ATTRIBUTES: list = []
