"""Print the host program (``host/main.cpp``) and its tiling header from the host function.

The host function is the module's non-kernel ``func.func``: its memref arguments are the
program's inputs and outputs, ``memref.alloc`` makes intermediate device buffers and
``ascendc.launch @k<<<n>>>(args)`` launches a kernel. An argument is an output when a kernel
writes it (through ``DataCopy``/``DataCopyPad`` into a global tensor on it); the attribute
``ascendc.num_outputs`` on the host function overrides that (the last N arguments).

The generated ``main.cpp`` uses AscendCL with every return code checked by ``CHECK_ACL``: it
reads ``input/<name>.bin``, runs the launches on one stream, writes ``output/<name>.bin`` and
compares with ``golden/<name>.bin`` (tolerance by dtype), printing PASS or FAIL.

Two build flows (``flow``, see ``options.BUILD_FLOWS``):

- ``asc`` (the devkit's current samples): ``host/main.asc`` includes the kernel sources
  (``kernel/<k>.asc``), so host and kernels are one ``.asc`` translation unit, and launches them
  with ``k<<<blocks, nullptr, stream>>>(args)``;
- ``ascendc_library`` (legacy): ``host/main.cpp`` declares the kernels, which ``ascendc_library``
  builds; with ``PYASC_ACLRT_LAUNCH`` (its CMake build) a launch goes through ``ACLRT_LAUNCH_KERNEL``.

The ``<<<>>>`` launch is bisheng syntax, not C++: with ``PYASC_SYNTAX_ONLY`` (the g++ syntax check)
it is a plain call, which still checks the argument list against the kernel's declaration; with
``PYASC_CPU`` (pyasc's CPU mode, see :mod:`.cpu`) it runs the kernel once per block on the host.
Every launch's return code is checked: ``ACLRT_LAUNCH_KERNEL``'s result, and after a ``<<<>>>``
launch the runtime's error of the thread (``aclrtGetLastError``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.dialects import arith, func, memref
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, SymbolRefAttr
from xdsl.ir import SSAValue

from pyasc.dialects import ascendc as A

from pyasc.dialects.types import ELEMENTS

from .common import (
    EmitError,
    Namer,
    Writer,
    camel,
    host_func,
    kernels,
    memref_info,
    sanitize,
    unsupported,
)

NUM_OUTPUTS_ATTR = "ascendc.num_outputs"

# (rtol, atol) used to compare a float output with its golden, by element type (integers: exact)
TOLERANCE = {name: e.tolerance for name, e in ELEMENTS.items() if e.is_float}


@dataclass
class Buffer:
    """A device buffer of the host program."""

    name: str
    value: SSAValue
    count: int
    element: str  # "f16", "f32", ...
    esize: int
    role: str  # "input", "output", "inout" or "temp"

    @property
    def nbytes(self) -> int:
        return self.count * self.esize

    @property
    def is_input(self) -> bool:
        return self.role in ("input", "inout")

    @property
    def is_output(self) -> bool:
        return self.role in ("output", "inout")


@dataclass
class Launch:
    kernel: str
    block_dim: int
    args: list[Buffer]
    field: str = ""  # name of the block-dim field in the tiling struct


@dataclass
class HostPlan:
    """What the host program does, read off the host function."""

    name: str
    buffers: list[Buffer] = field(default_factory=list)
    launches: list[Launch] = field(default_factory=list)

    @property
    def inputs(self) -> list[Buffer]:
        return [b for b in self.buffers if b.is_input]

    @property
    def outputs(self) -> list[Buffer]:
        return [b for b in self.buffers if b.is_output]

    @property
    def tiling_struct(self) -> str:
        return f"{camel(self.name)}Tiling"

    @property
    def tiling_header(self) -> str:
        return f"{self.name}_tiling.h"


# ----------------------------------------------------------------------------------------------
# analysis


def _kernel_arg_access(fn: func.FuncOp) -> list[tuple[bool, bool]]:
    """For each kernel argument: (read, written) through global tensors built on it."""
    result = []
    for arg in fn.body.block.args:
        read = written = False
        work = [arg]
        seen: set[SSAValue] = set()
        while work:
            v = work.pop()
            if v in seen:
                continue
            seen.add(v)
            for use in v.uses:
                op = use.operation
                if isinstance(op, A.GlobalTensorOp | A.SubviewOp):
                    work.append(op.results[0])
                elif isinstance(op, A.DataCopyOp | A.DataCopyPadOp):
                    if use.index == 0:
                        written = True
                    else:
                        read = True
                elif isinstance(op, A.GetValueOp):
                    read = True
        result.append((read, written))
    return result


def host_plan(module: ModuleOp, name: str | None = None) -> HostPlan:
    """The buffers and launches of the host function."""
    fn = host_func(module, name)
    plan = HostPlan(fn.sym_name.data)
    names = Namer({"tiling", "stream", "deviceId", "ok", "main"})
    by_value: dict[SSAValue, Buffer] = {}
    kernel_by_name = {k.sym_name.data: k for k in kernels(module)}

    for i, arg in enumerate(fn.body.block.args):
        n, et, es = memref_info(arg.type)
        b = Buffer(names.fresh(arg.name_hint or f"arg{i}"), arg, n, et, es, "input")
        plan.buffers.append(b)
        by_value[arg] = b

    read: set[SSAValue] = set()
    written: set[SSAValue] = set()
    for op in fn.body.block.ops:
        if isinstance(op, memref.AllocOp):
            n, et, es = memref_info(op.memref.type)
            b = Buffer(names.fresh(op.memref.name_hint or f"tmp{len(plan.buffers)}"), op.memref, n, et, es, "temp")
            plan.buffers.append(b)
            by_value[op.memref] = b
        elif isinstance(op, A.LaunchOp):
            kname = op.kernel.root_reference.data if isinstance(op.kernel, SymbolRefAttr) else str(op.kernel)
            args = []
            for a in op.args:
                if a not in by_value:
                    raise EmitError(f"host @{plan.name}: launch of @{kname} takes {a.type}, which is not "
                                    f"a host buffer (a function argument or memref.alloc)")
                args.append(by_value[a])
            kfn = kernel_by_name.get(kname)
            if kfn is None:
                raise EmitError(f"host @{plan.name}: launch of @{kname}, but the module has no such kernel")
            if len(kfn.body.block.args) != len(args):
                raise EmitError(f"host @{plan.name}: @{kname} takes {len(kfn.body.block.args)} arguments, "
                                f"the launch passes {len(args)}")
            for a, (r, w) in zip(op.args, _kernel_arg_access(kfn)):
                if r:
                    read.add(a)
                if w:
                    written.add(a)
            plan.launches.append(Launch(kname, op.block_dim.value.data, args))
        elif isinstance(op, memref.DeallocOp | func.ReturnOp | arith.ConstantOp):
            continue
        else:
            raise unsupported(op, f"host @{plan.name}")

    args = [b for b in plan.buffers if b.role != "temp"]
    override = fn.attributes.get(NUM_OUTPUTS_ATTR)
    if isinstance(override, IntegerAttr):
        k = override.value.data
        if not 0 <= k <= len(args):
            raise EmitError(f"host @{plan.name}: {NUM_OUTPUTS_ATTR} = {k}, but there are {len(args)} arguments")
        for b in args[len(args) - k:]:
            b.role = "output"
    else:
        for b in args:
            if b.value in written:
                b.role = "inout" if b.value in read and _first_access_reads(b.value, fn) else "output"
        if args and not any(b.is_output for b in args):
            args[-1].role = "output"

    counts: dict[str, int] = {}
    for launch in plan.launches:
        k = counts.get(launch.kernel, 0)
        counts[launch.kernel] = k + 1
        launch.field = f"{launch.kernel}_block_dim" + (f"_{k}" if k else "")
    return plan


def _first_access_reads(value: SSAValue, fn: func.FuncOp) -> bool:
    """Whether the first launch touching ``value`` reads it (so it needs its input data)."""
    module = fn.parent_op()
    kernel_by_name = {k.sym_name.data: k for k in kernels(module)} if isinstance(module, ModuleOp) else {}
    for op in fn.body.block.ops:
        if isinstance(op, A.LaunchOp) and value in op.args:
            kfn = kernel_by_name.get(op.kernel.root_reference.data)
            if kfn is None:
                return True
            access = _kernel_arg_access(kfn)
            return any(access[i][0] for i, a in enumerate(op.args) if a == value)
    return False


# ----------------------------------------------------------------------------------------------
# printing


def tiling_header(module: ModuleOp, name: str | None = None, plan: HostPlan | None = None) -> str:
    """The tiling header: a struct with the launches' block dims and the buffers' sizes."""
    plan = plan or host_plan(module, name)
    guard = f"PYASC_{plan.name.upper()}_TILING_H"
    w = Writer(4)
    w.line(f"// Generated by pyasc: launch configuration and buffer sizes of @{plan.name}.")
    w.line(f"#ifndef {guard}")
    w.line(f"#define {guard}")
    w.line()
    w.line("#include <cstddef>")
    w.line("#include <cstdint>")
    w.line()
    with w.block(f"struct {plan.tiling_struct}", "};"):
        for launch in plan.launches:
            w.line(f"uint32_t {launch.field} = {launch.block_dim};  // {launch.kernel}<<<{launch.block_dim}>>>")
        for b in plan.buffers:
            w.line(f"size_t {b.name}_count = {b.count};  // {b.role}, {b.element}")
            w.line(f"size_t {b.name}_bytes = {b.nbytes};")
    w.line()
    w.line(f"#endif  // {guard}")
    return w.text()


_PRELUDE = r"""#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>
#include <sys/stat.h>

