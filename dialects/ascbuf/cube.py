"""The ``ascbuf`` dialect: L1/L0 buffers, LoadData, Mmad and Fixpipe."""

OPS: list = []
ATTRIBUTES: list = []
