"""Shared fixtures of the emitter tests: a context with every dialect and the example modules."""

from __future__ import annotations

from pathlib import Path

import pytest
from xdsl.context import Context
from xdsl.dialects import get_all_dialects
from xdsl.parser import Parser

from pyasc.dialects import get_all_dialects as get_pyasc_dialects

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def make_context() -> Context:
    ctx = Context()
    for name, factory in {**get_all_dialects(), **get_pyasc_dialects()}.items():
        if name not in ctx.registered_dialect_names:
            ctx.register_dialect(name, factory)
    return ctx


def parse(text: str):
    module = Parser(make_context(), text).parse_module()
    module.verify()
    return module


@pytest.fixture
def parse_mlir():
    """Parse and verify MLIR text with every dialect registered."""
    return parse


@pytest.fixture
def all_ops():
    return parse((Path(__file__).resolve().parent / "all_ops.mlir").read_text())


@pytest.fixture
def ctx() -> Context:
    return make_context()


@pytest.fixture
def add_flags():
    return parse((FIXTURES / "add_flags.mlir").read_text())


@pytest.fixture
def add_queue():
    return parse((FIXTURES / "add_queue.mlir").read_text())