#include "acl/acl.h"
#include "{tiling}"

#define CHECK_ACL(expr)                                                                     \
    do {{                                                                                    \
        aclError checkAclRet = (expr);                                                      \
        if (checkAclRet != ACL_SUCCESS) {{                                                   \
            std::fprintf(stderr, "%s:%d: %s failed with error %d\n", __FILE__, __LINE__, #expr, \
                         static_cast<int>(checkAclRet));                                    \
            std::exit(1);                                                                   \
        }}                                                                                   \
    }} while (0)
"""

_HELPERS = r"""
namespace {

enum class DType { F16, BF16, F32, F64, I8, U8, I16, U16, I32, U32, I64, U64, BOOL };

bool ReadFile(const std::string& path, std::vector<uint8_t>& buf)
{
    std::ifstream in(path, std::ios::binary | std::ios::ate);
    if (!in) {
        std::fprintf(stderr, "cannot open %s\n", path.c_str());
        return false;
    }
    const std::streamsize size = in.tellg();
    if (size != static_cast<std::streamsize>(buf.size())) {
        std::fprintf(stderr, "%s has %lld bytes, expected %zu\n", path.c_str(), static_cast<long long>(size),
                     buf.size());
        return false;
    }
    in.seekg(0);
    in.read(reinterpret_cast<char*>(buf.data()), size);
    return static_cast<bool>(in);
}

bool WriteFile(const std::string& path, const std::vector<uint8_t>& buf)
{
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(buf.data()), static_cast<std::streamsize>(buf.size()));
    return static_cast<bool>(out);
}

