"""Seeded mutations of MLIR text for the pyasc-opt fuzz harness.

Each mutation takes the text of a lit input and a ``random.Random`` and returns mutated bytes:
line deletion and duplication, token swaps, element-type and shape changes, integer attributes set to
0, -1 or a huge value or to a float, dropped operands, truncation, an unterminated string literal, and
invalid UTF-8.
"""

from __future__ import annotations

import random
import re

ELEMENT_TYPES = ("f16", "f32", "bf16", "i32", "i8", "i1", "index", "f64")
HUGE = ("0", "-1", "2147483648", "99999999999999999999", "-9223372036854775809")
_TYPE_RE = re.compile(r"\b(f16|f32|bf16|i32|i8|i1|index|f64)\b")
_DIM_RE = re.compile(r"(?<=[<x])(\d+)(?=x)")
_INT_ATTR_RE = re.compile(r"(?<![%#\w])(-?\d+)(?=\s*(:\s*i\d+|[,>\]}]))")
_OPERAND_LIST_RE = re.compile(r"(%[\w.#]+)(\s*,\s*)")
_TOKEN_RE = re.compile(r"%[\w.#]+|[\w.]+|\S")


def _lines(text: str) -> list[str]:
    return text.splitlines(keepends=True)


def _body_lines(text: str) -> list[int]:
    """Indices of lines that are IR (not comments or blank)."""
    return [i for i, ln in enumerate(_lines(text)) if ln.strip() and not ln.lstrip().startswith("//")]


def delete_line(text: str, rng: random.Random) -> str:
    lines, body = _lines(text), _body_lines(text)
    if body:
        del lines[rng.choice(body)]
    return "".join(lines)


def duplicate_line(text: str, rng: random.Random) -> str:
    lines, body = _lines(text), _body_lines(text)
    if body:
        i = rng.choice(body)
        lines.insert(i, lines[i])
    return "".join(lines)


def swap_tokens(text: str, rng: random.Random) -> str:
    lines, body = _lines(text), _body_lines(text)
    if not body:
        return text
    i = rng.choice(body)
    toks = list(_TOKEN_RE.finditer(lines[i]))
    if len(toks) < 2:
        return text
    a, b = sorted(rng.sample(range(len(toks)), 2))
    ta, tb = toks[a], toks[b]
    ln = lines[i]
    lines[i] = ln[:ta.start()] + tb.group() + ln[ta.end():tb.start()] + ta.group() + ln[tb.end():]
    return "".join(lines)


def change_type(text: str, rng: random.Random) -> str:
    hits = list(_TYPE_RE.finditer(text))
    if not hits:
        return text
    m = rng.choice(hits)
    return text[:m.start()] + rng.choice([t for t in ELEMENT_TYPES if t != m.group()]) + text[m.end():]


def change_shape(text: str, rng: random.Random) -> str:
    hits = list(_DIM_RE.finditer(text))
    if not hits:
        return text
    m = rng.choice(hits)
    new = rng.choice(["0", "1", "3", "17", str(int(m.group()) * 2 + 1), "65537"])
    return text[:m.start()] + new + text[m.end():]


def change_int_attr(text: str, rng: random.Random) -> str:
    hits = list(_INT_ATTR_RE.finditer(text))
    if not hits:
        return text
    m = rng.choice(hits)
    return text[:m.start()] + rng.choice(HUGE) + text[m.end():]


def float_attr(text: str, rng: random.Random) -> str:
    hits = list(_INT_ATTR_RE.finditer(text))
    if not hits:
        return text
    m = rng.choice(hits)
    return text[:m.start()] + rng.choice(("2.0", "1.5", "-0.5", "1e30")) + text[m.end():]


def unterminated_string(text: str, rng: random.Random) -> str:
    lines, body = _lines(text), _body_lines(text)
    if not body:
        return text
    i = rng.choice(body)
    ln = lines[i]
    k = len(ln) - len(ln.lstrip())
    lines[i] = ln[:k] + '"' + ln[k:]
    return "".join(lines)


def drop_operand(text: str, rng: random.Random) -> str:
    hits = list(_OPERAND_LIST_RE.finditer(text))
    if not hits:
        return text
    m = rng.choice(hits)
    return text[:m.start()] + text[m.end():]


def truncate(text: str, rng: random.Random) -> str:
    return text[: rng.randrange(len(text) + 1)]


def invalid_utf8(text: str, rng: random.Random) -> bytes:
    data = text.encode()
    i = rng.randrange(len(data) + 1)
    return data[:i] + rng.choice([b"\xff", b"\xc3\x28", b"\xe2\x82", b"\x80\x80"]) + data[i:]


MUTATIONS = (delete_line, duplicate_line, swap_tokens, change_type, change_shape, change_int_attr, float_attr,
             drop_operand, truncate, unterminated_string, invalid_utf8)


def mutate(text: str, rng: random.Random) -> tuple[str, bytes]:
    """One mutant of ``text``: (the mutation's name, the mutated bytes)."""
    fn = rng.choice(MUTATIONS)
    out = fn(text, rng)
    return fn.__name__, out if isinstance(out, bytes) else out.encode()
