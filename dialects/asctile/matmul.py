"""The ``asctile`` dialect: cube tiles and matmul."""

OPS: list = []
ATTRIBUTES: list = []
