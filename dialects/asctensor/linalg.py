"""The ``asctensor`` dialect: matmul, linear and convolution."""

OPS: list = []
ATTRIBUTES: list = []
