"""The ``pyasc`` command line.

::

    pyasc compile model.py:fn --shape 4096x1024 --dtype float16 --out build/ [--force] [--option cores=8]
                  [--build-flow asc|ascendc_library]
    pyasc run     model.py:fn --shape 4096x1024 --shape 1024 --dtype float16
    pyasc dump    model.py:fn --shape 4096x1024 --dtype float16 --level asctile

One ``--shape``/``--dtype`` per tensor parameter of the function, or a single one for all of
them (dtype defaults to float32). ``--option key=value`` sets a compile option (target, cores,
tile_size, buffers, sync_style) and overrides the options of an ``@pyasc.jit`` function.
User mistakes print one error line and exit with code 1.
"""

from __future__ import annotations

import argparse
import importlib.util
import inspect
import os
import sys

import numpy as np

from .errors import PyascError


class CliError(Exception):
    """A mistake on the command line; printed without a traceback."""


def parse_shape(text: str) -> tuple[int, ...]:
    """``"4096x1024"`` -> (4096, 1024); ``"scalar"`` or ``""`` -> ()."""
    text = text.strip().lower()
    if text in ("", "scalar", "()"):
        return ()
    try:
        dims = tuple(int(d) for d in text.split("x"))
    except ValueError:
        raise CliError(f"bad shape '{text}': expected sizes separated by 'x', e.g. 4096x1024") from None
    if any(d < 1 for d in dims):
        raise CliError(f"bad shape '{text}': sizes must be positive")
    return dims


def parse_option(text: str) -> tuple[str, object]:
    """``"cores=8"`` -> ("cores", 8); values that look like integers become ints."""
    if "=" not in text:
        raise CliError(f"bad option '{text}': expected key=value")
    key, value = text.split("=", 1)
    key = key.strip().replace("-", "_")
    value = value.strip()
    if value.lower() in ("none", "auto"):
        return key, None
    try:
        return key, int(value)
    except ValueError:
        return key, value


def load_function(spec: str):
    """Import ``path/file.py`` and return its attribute ``function`` from ``path/file.py:function``."""
    if ":" not in spec:
        raise CliError(f"expected path/file.py:function, got '{spec}'")
    path, name = spec.rsplit(":", 1)
    if not os.path.isfile(path):
        raise CliError(f"no such file: {path}")
    mod_name = "_pyasc_cli_" + "".join(c if c.isalnum() else "_" for c in os.path.splitext(os.path.basename(path))[0])
    module_spec = importlib.util.spec_from_file_location(mod_name, path)
    module = importlib.util.module_from_spec(module_spec)
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    try:
        module_spec.loader.exec_module(module)
    except PyascError:
        raise
    except Exception as e:
        raise CliError(f"cannot load {path}: {type(e).__name__}: {e}") from None
    finally:
        sys.path.pop(0)
    fn = getattr(module, name, None)
    if fn is None:
        raise CliError(f"{path} has no function '{name}'")
    if not callable(fn):
        raise CliError(f"'{name}' in {path} is not a function")
    return fn


def _n_params(fn) -> int | None:
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return None
    if any(p.kind == p.VAR_POSITIONAL for p in params):
        return None
    return sum(1 for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty)


def build(args):
    """The JitFunction and example input tensors described by the command line."""
    import pyasc
    from pyasc.jit import JitFunction

    target = load_function(args.function)
    base = target.options.user_options() if isinstance(target, JitFunction) else {}
    fn = target.fn if isinstance(target, JitFunction) else target
    options = dict(base)
    options.update(parse_option(o) for o in args.option or [])
    try:
        jf = pyasc.jit(fn, options=options)
    except PyascError as e:
        raise CliError(f"bad --option: {e.detail.removeprefix('bad options: ')}") from None

    shapes = [parse_shape(s) for s in args.shape or []]
    dtype_names = args.dtype or ["float32"]
    n = _n_params(fn)
    if not shapes:
        raise CliError("give the input shapes with --shape (once per tensor parameter)")
    if n is not None and len(shapes) == 1 and n > 1:
        shapes = shapes * n
    if len(dtype_names) == 1:
        dtype_names = dtype_names * len(shapes)
    if len(dtype_names) != len(shapes):
        raise CliError(f"{len(shapes)} --shape but {len(dtype_names)} --dtype given")
    if n is not None and len(shapes) != n:
        raise CliError(f"{args.function} takes {n} tensor parameter(s) but {len(shapes)} --shape given")
    try:
        dtypes = [pyasc.get_dtype(d) for d in dtype_names]
    except TypeError as e:
        raise CliError(str(e)) from None
    from pyasc.runtime_api import check_fits

    try:
        check_fits(shapes, [d.itemsize for d in dtypes], "the input tensors", jf.effective_options().target)
    except PyascError as e:
        raise CliError(e.detail) from None
    rng = np.random.default_rng(args.seed)
    inputs = []
    for shape, d in zip(shapes, dtypes):
        if d.is_floating_point:
            data = rng.standard_normal(shape)
        else:
            data = rng.integers(-100, 100, shape)
        inputs.append(pyasc.tensor(data, dtype=d))
    return jf, inputs