float HalfToFloat(uint16_t h)
{
    const uint32_t sign = (h >> 15) & 1u;
    const uint32_t exponent = (h >> 10) & 0x1fu;
    const uint32_t mantissa = h & 0x3ffu;
    float value;
    if (exponent == 0) {
        value = std::ldexp(static_cast<float>(mantissa), -24);
    } else if (exponent == 31) {
        value = mantissa ? NAN : INFINITY;
    } else {
        value = std::ldexp(static_cast<float>(mantissa | 0x400u), static_cast<int>(exponent) - 25);
    }
    return sign ? -value : value;
}

float Bf16ToFloat(uint16_t b)
{
    const uint32_t bits = static_cast<uint32_t>(b) << 16;
    float value;
    std::memcpy(&value, &bits, sizeof(value));
    return value;
}

template <typename T>
double LoadAs(const uint8_t* p, size_t i)
{
    T v;
    std::memcpy(&v, p + i * sizeof(T), sizeof(T));
    return static_cast<double>(v);
}

double Load(const uint8_t* p, size_t i, DType t)
{
    switch (t) {
        case DType::F16: return HalfToFloat(static_cast<uint16_t>(LoadAs<uint16_t>(p, i)));
        case DType::BF16: return Bf16ToFloat(static_cast<uint16_t>(LoadAs<uint16_t>(p, i)));
        case DType::F32: return LoadAs<float>(p, i);
        case DType::F64: return LoadAs<double>(p, i);
        case DType::I8: return LoadAs<int8_t>(p, i);
        case DType::U8: return LoadAs<uint8_t>(p, i);
        case DType::I16: return LoadAs<int16_t>(p, i);
        case DType::U16: return LoadAs<uint16_t>(p, i);
        case DType::I32: return LoadAs<int32_t>(p, i);
        case DType::U32: return LoadAs<uint32_t>(p, i);
        case DType::I64: return LoadAs<int64_t>(p, i);
        case DType::U64: return LoadAs<uint64_t>(p, i);
        case DType::BOOL: return LoadAs<uint8_t>(p, i);
    }
    return 0.0;
}

