"""``pyasc-opt``: xDSL's opt driver with pyasc's dialects, passes, pipelines and targets.

Every pass runs through ``lowering.levels.apply_pass``: its options and input level are checked
first, and a pass that fails on an input at its level is reported as "internal error in pass X"
with a request to report it. Errors in the input (parse, verification, a program the compiler
cannot compile) are one diagnostic; no error prints a Python traceback unless ``PYASC_TRACEBACK=1``.
"""

from __future__ import annotations

import os
import struct
import sys
from collections.abc import Sequence

from xdsl.xdsl_opt_main import xDSLOptMain

REPORT_HINT = ("this is a bug in pyasc, not in your input; please report it with the input file and "
               "the command line (PYASC_TRACEBACK=1 shows the Python traceback)")


class PyascOptMain(xDSLOptMain):
    """xDSL's driver with xDSL's own dialects, passes, targets and frontends (its universe, taken
    directly rather than by scanning every installed package's entry points) and pyasc's."""

    version_format = "pyasc-opt (xdsl {xdsl_version})"

    def register_all_dialects(self):
        from pyasc.dialects import register_dialects

        register_dialects(self.ctx)

    def register_all_frontends(self):
        from xdsl.frontend import get_all_frontends

        self.available_frontends.update(get_all_frontends())

    def register_all_passes(self):
        from xdsl.transforms import get_all_passes as upstream_passes

        from pyasc.lowering import get_all_passes

        for name, factory in {**upstream_passes(), **get_all_passes()}.items():
            self.register_pass(name, factory)

    def register_all_targets(self):
        from xdsl.targets import get_all_targets as upstream_targets

        from pyasc.lowering.emit import get_all_targets

        self.available_targets.update({**upstream_targets(), **get_all_targets()})

    def apply_passes(self, prog):
        """The pipeline's passes in order, each through ``apply_pass``; the IR is verified before the
        first pass (an input error) and after each (an invalid result is the pass's bug), with the cyclic
        garbage collector paused (``gc_paused``)."""
        from pyasc.dialects.discardable import verify_integer_attributes
        from pyasc.collector import gc_paused

        passes, callback = self.pipeline.passes, self.pipeline.callback
        verify = not self.args.disable_verify
        if verify:
            verify_integer_attributes(prog)
        if callback is not None:
            callback(None, prog, passes[0] if passes else None)
        with gc_paused():
            self._run_passes(passes, callback, verify, prog)

    def _run_passes(self, passes, callback, verify, prog):
        from xdsl.utils.exceptions import DiagnosticException

        from pyasc.dialects.discardable import verify_integer_attributes
        from pyasc.lowering.errors import InternalPassError
        from pyasc.lowering.levels import apply_pass

        for i, p in enumerate(passes):
            apply_pass(p, self.ctx, prog)
            try:
                if verify:
                    verify_integer_attributes(prog)
                if callback is not None:
                    callback(p, prog, passes[i + 1] if i + 1 < len(passes) else None)
            except DiagnosticException as e:
                raise InternalPassError(p.name, e) from e


def _internal(where: str, err: BaseException) -> None:
    if os.environ.get("PYASC_TRACEBACK"):
        import traceback

        traceback.print_exception(err, file=sys.stderr)
    print(f"pyasc-opt: {where}\n  {REPORT_HINT}", file=sys.stderr)
    sys.exit(2)


def main(args: Sequence[str] | None = None) -> None:
    """Run the driver; see the module docstring for how errors are reported."""
    from xdsl.utils.exceptions import ArgSpecParseError, DiagnosticException, ParseError

    from pyasc.lowering.errors import CompileError, InternalPassError

    try:
        PyascOptMain(description="pyasc modular optimizer driver", args=args).run()
    except InternalPassError as err:
        _internal(str(err), err.error)
    except (ParseError, DiagnosticException, CompileError) as err:
        print(f"pyasc-opt: error: {err}", file=sys.stderr)
        sys.exit(1)
    except ArgSpecParseError as err:  # a malformed -p pipeline: the parser's message, first line
        print(f"pyasc-opt: error: malformed pass pipeline: {' '.join(str(err).split())}", file=sys.stderr)
        sys.exit(1)
    except (ValueError, NotImplementedError, OSError) as err:  # options, targets, files of the driver
        print(f"pyasc-opt: error: {err}", file=sys.stderr)
        sys.exit(1)
    except struct.error as err:  # xDSL packs a dense array without checking its integers' range
        print(f"pyasc-opt: error: an integer of a dense array is out of range for its element type ({err})",
              file=sys.stderr)
        sys.exit(1)
    except RecursionError as err:
        print(f"pyasc-opt: error: the input is nested too deeply ({err})", file=sys.stderr)
        sys.exit(1)
    except (SystemExit, KeyboardInterrupt):
        raise
    except Exception as err:  # noqa: BLE001 - a bug outside the passes (parser, printer, emitter)
        simulation = sys.modules.get("pyasc.runtime.errors")   # loaded if a target simulated the program
        if simulation is not None and isinstance(err, simulation.SimulationError):
            # an ascendc-level input that deadlocks or faults (a target runs it for its golden outputs)
            print(f"pyasc-opt: error: the program fails in simulation: {err}", file=sys.stderr)
            sys.exit(1)
        _internal(f"internal error: {type(err).__name__}: {err}", err)


if __name__ == "__main__":
    main()
