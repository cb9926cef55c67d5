"""A linear-time string-literal pattern for xDSL 0.75's MLIR lexer.

xDSL 0.75 matches a string literal with ``"(?:[^"\\\n\v\f]+|\\(?:["nt\\]|[0-9A-Fa-f]{2}))*"``: the
``+`` inside the ``*`` lets the regex engine split a run of plain characters in exponentially many
ways, so a line with an unterminated string (``"func.return %x ...``) takes time doubling with every
character before the parser reports it. The pattern below accepts exactly the same literals (the
alternatives start with different characters, so each character is matched one way) in linear time.
Minimal input showing the bug: ``"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa`` (no closing quote).
"""

from __future__ import annotations

import re

STRING_LITERAL = re.compile(r'"(?:[^"\\\n\v\f]|\\(?:["nt\\]|[0-9A-Fa-f]{2}))*+"')


def install() -> None:
    """Use ``STRING_LITERAL`` in xDSL's lexer (idempotent)."""
    from xdsl.utils.mlir_lexer import MLIRLexer

    MLIRLexer._unescaped_characters_regex = STRING_LITERAL