// Compares `count` elements of an output with its golden: |out - golden| <= atol + rtol * |golden|; equal values
// (infinities of one sign too) and two NaNs agree.
bool Compare(const char* name, const std::vector<uint8_t>& out, const std::vector<uint8_t>& golden, size_t count,
             DType t, double rtol, double atol)
{
    size_t bad = 0;
    double maxError = 0.0;
    for (size_t i = 0; i < count; ++i) {
        const double o = Load(out.data(), i, t);
        const double g = Load(golden.data(), i, t);
        if (o == g || (std::isnan(o) && std::isnan(g))) {
            continue;
        }
        const double error = std::fabs(o - g);
        if (error > maxError || std::isnan(error)) {
            maxError = error;
        }
        if (!(error <= atol + rtol * std::fabs(g))) {
            if (bad < 5) {
                std::printf("  %s[%zu] = %g, golden %g\n", name, i, o, g);
            }
            ++bad;
        }
    }
    std::printf("%s: %zu of %zu elements differ (max abs error %g)\n", name, bad, count, maxError);
    return bad == 0;
}

}  // namespace
"""


def _kernel_decls(module: ModuleOp, plan: HostPlan, w: Writer, flow: str) -> None:
    launched = []
    for launch in plan.launches:
        if launch.kernel not in launched:
            launched.append(launch.kernel)
    by_name = {k.sym_name.data: k for k in kernels(module)}
    if flow == "asc":
        w.line("#if defined(PYASC_CPU)  // pyasc's CPU mode: kernels run on the host, block after block")
        w.line('#include "pyasc_cpu_launch.h"')
        w.line("#endif")
        w.line("// the kernels: one .asc translation unit with the host program, as in the devkit's samples")
        for k in launched:
            w.line(f'#include "../kernel/{k}.asc"')
        return
    w.line("#if defined(PYASC_ACLRT_LAUNCH)")
    for k in launched:
        w.line(f'#include "aclrtlaunch_{k}.h"  // generated by ascendc_library')
    w.line("#else")
    w.line("#if defined(PYASC_CPU)  // pyasc's CPU mode: kernels run on the host, block after block")
    w.line('#include "pyasc_cpu_launch.h"')
    w.line("#endif")
    w.line("#if defined(PYASC_SYNTAX_ONLY) || defined(PYASC_CPU)  // plain g++: the device keywords mean nothing")
    w.line("#define __global__")
    w.line("#define __aicore__")
    w.line("#define __gm__")
    w.line("#endif")
    w.line("#ifndef GM_ADDR")
    w.line("#define GM_ADDR __gm__ uint8_t*")
    w.line("#endif")
    for k in launched:
        params = ", ".join(f"GM_ADDR {sanitize(a.name_hint) if a.name_hint else f'arg{i}'}"
                           for i, a in enumerate(by_name[k].body.block.args))
        w.line(f'extern "C" __global__ __aicore__ void {k}({params});')
    w.line("#endif")


def host_source(module: ModuleOp, name: str | None = None, plan: HostPlan | None = None,
                flow: str = "asc") -> str:
    """The host program of the host function: ``host/main.asc`` (``flow="asc"``) or ``host/main.cpp``
    (``"ascendc_library"``)."""
    from ..options import check_option

    check_option("build_flow", flow)
    plan = plan or host_plan(module, name)
    w = Writer(4)
    w.line(f"// Generated by pyasc: AscendCL host program for @{plan.name}.")
    w.line("// Reads input/<name>.bin, runs the kernels, writes output/<name>.bin and compares with")
    w.line("// golden/<name>.bin. Build with the CMakeLists.txt next to this folder (see README.md).")
    w.lines.extend(_PRELUDE.format(tiling=plan.tiling_header).rstrip("\n").split("\n"))
    w.line()
    _kernel_decls(module, plan, w, flow)
    w.lines.extend(_HELPERS.rstrip("\n").split("\n"))
    w.line()
    with w.block("int main()"):
        w.line(f"const {plan.tiling_struct} tiling;")
        w.line("int32_t deviceId = 0;")
        w.line("CHECK_ACL(aclInit(nullptr));")
        w.line("CHECK_ACL(aclrtSetDevice(deviceId));")
        w.line("aclrtStream stream = nullptr;")
        w.line("CHECK_ACL(aclrtCreateStream(&stream));")
        w.line()
        w.line("// device buffers (and host copies of the inputs and outputs)")
        for b in plan.buffers:
            w.line(f"uint8_t* {b.name}Device = nullptr;  // {b.role}: {b.count} x {b.element}")
            w.line(f"CHECK_ACL(aclrtMalloc(reinterpret_cast<void**>(&{b.name}Device), tiling.{b.name}_bytes, "
                   f"ACL_MEM_MALLOC_HUGE_FIRST));")
            if b.role != "temp":
                w.line(f"std::vector<uint8_t> {b.name}Host(tiling.{b.name}_bytes);")
        w.line()
        w.line("// inputs: host files -> device")
        for b in plan.inputs:
            with w.block(f'if (!ReadFile("input/{b.name}.bin", {b.name}Host))'):
                w.line("return 1;")
            w.line(f"CHECK_ACL(aclrtMemcpy({b.name}Device, tiling.{b.name}_bytes, {b.name}Host.data(), "
                   f"tiling.{b.name}_bytes, ACL_MEMCPY_HOST_TO_DEVICE));")
        w.line()
        w.line("// launches, in program order on one stream")
        for launch in plan.launches:
            args = ", ".join(f"{b.name}Device" for b in launch.args)
            w.line("#if defined(PYASC_SYNTAX_ONLY)")
            w.line(f"{launch.kernel}({args});  // checked as a plain call; the real launch is below")
            if flow == "ascendc_library":
                w.line("#elif defined(PYASC_ACLRT_LAUNCH)")
                w.line(f"CHECK_ACL(static_cast<aclError>(ACLRT_LAUNCH_KERNEL({launch.kernel})(tiling.{launch.field}, "
                       f"stream, {args})));")
            w.line("#elif defined(PYASC_CPU)")
            w.line(f"PYASC_CPU_LAUNCH({launch.kernel}, tiling.{launch.field}, stream, {args});")
            w.line("#else")
            w.line(f"{launch.kernel}<<<tiling.{launch.field}, nullptr, stream>>>({args});")
            w.line("#endif")
            w.line("CHECK_ACL(aclrtGetLastError(ACL_RT_THREAD_LEVEL));  // the launch's error, if any")
        w.line("CHECK_ACL(aclrtSynchronizeStream(stream));")
        w.line()
        w.line("// outputs: device -> host files, compared with the goldens")
        w.line("bool ok = true;")
        w.line("mkdir(\"output\", 0755);")
        for b in plan.outputs:
            w.line(f"CHECK_ACL(aclrtMemcpy({b.name}Host.data(), tiling.{b.name}_bytes, {b.name}Device, "
                   f"tiling.{b.name}_bytes, ACL_MEMCPY_DEVICE_TO_HOST));")
            w.line(f'ok = WriteFile("output/{b.name}.bin", {b.name}Host) && ok;')
        _compare_blocks(plan, w)
        w.line()
        w.line("// release everything")
        for b in plan.buffers:
            w.line(f"CHECK_ACL(aclrtFree({b.name}Device));")
        w.line("CHECK_ACL(aclrtDestroyStream(stream));")
        w.line("CHECK_ACL(aclrtResetDevice(deviceId));")
        w.line("CHECK_ACL(aclFinalize());")
        w.line('std::printf("%s\\n", ok ? "PASS" : "FAIL");')
        w.line("return ok ? 0 : 1;")
    return w.text()


def _compare_blocks(plan: HostPlan, w: Writer) -> None:
    for b in plan.outputs:  # one scope per output, so the golden buffers do not clash
        rtol, atol = TOLERANCE.get(b.element, (0.0, 0.0))
        with w.block(""):
            w.line(f"std::vector<uint8_t> golden(tiling.{b.name}_bytes);")
            with w.block(f'if (ReadFile("golden/{b.name}.bin", golden))'):
                w.line(f'ok = Compare("{b.name}", {b.name}Host, golden, tiling.{b.name}_count, '
                       f"DType::{ELEMENTS[b.element].acl}, {rtol!r}, {atol!r}) && ok;")
            w.lines[-1] += " else {"
            w.level += 1
            w.line(f'std::printf("{b.name}: no golden/{b.name}.bin, not compared\\n");')
            w.level -= 1
            w.line("}")


def element_numpy_dtype(element: str) -> str:
    """The numpy dtype name of a memref element type (``bfloat16`` comes from ml_dtypes)."""
    return ELEMENTS[element].np_dtype.name


__all__ = ["Buffer", "HostPlan", "Launch", "host_plan", "host_source", "tiling_header", "TOLERANCE",
           "element_numpy_dtype"]