def cmd_compile(args) -> int:
    from pyasc.lowering.emit.common import EmitError
    from pyasc.lowering.options import OptionError

    jf, inputs = build(args)
    compiled = jf.compile(*inputs)
    try:
        compiled.write_project(args.out, force=args.force, inputs=None if args.no_data else inputs,
                               flow=args.build_flow)
    except (EmitError, OptionError) as e:
        raise CliError(str(e)) from None
    print(f"wrote {args.out} (kernels: {', '.join(compiled.kernels) or 'none'})")
    if args.cpu_run:
        from pyasc.lowering.emit.cpu import cpu_run_project

        try:
            ok, summary = cpu_run_project(args.out, compiled, inputs)
        except EmitError as e:
            raise CliError(str(e)) from None
        print(summary)
        return 0 if ok else 1
    return 0


def _is_model(target: str) -> bool:
    from pyasc.model.convert import is_converted

    return target.endswith(".onnx") or is_converted(target)


def cmd_convert(args) -> int:
    """``pyasc convert model.onnx --output DIR``: compile each batch gear, write the converted model."""
    from pyasc.model.convert import convert

    try:
        batches = [int(b) for b in args.batch.split(",")] if args.batch else None
        hw = tuple(int(v) for v in args.hw.lower().split("x")) if args.hw else None
    except ValueError:
        raise CliError(f"--batch takes sizes such as 1,8 and --hw a size such as 224x224, got {args.batch!r} and "
                       f"{args.hw!r}") from None
    projects = convert(args.model, args.output, args.dtype, batches, hw, force=args.force)
    print(f"wrote {args.output}: {len(projects)} gear(s) ({', '.join(p.name for p in projects)}); load it with "
          f"pyasc.OMModel({str(args.output)!r})")
    return 0


def run_model(args) -> int:
    """``pyasc run model.onnx --input x.npy``: one inference, its simulated time per kernel launch."""
    import numpy as np

    import pyasc

    if not args.input:
        raise CliError(f"pyasc run {args.function}: give the model's inputs with --input x.npy (one per input)")
    try:
        arrays = [np.load(f) for f in args.input]
    except (OSError, ValueError) as e:
        raise CliError(f"cannot read an input array: {e}") from None
    model = pyasc.OMModel(args.function, args.dtype[0] if args.dtype else None)
    inputs = model.prepare_inputs(arrays)
    compiled = model.program(inputs)
    outs, report = compiled.simulate(*inputs)
    print(f"{model!r}: " + ", ".join(f"{t.dtype.name}{list(t.shape)}" for t in inputs)
          + f" on {compiled.options.target}")
    print(f"{'kernel':40s} {'cores':>5s} {'simulated us':>13s}")
    for launch in report.launches:
        print(f"{launch.kernel:40s} {launch.block_dim:5d} {launch.seconds * 1e6:13.2f}")
    print(f"{'total (' + str(len(report.launches)) + ' launches)':40s} {'':5s} {report.seconds * 1e6:13.2f}")
    for info, out in zip(model.graph.outputs, outs if isinstance(outs, tuple) else (outs,)):
        print(f"output '{info.name}': {out.dtype}{list(out.shape)}")
    return 0


def cmd_run(args) -> int:
    if args.function.endswith(".mlir"):  # an ascendc-level module: simulate it directly
        from pyasc.runtime.cli import run_mlir

        return run_mlir(args)
    if _is_model(args.function):
        return run_model(args)
    jf, inputs = build(args)
    compiled = jf.compile(*inputs)
    from .progress import progress

    with progress(f"simulating {compiled.name}"):
        _, report = compiled.simulate(*inputs)
    print(f"{compiled.name}: " + ", ".join(f"{t.dtype.name}{list(t.shape)}" for t in inputs)
          + f" on {compiled.options.target}")
    print(report)
    return 0


def cmd_dump(args) -> int:
    jf, inputs = build(args)
    print(jf.lower(*inputs).as_text(args.level))
    return 0


def cmd_profile(args) -> int:
    """Compile (timed), simulate ``--repeat`` times under the profiler and print the per-kernel
    table, the simulator's report and the wall times; ``--trace`` writes a Chrome trace."""
    import time

    import pyasc
    from pyasc.progress import progress

    jf, inputs = build(args)
    t0 = time.perf_counter()
    compiled = jf.compile(*inputs)
    t_compile = time.perf_counter() - t0
    with pyasc.profiler(args.trace) as prof, progress(f"simulating {compiled.name}"):
        t0 = time.perf_counter()
        for _ in range(args.repeat):
            _, report = compiled.simulate(*inputs)
        t_sim = (time.perf_counter() - t0) / args.repeat
    print(f"{compiled.name}: " + ", ".join(f"{t.dtype.name}{list(t.shape)}" for t in inputs)
          + f" on {compiled.options.target}")
    print(prof.summary(print_it=False))
    print(report)
    print(f"wall time: compile {t_compile * 1e3:.1f} ms, simulate {t_sim * 1e3:.1f} ms per run "
          f"({args.repeat} run(s))")
    if args.trace:
        print(f"wrote {args.trace} (open in chrome://tracing or ui.perfetto.dev)")
    return 0


