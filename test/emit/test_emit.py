"""The Ascend C emitter: kernel text, host program, project layout, g++ syntax checks, errors."""

from __future__ import annotations

import io
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects import func
from xdsl.dialects import test as xdsl_test
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, StringAttr, TensorType, UnitAttr, f32
from xdsl.ir import Block, Region

from pyasc.dialects import asctensor
from pyasc.dialects.ascendc import KERNEL_ATTR
from pyasc.lowering.emit import (
    EmitError,
    check_project,
    get_all_targets,
    host_plan,
    host_source,
    kernel_files,
    kernel_source,
    syntax_check,
    tiling_header,
    write_project,
)
from pyasc.lowering.emit.syntax import INCLUDE_DIR, SYNTAX_ONLY_DEFINE
from pyasc.lowering.options import OptionError

HERE = Path(__file__).resolve().parent
GXX = shutil.which("g++")
needs_gxx = pytest.mark.skipif(GXX is None, reason="g++ is not installed: syntax checks skipped")


def lines(text: str) -> list[str]:
    return [ln.strip() for ln in text.splitlines()]


# ----------------------------------------------------------------------------------------------
# kernels


def test_flags_kernel_key_lines(add_flags):
    src = kernel_source(add_flags)
    ls = lines(src)
    assert '#include "kernel_operator.h"' in ls
    assert 'extern "C" __global__ __aicore__ void add_k0(GM_ADDR x, GM_ADDR y, GM_ADDR z) {' in ls
    assert "int64_t bid = AscendC::GetBlockIdx();" in ls
    assert "xg.SetGlobalBuffer((__gm__ float*)x, 4096);" in ls
    assert "AscendC::LocalTensor<float> yb(AscendC::TPosition::VECIN, 2048, 512);" in ls
    assert "AscendC::SetFlag<AscendC::HardEvent::V_MTE2>(1);" in ls
    assert "for (int64_t t = lo; t < hi; ++t) {" in ls
    # t - lo is provably non-negative, so remui prints as a plain %
    assert "int64_t slot = rel % 2;" in ls
    assert "AscendC::LocalTensor<float> xs = xb[soff];" in ls
    assert "AscendC::WaitFlag<AscendC::HardEvent::V_MTE2>(slot);" in ls
    assert "AscendC::SetFlag<AscendC::HardEvent::MTE2_V>(slot);" in ls
    assert "AscendC::DataCopy(xs, xgs, 256);" in ls
    assert "AscendC::Add(zs, xs, ys, 256);" in ls
    assert "AscendC::DataCopy(zgs, zs, 256);" in ls
    # the drain after the loop is outside it
    body = src[src.index("for (int64_t t"):]
    loop_end = body.index("\n    }\n")
    assert "WaitFlag<AscendC::HardEvent::MTE3_V>(1)" in body[loop_end:]


def test_queue_kernel_key_lines(add_queue):
    ls = lines(kernel_source(add_queue))
    assert "AscendC::TPipe pipe;" in ls
    assert "AscendC::TQue<AscendC::TPosition::VECIN, 2> qx;" in ls
    assert "AscendC::TQue<AscendC::TPosition::VECOUT, 2> qz;" in ls
    assert "AscendC::TBuf<AscendC::TPosition::VECCALC> tmp;" in ls
    assert "pipe.InitBuffer(qx, 2, 512);" in ls
    assert "pipe.InitBuffer(tmp, 512);" in ls
    assert "const half s = 1.5f;" in ls
    assert "for (int64_t t = bid; t < 4; t += nblk) {" in ls
    assert "int64_t valid = static_cast<uint64_t>(rest) < 256 ? rest : 256;" in ls
    assert "AscendC::LocalTensor<half> xl = qx.AllocTensor<half>();" in ls
    assert ("AscendC::DataCopyPad(xl, xgs, AscendC::DataCopyExtParams{1, static_cast<uint32_t>(bytes), 0, 0, 0}, "
            "AscendC::DataCopyPadExtParams<half>{false, 0, 0, 0});") in ls
    assert "qx.EnQue(xl);" in ls
    assert "AscendC::LocalTensor<half> xd = qx.DeQue<half>();" in ls
    assert "AscendC::LocalTensor<half> t0 = tmp.Get<half>();" in ls
    assert "qx.FreeTensor(xd);" in ls
    assert "AscendC::PipeBarrier<PIPE_V>();" in ls
    # every op computes the elements of the tile its copy-in wrote
    assert "AscendC::Add(t0, xd, yd, valid);" in ls
    assert "AscendC::Relu(t0, t0, valid);" in ls
    assert "AscendC::Muls(zl, t0, s, valid);" in ls
    # UB -> GM: no pad parameters
    assert "AscendC::DataCopyPad(zgs, zd, AscendC::DataCopyExtParams{1, static_cast<uint32_t>(bytes), 0, 0, 0});" in ls


