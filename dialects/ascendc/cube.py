"""The ``ascendc`` dialect: the cube path: LoadData, Mmad, Fixpipe and Nd2Nz copies."""

OPS: list = []
ATTRIBUTES: list = []
