"""Analyses that several passes ask, behind public names: the memory plan of a kernel (``memory``) and
the cube's tile plan of a matmul (``matmul``). Queries on the IR of one dialect (which buffer a value
lives in, what an op accesses, which core a kernel runs on) live with the dialect, in
``pyasc.dialects.<dialect>.analysis``."""