def test_all_ops_kernel(all_ops):
    src = kernel_source(all_ops)
    ls = lines(src)
    for api in ["Add", "Sub", "Mul", "Div", "Max", "Min"]:
        assert f"AscendC::{api}(y, y, x, 128);" in ls or f"AscendC::{api}(y, x, x, 128);" in ls
    for api in ["Exp", "Ln", "Abs", "Sqrt", "Rsqrt", "Reciprocal", "Relu"]:
        assert f"AscendC::{api}(y, y, 128);" in ls
    assert "AscendC::Adds(y, y, f, 128);" in ls
    assert "AscendC::Muls(y, y, first, 128);" in ls
    assert "AscendC::Duplicate(hx, h, 128);" in ls
    assert "AscendC::Duplicate(ix, 7, 128);" in ls
    assert "AscendC::And(ixh, ixh, ixh, 256);" in ls and "AscendC::Or(ixh, ixh, ixh, 256);" in ls
    assert "AscendC::Cast(y, hx, AscendC::RoundMode::CAST_NONE, 128);" in ls
    assert "AscendC::Cast(hx, y, AscendC::RoundMode::CAST_RINT, 128);" in ls
    assert "float first = ags.GetValue(0);" in ls
    assert "AscendC::LocalTensor<float> scratch = buf.Get<float>();" in ls
    assert "AscendC::PipeBarrier<PIPE_ALL>();" in ls
    # scalar code
    assert "int64_t q1 = static_cast<uint64_t>(d) / 3;" in ls
    assert "bool cmp = static_cast<uint64_t>(mx) < static_cast<uint64_t>(mn);" in ls
    assert "float sel = cmp ? g : f;" in ls
    assert "int64_t last = 0;" in ls and "last = nxt;" in ls
    assert "if (cmp) {" in ls and "} else {" in ls and "len = bytes;" in ls
    # asc.loc comments only when the location changes
    assert src.count("// model.py:3") == 1 and src.count("// model.py:4") == 1
    assert src.index("// model.py:3") < src.index("GetBlockIdx")


def test_kernel_files_one_per_kernel(add_flags):
    files = kernel_files(add_flags)
    assert list(files) == ["add_k0"]
    assert files["add_k0"].startswith("// Generated by pyasc")


def test_indentation_is_consistent(add_flags):
    for ln in kernel_source(add_flags).splitlines():
        indent = len(ln) - len(ln.lstrip(" "))
        assert indent % 4 == 0, ln


@needs_gxx
@pytest.mark.parametrize("name", ["add_flags", "add_queue", "all_ops"])
def test_kernels_pass_gxx(name, request):
    module = request.getfixturevalue(name)
    for kname, src in kernel_files(module).items():
        ok, diag = syntax_check(src, INCLUDE_DIR)
        assert ok, f"{kname}:\n{diag}\n{src}"


@needs_gxx
def test_syntax_check_reports_errors():
    ok, diag = syntax_check('#include "kernel_operator.h"\nvoid f() { AscendC::NoSuchCall(); }\n')
    assert ok is False
    assert "NoSuchCall" in diag


def test_syntax_check_skipped_without_compiler():
    res = syntax_check("int main() {}", compiler="pyasc-no-such-compiler")
    assert res.skipped and res.ok is None
    assert "skipped" in res.diagnostics


# ----------------------------------------------------------------------------------------------
# errors


def _kernel_with(op_factory):
    block = Block(arg_types=[])
    fn = func.FuncOp("bad_k", ((), ()), Region(block))
    fn.attributes[KERNEL_ATTR] = UnitAttr()
    op = op_factory()
    block.add_op(op)
    block.add_op(func.ReturnOp())
    return fn, op


