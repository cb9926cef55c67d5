"""The ``ascendc`` dialect: vector reductions and broadcasts (ReduceMax/ReduceSum/..., Brcb)."""

OPS: list = []
ATTRIBUTES: list = []
