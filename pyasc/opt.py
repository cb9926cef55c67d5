"""``pyasc-opt``: xDSL's opt driver with pyasc's dialects, passes, pipelines and targets."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from xdsl.xdsl_opt_main import xDSLOptMain


class PyascOptMain(xDSLOptMain):
    version_format = "pyasc-opt (xdsl {xdsl_version})"

    def register_all_dialects(self):
        super().register_all_dialects()
        from pyasc.dialects import get_all_dialects

        for name, factory in get_all_dialects().items():
            if name not in self.ctx.registered_dialect_names:
                self.ctx.register_dialect(name, factory)

    def register_all_passes(self):
        super().register_all_passes()
        from pyasc.lowering import get_all_passes

        for name, factory in get_all_passes().items():
            self.register_pass(name, factory)

    def register_all_targets(self):
        super().register_all_targets()
        from pyasc.lowering.emit import get_all_targets

        self.available_targets.update(get_all_targets())


def main(args: Sequence[str] | None = None) -> None:
    """Run the driver; a compile error in a pass is a one-line diagnostic, not a traceback."""
    from xdsl.utils.exceptions import ArgSpecParseError, DiagnosticException, ParseError, VerifyException

    try:
        PyascOptMain(description="pyasc modular optimizer driver", args=args).run()
    except (ParseError, VerifyException, DiagnosticException, ValueError, NotImplementedError) as err:
        print(f"pyasc-opt: error: {err}", file=sys.stderr)
        sys.exit(1)
    except ArgSpecParseError as err:  # a malformed -p pipeline: the parser's message, first line
        print(f"pyasc-opt: error: malformed pass pipeline: {' '.join(str(err).split())}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