def test_unsupported_op_names_it():
    fn, _ = _kernel_with(lambda: xdsl_test.TestOp(result_types=[f32]))
    with pytest.raises(EmitError, match=r"kernel @bad_k: no Ascend C form for op 'test.op'"):
        kernel_source(ModuleOp([fn]))


def test_high_level_op_is_refused():
    t = TensorType(f32, [4])
    src = xdsl_test.TestOp(result_types=[t])

    block = Block()
    fn = func.FuncOp("bad_k", ((), ()), Region(block))
    fn.attributes[KERNEL_ATTR] = UnitAttr()
    block.add_op(src)
    relu = asctensor.ReluOp(src.results[0])
    relu.attributes["asc.loc"] = StringAttr("m.py:7")
    block.add_op(relu)
    block.add_op(func.ReturnOp())
    with pytest.raises(EmitError, match=r"kernel @bad_k: .*op 'test.op'"):
        kernel_source(ModuleOp([fn]))
    block.erase_op(src, safe_erase=False)
    with pytest.raises(EmitError, match=r"'asctensor.relu' \(at m.py:7\) belongs to the 'asctensor' dialect, "
                                        r"which is above ascendc"):
        kernel_source(ModuleOp([fn.clone()]))


def test_launch_inside_kernel_is_refused(parse_mlir):
    text = (HERE.parent / "fixtures" / "add_flags.mlir").read_text()
    text = text.replace("    func.return\n  }\n  func.func @add",
                        "    ascendc.launch @add_k0<<<4>>>(%x, %y, %z) : !ascendc.gm_addr, !ascendc.gm_addr, "
                        "!ascendc.gm_addr\n    func.return\n  }\n  func.func @add", 1)
    with pytest.raises(EmitError, match="host-side op"):
        kernel_source(parse_mlir(text))


def test_module_without_kernel():
    with pytest.raises(EmitError, match="no kernel"):
        kernel_source(ModuleOp([]))


# ----------------------------------------------------------------------------------------------
# host


def test_host_plan_roles(add_flags):
    plan = host_plan(add_flags)
    assert [(b.name, b.role) for b in plan.buffers] == [("x", "input"), ("y", "input"), ("z", "output")]
    assert [(x.kernel, x.block_dim) for x in plan.launches] == [("add_k0", 4)]


def test_host_plan_temps_and_repeated_launches(all_ops):
    plan = host_plan(all_ops)
    assert [(b.name, b.role) for b in plan.buffers] == [("a", "input"), ("b", "input"), ("o", "output"),
                                                        ("tmp", "temp")]
    assert [x.field for x in plan.launches] == ["all_k_block_dim", "all_k_block_dim_1"]


def test_num_outputs_override(add_flags):
    host = [op for op in add_flags.ops if isinstance(op, func.FuncOp)][1]
    host.attributes["ascendc.num_outputs"] = IntegerAttr(2, 64)
    assert [b.role for b in host_plan(add_flags).buffers] == ["input", "output", "output"]