def make_parser() -> argparse.ArgumentParser:
    import pyasc

    parser = argparse.ArgumentParser(prog="pyasc", description="Compile and simulate Python tensor "
                                     "programs for Ascend NPUs.")
    parser.add_argument("--version", action="version", version=f"pyasc {pyasc.__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    def common(p):
        p.add_argument("function", help="path/file.py:function")
        p.add_argument("--shape", action="append", help="input shape, e.g. 4096x1024 (repeat per input)")
        p.add_argument("--dtype", action="append", help="input dtype: float32, float16, bfloat16, int32 "
                       "(once for all inputs or repeated per input)")
        p.add_argument("--option", action="append", metavar="KEY=VALUE",
                       help="compile option: target, cores, tile_size, buffers, sync_style")
        p.add_argument("--seed", type=int, default=0, help="seed of the random inputs")

    p = sub.add_parser("compile", help="write the Ascend C project of a function")
    common(p)
    p.add_argument("--out", required=True, help="output folder")
    p.add_argument("--force", action="store_true", help="overwrite a non-empty output folder")
    p.add_argument("--data", action="store_true", help="(default) write the random inputs and their simulated "
                   "outputs (input/, golden/)")
    p.add_argument("--no-data", action="store_true", help="write no input/ and golden/ data")
    p.add_argument("--cpu-run", action="store_true", help="also build the project with g++ for the CPU, run it "
                   "and compare its outputs with the simulator's")
    p.add_argument("--build-flow", default="asc", metavar="FLOW",
                   help="the project's CMake flow: asc (default: find_package(ASC), .asc sources, CANN >= 9.0.0) "
                        "or ascendc_library (the legacy flow)")
    p.set_defaults(run=cmd_compile)

    p = sub.add_parser("convert", help="compile an ONNX model (each --batch gear) into a folder OMModel loads "
                       "without compiling, with the Ascend C project of every kernel")
    p.add_argument("model", help="model.onnx")
    p.add_argument("--output", required=True, help="output folder")
    p.add_argument("--dtype", choices=["float32", "float16"], help="precision of weights and activations")
    p.add_argument("--batch", help="batch sizes to compile, e.g. 1,8 (default: the model's own)")
    p.add_argument("--hw", help="image height x width for inputs that leave it open, e.g. 224x224")
    p.add_argument("--force", action="store_true", help="overwrite a non-empty output folder")
    p.set_defaults(run=cmd_convert)

    p = sub.add_parser("run", help="simulate a function on random inputs (a .mlir file of the ascendc level on "
                       "--inputs, a model.onnx or converted model on --input) and print the report")
    common(p)
    p.add_argument("--input", action="append", metavar="X.npy", help="for a model: an input array (one per input)")
    p.add_argument("--inputs", nargs="+", metavar="FILE.npy", help="for a .mlir file: the input arrays")
    p.add_argument("--block-dim", type=int, help="for a .mlir file: override the launches' core count")
    p.add_argument("--host", help="for a .mlir file: the host function to run")
    p.add_argument("--save", metavar="DIR", help="for a .mlir file: write the outputs as DIR/outN.npy")
    p.set_defaults(run=cmd_run)

    p = sub.add_parser("dump", help="print the IR of a function at a level")
    common(p)
    p.add_argument("--level", default="ascendc",
                   choices=["traced", "asctensor", "asctile", "ascbuf", "ascendc"])
    p.set_defaults(run=cmd_dump)

    p = sub.add_parser("profile", help="simulate a function under the profiler: per-kernel cycles, pipe "
                       "utilisation, wall times; optionally a Chrome trace")
    common(p)
    p.add_argument("--repeat", type=int, default=1, help="simulated runs (wall time is their mean)")
    p.add_argument("--trace", metavar="FILE.json", help="write a Chrome trace / Perfetto JSON file")
    p.set_defaults(run=cmd_profile)
    return parser


def main(argv=None) -> int:
    from .progress import enabled, set_enabled

    args = make_parser().parse_args(argv)
    saved = enabled()
    set_enabled(True)   # compiles and simulations longer than about a second show progress
    try:
        return args.run(args)
    except (CliError, PyascError) as e:
        print(f"pyasc: error: {e}", file=sys.stderr)
        return 1
    except BrokenPipeError:  # output piped into e.g. `head`
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    finally:
        set_enabled(saved)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
