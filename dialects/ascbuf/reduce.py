"""The ``ascbuf`` dialect: vector reductions."""

OPS: list = []
ATTRIBUTES: list = []