@pytest.mark.parametrize("flow", ["asc", "ascendc_library"])
def test_host_key_lines(add_queue, flow):
    src = host_source(add_queue, flow=flow)
    ls = lines(src)
    assert '#include "acl/acl.h"' in ls and '#include "add_tiling.h"' in ls
    assert "#define CHECK_ACL(expr)                                                                     \\" in \
        src.splitlines()
    if flow == "asc":  # one .asc unit with the kernels, as in the devkit's samples
        assert '#include "../kernel/add_k0.asc"' in ls and "extern" not in src and "ACLRT_LAUNCH" not in src
    else:
        assert 'extern "C" __global__ __aicore__ void add_k0(GM_ADDR x, GM_ADDR y, GM_ADDR z);' in ls
        assert ("CHECK_ACL(static_cast<aclError>(ACLRT_LAUNCH_KERNEL(add_k0)(tiling.add_k0_block_dim, stream, "
                "xDevice, yDevice, zDevice)));") in ls
    for call in ["CHECK_ACL(aclInit(nullptr));", "CHECK_ACL(aclrtSetDevice(deviceId));",
                 "CHECK_ACL(aclrtCreateStream(&stream));", "CHECK_ACL(aclrtSynchronizeStream(stream));",
                 "CHECK_ACL(aclrtDestroyStream(stream));", "CHECK_ACL(aclrtResetDevice(deviceId));",
                 "CHECK_ACL(aclFinalize());"]:
        assert call in ls, call
    assert ("CHECK_ACL(aclrtMalloc(reinterpret_cast<void**>(&xDevice), tiling.x_bytes, "
            "ACL_MEM_MALLOC_HUGE_FIRST));") in ls
    assert 'if (!ReadFile("input/x.bin", xHost)) {' in ls
    assert ("CHECK_ACL(aclrtMemcpy(xDevice, tiling.x_bytes, xHost.data(), tiling.x_bytes, "
            "ACL_MEMCPY_HOST_TO_DEVICE));") in ls
    assert "add_k0<<<tiling.add_k0_block_dim, nullptr, stream>>>(xDevice, yDevice, zDevice);" in ls
    # every launch's return code is checked: the runtime's error right after it
    launch = ls.index("add_k0<<<tiling.add_k0_block_dim, nullptr, stream>>>(xDevice, yDevice, zDevice);")
    assert ls[launch + 1:launch + 3] == ["#endif", "CHECK_ACL(aclrtGetLastError(ACL_RT_THREAD_LEVEL));  // the "
                                                    "launch's error, if any"]
    assert ("CHECK_ACL(aclrtMemcpy(zHost.data(), tiling.z_bytes, zDevice, tiling.z_bytes, "
            "ACL_MEMCPY_DEVICE_TO_HOST));") in ls
    assert 'ok = WriteFile("output/z.bin", zHost) && ok;' in ls
    assert 'if (ReadFile("golden/z.bin", golden)) {' in ls
    assert "DType::F16" in src
    assert 'std::printf("%s\\n", ok ? "PASS" : "FAIL");' in ls
    # no input file is read for the output
    assert "input/z.bin" not in src
    # the <<<>>> launch is only seen by a compiler that is neither g++ syntax mode nor CMake
    i_syntax, i_chevron = src.index("#if defined(PYASC_SYNTAX_ONLY)"), src.index("<<<tiling")
    assert i_syntax < i_chevron


def test_tiling_header(add_flags):
    h = tiling_header(add_flags)
    assert "struct AddTiling {" in h
    assert "uint32_t add_k0_block_dim = 4;" in h
    assert "size_t z_bytes = 16384;" in h


@needs_gxx
@pytest.mark.parametrize("name", ["add_flags", "add_queue", "all_ops"])
def test_host_passes_gxx(name, request, tmp_path):
    module = request.getfixturevalue(name)
    plan = host_plan(module)
    (tmp_path / "main.cpp").write_text(host_source(module, flow="ascendc_library"))
    (tmp_path / plan.tiling_header).write_text(tiling_header(module))
    ok, diag = syntax_check(tmp_path / "main.cpp", INCLUDE_DIR, defines=[SYNTAX_ONLY_DEFINE])
    assert ok, diag


FAKE_ACL = r"""
// AscendCL on the host CPU, only for this test: device memory is host memory.
#include <cstdlib>
#include <cstring>
#include "acl/acl.h"
extern "C" {
aclError aclInit(const char*) { return ACL_SUCCESS; }
aclError aclFinalize() { return ACL_SUCCESS; }
aclError aclrtSetDevice(int32_t) { return ACL_SUCCESS; }
aclError aclrtResetDevice(int32_t) { return ACL_SUCCESS; }
aclError aclrtCreateStream(aclrtStream* s) { *s = nullptr; return ACL_SUCCESS; }
aclError aclrtDestroyStream(aclrtStream) { return ACL_SUCCESS; }
aclError aclrtSynchronizeStream(aclrtStream) { return ACL_SUCCESS; }
aclError aclrtMalloc(void** p, size_t n, aclrtMemMallocPolicy) { *p = std::malloc(n); return *p ? 0 : 1; }
aclError aclrtFree(void* p) { std::free(p); return ACL_SUCCESS; }
aclError aclrtMemcpy(void* d, size_t dmax, const void* s, size_t n, aclrtMemcpyKind) {
    if (n > dmax) return 1;
    std::memcpy(d, s, n);
    return ACL_SUCCESS;
}
aclError aclrtGetLastError(aclrtLastErrLevel) { return ACL_SUCCESS; }
// z = x + y in float32, standing in for the device kernel
void add_k0(uint8_t* x, uint8_t* y, uint8_t* z) {
    for (int i = 0; i < 4096; ++i) {
        float a, b, c;
        std::memcpy(&a, x + 4 * i, 4);
        std::memcpy(&b, y + 4 * i, 4);
        c = a + b;
        std::memcpy(z + 4 * i, &c, 4);
    }
}
}
"""


@needs_gxx
def test_host_program_runs_against_a_cpu_acl(add_flags, tmp_path):
    """Build main.cpp with a CPU stand-in for AscendCL and the kernel: file IO and compare work."""
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal(4096).astype(np.float32), rng.standard_normal(4096).astype(np.float32)
    out = tmp_path / "proj"
    write_project(add_flags, out, inputs={"x": x, "y": y}, goldens={"z": x + y}, flow="ascendc_library")
    (tmp_path / "fake_acl.cpp").write_text(FAKE_ACL)
    exe = tmp_path / "main"
    build = subprocess.run([GXX, "-std=c++17", "-DPYASC_SYNTAX_ONLY", f"-I{out / 'include'}",
                            str(out / "host" / "main.cpp"), str(tmp_path / "fake_acl.cpp"), "-o", str(exe)],
                           capture_output=True, text=True)
    assert build.returncode == 0, build.stderr
    run = subprocess.run([str(exe)], cwd=out, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.strip().endswith("PASS")
    assert np.array_equal(np.fromfile(out / "output" / "z.bin", dtype=np.float32), x + y)
    # a wrong golden fails
    (x + y + 1).astype(np.float32).tofile(out / "golden" / "z.bin")
    run = subprocess.run([str(exe)], cwd=out, capture_output=True, text=True)
    assert run.returncode == 1 and run.stdout.strip().endswith("FAIL")


# ----------------------------------------------------------------------------------------------
# project


@pytest.mark.parametrize("flow", ["asc", "ascendc_library"])
def test_write_project_layout(add_queue, tmp_path, flow):
    x = np.linspace(-1, 1, 1000)
    out = tmp_path / "proj"
    written = write_project(add_queue, out, inputs={"x": x, "y": x}, goldens={"z": x}, flow=flow)
    rel = sorted(str(p.relative_to(out)) for p in written)
    ext = "asc" if flow == "asc" else "cpp"
    assert rel == sorted([f"kernel/add_k0.{ext}", f"host/main.{ext}", "host/add_tiling.h", "CMakeLists.txt",
                          "run.sh", "README.md", "include/kernel_operator.h", "include/acl/acl.h", "input/x.bin",
                          "input/y.bin", "golden/z.bin", "cpu/pyasc_cpu_state.h", "cpu/pyasc_cpu_impl.h",
                          "cpu/pyasc_cpu_launch.h", "cpu/pyasc_cpu.cpp"])
    assert all(p.is_file() for p in written)
    # data converted to the buffer's element type
    assert np.array_equal(np.fromfile(out / "input" / "x.bin", dtype=np.float16), x.astype(np.float16))
    cmake = (out / "CMakeLists.txt").read_text()
    if flow == "asc":  # as the devkit's samples: find_package(ASC) first, then the ASC language, .asc sources
        assert cmake.index("find_package(ASC REQUIRED)") < cmake.index("project(pyasc_add LANGUAGES ASC CXX)")
        assert "add_executable(main\n    host/main.asc\n)" in cmake
        assert "$<$<COMPILE_LANGUAGE:ASC>:--npu-arch=${CMAKE_ASC_ARCHITECTURES}>" in cmake
        assert 'set(CMAKE_ASC_ARCHITECTURES "dav-2201"' in cmake
        assert "ascendc_library" not in cmake and "ascendc.cmake" not in cmake
        host = (out / "host" / "main.asc").read_text()
        assert '#include "../kernel/add_k0.asc"' in host and "add_k0<<<tiling.add_k0_block_dim, nullptr, stream>>>" in host
        assert "-DCMAKE_ASC_ARCHITECTURES" in (out / "run.sh").read_text()
    else:
        assert "include(${ASCENDC_CMAKE_DIR}/ascendc.cmake)" in cmake
        assert "ascendc_library(pyasc_kernels STATIC" in cmake and "kernel/add_k0.cpp" in cmake
        assert "add_executable(main ${CMAKE_CURRENT_SOURCE_DIR}/host/main.cpp)" in cmake
        assert "ascendcl" in cmake and 'set(SOC_VERSION "Ascend910B2"' in cmake
        assert "ASCEND_CANN_PACKAGE_PATH" in cmake and "find_package(ASC" not in cmake
    host = (out / "host" / f"main.{ext}").read_text()
    # every launch is followed by its error check, and every AscendCL call is checked
    assert host.count("<<<tiling.") == host.count("CHECK_ACL(aclrtGetLastError(ACL_RT_THREAD_LEVEL));") == 1
    calls = re.findall(r"^\s*(acl\w+)\(", host, re.M)
    assert not calls, f"unchecked AscendCL calls: {calls}"
    assert (out / "run.sh").stat().st_mode & 0o111
    readme = (out / "README.md").read_text()
    assert "run.sh" in readme and "PYASC_SYNTAX_ONLY" in readme


def test_write_project_checks_the_build_flow(add_flags, tmp_path):
    with pytest.raises(OptionError, match="option 'build_flow' must be one of asc, ascendc_library; got 'cmake'"):
        write_project(add_flags, tmp_path / "p", flow="cmake")
    assert not (tmp_path / "p").exists()


@needs_gxx
@pytest.mark.parametrize("flow", ["asc", "ascendc_library"])
def test_written_project_passes_gxx(add_flags, tmp_path, flow):
    write_project(add_flags, tmp_path / "p", flow=flow)
    results = check_project(tmp_path / "p")
    ext = "asc" if flow == "asc" else "cpp"
    assert set(results) == {f"kernel/add_k0.{ext}", f"host/main.{ext}"}
    for name, (ok, diag) in results.items():
        assert ok, f"{name}: {diag}"


def test_write_project_refuses_non_empty_dir(add_flags, tmp_path):
    out = tmp_path / "p"
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    with pytest.raises(EmitError, match="not empty.*force=True"):
        write_project(add_flags, out)
    assert sorted(p.name for p in out.iterdir()) == ["keep.txt"]
    written = write_project(add_flags, out, force=True)
    assert (out / "keep.txt").read_text() == "mine"
    assert out / "host" / "main.asc" in written
    # an empty existing directory is fine
    (tmp_path / "empty").mkdir()
    write_project(add_flags, tmp_path / "empty")


def test_write_project_checks_data(add_flags, tmp_path):
    with pytest.raises(EmitError, match="input 'w' is not an input buffer"):
        write_project(add_flags, tmp_path / "a", inputs={"w": np.zeros(4096)})
    with pytest.raises(EmitError, match="has 10 elements, but buffer x holds 4096"):
        write_project(add_flags, tmp_path / "b", inputs={"x": np.zeros(10)})
    with pytest.raises(EmitError, match="not an output buffer"):
        write_project(add_flags, tmp_path / "c", goldens={"x": np.zeros(4096)})
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()


def test_bfloat16_data(parse_mlir, tmp_path):
    text = (HERE.parent / "fixtures" / "add_flags.mlir").read_text()
    text = re.sub(r"func.func @add\(.*", "func.func @add(%x: memref<4096xbf16>, %y: memref<4096xf32>, "
                  "%z: memref<4096xf32>) {", text)
    text = text.replace("@add_k0<<<4>>>(%x, %y, %z) : memref<4096xf32>",
                        "@add_k0<<<4>>>(%x, %y, %z) : memref<4096xbf16>")
    module = parse_mlir(text)
    write_project(module, tmp_path / "p", inputs={"x": np.ones(4096)})
    assert (tmp_path / "p" / "input" / "x.bin").stat().st_size == 8192


# ----------------------------------------------------------------------------------------------
# targets


def test_targets(add_flags, ctx):
    targets = get_all_targets()
    assert set(targets) == {"ascendc", "ascendc-host", "ascendc-project"}
    kt, ht = targets["ascendc"](), targets["ascendc-host"]()
    assert kt.name == "ascendc" and ht.name == "ascendc-host"
    buf = io.StringIO()
    kt().emit(ctx, add_flags, buf)
    assert buf.getvalue() == kernel_source(add_flags)
    buf = io.StringIO()
    ht().emit(ctx, add_flags, buf)
    assert "aclrtSynchronizeStream" in buf.getvalue()
    buf = io.StringIO()
    kt(indent=2).emit(ctx, add_flags, buf)
    assert "\n  int64_t bid = AscendC::GetBlockIdx();" in buf.getvalue()
