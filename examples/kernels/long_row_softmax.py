"""softmax of one long row in one launch: a kernel whose cores meet at ``asc.sync_all()`` (SyncAll.md).

Each core holds its part of the row in UB. It takes each piece's maximum and sum of exponentials as the piece
arrives, publishes its own maximum and sum to GM, waits for every core (SyncAll), combines all of them and
scales its part: the row is read once and written once. ``pyasc.softmax`` on the same row compiles to two
launches that read it twice. Runs on the simulator (and with ``--cpu`` through the emitted C++ on the CPU) and
compares both with NumPy.

    python examples/kernels/long_row_softmax.py [--cpu] [--blocks 32] [--chunk 32768] [--pieces 4]
"""

import argparse

import numpy as np

import pyasc
import pyasc.kernel as asc
import pyasc.kernel.lib.runtime as rt
import pyasc.kernel.runtime.config as config


@asc.jit(insert_sync=True)
def softmax_long_row(x: asc.GlobalAddress, part_max: asc.GlobalAddress, part_sum: asc.GlobalAddress,
                     y: asc.GlobalAddress, chunk: asc.ConstExpr[int], pieces: asc.ConstExpr[int]):
    """softmax of one row of ``chunk`` floats per core, in one launch: each core keeps its part in UB, takes each
    piece's maximum and sum of exponentials as the piece arrives, publishes its own (32 B slots of ``part_max`` and
    ``part_sum``), waits for every core (SyncAll), combines them all and scales its part. At most 8 pieces."""
    blocks = asc.get_block_num()
    idx = asc.get_block_idx()
    piece = chunk // pieces
    x_gm = asc.GlobalTensor()
    y_gm = asc.GlobalTensor()
    pm_gm = asc.GlobalTensor()
    ps_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x + idx * chunk, chunk)
    y_gm.set_global_buffer(y + idx * chunk, chunk)
    pm_gm.set_global_buffer(part_max)
    ps_gm.set_global_buffer(part_sum)
    data = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, chunk)
    base = chunk * 4
    stats = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, base, 128)  # piece j (< 8): max at 8j, sum at 64 + 8j
    one = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, base + 512, 8)
    pm = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, base + 1024, blocks * 8)
    ps = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, base + 1024 + blocks * 32, blocks * 8)
    work = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, base + 1024 + blocks * 64, piece)
    # each piece: its maximum m_j and the sum of exp(x - m_j), exp(x - m_j) kept in place
    for j in range(pieces):
        asc.data_copy(data[j * piece:], x_gm[j * piece:], piece)
        asc.reduce_max(stats[j * 8:], data[j * piece:], work, piece)
        m_j = stats.get_value(j * 8)
        asc.adds(data[j * piece:], data[j * piece:], -m_j, piece)
        asc.exp(data[j * piece:], data[j * piece:], piece)
        asc.reduce_sum(stats[64 + j * 8:], data[j * piece:], work, piece)
    # this core's maximum m (each m_j filled into its 32 B slot, then their maximum: no branch on a value read
    # back) and sum s = sum_j s_j exp(m_j - m), published to its slots
    for j in range(pieces):
        asc.duplicate(stats[j * 8:], stats.get_value(j * 8), 8)
    asc.reduce_max(one, stats, work, pieces * 8)
    m = one.get_value(0)
    s = stats.get_value(64) * 0.0
    for j in range(pieces):
        asc.duplicate(one, stats.get_value(j * 8) - m, 8)
        asc.exp(one, one, 8)
        s = s + stats.get_value(64 + j * 8) * one.get_value(0)
    asc.duplicate(pm, m, 8)
    asc.data_copy(pm_gm[idx * 8:], pm, 8)
    asc.duplicate(ps, s, 8)
    asc.data_copy(ps_gm[idx * 8:], ps, 8)
    asc.sync_all()
    # the row's maximum M and sum S; each piece scaled by exp(m_j - M) / S
    asc.data_copy(pm, pm_gm, blocks * 8)
    asc.data_copy(ps, ps_gm, blocks * 8)
    asc.reduce_max(one, pm, work, blocks * 8)
    big = one.get_value(0)
    asc.adds(pm, pm, -big, blocks * 8)
    asc.exp(pm, pm, blocks * 8)
    asc.mul(pm, pm, ps, blocks * 8)
    asc.reduce_sum(one, pm, work, blocks * 8)
    total = one.get_value(0) * 0.125  # every core's sum is in all 8 floats of its slot
    for j in range(pieces):
        asc.duplicate(one, stats.get_value(j * 8) - big, 8)
        asc.exp(one, one, 8)
        asc.muls(data[j * piece:], data[j * piece:], one.get_value(0) / total, piece)
        asc.data_copy(y_gm[j * piece:], data[j * piece:], piece)


def run(x: np.ndarray, blocks: int, pieces: int) -> tuple[np.ndarray, object]:
    """The softmax of the row ``x`` (float32, ``blocks`` equal parts) and the launch's report (None on the CPU)."""
    chunk = x.size // blocks
    y = np.zeros_like(x)
    part_max, part_sum = np.zeros(blocks * 8, np.float32), np.zeros(blocks * 8, np.float32)
    softmax_long_row[blocks, rt.current_stream()](x, part_max, part_sum, y, chunk, pieces)
    return y, softmax_long_row.last_report


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cpu", action="store_true", help="also run the emitted C++ on the CPU")
    ap.add_argument("--blocks", type=int, default=32)
    ap.add_argument("--chunk", type=int, default=32768, help="floats per core (fits UB up to about 36K)")
    ap.add_argument("--pieces", type=int, default=4, help="pieces per core (at most 8)")
    a = ap.parse_args()
    x = (np.random.default_rng(0).standard_normal(a.blocks * a.chunk) * 3).astype(np.float32)
    xd = x.astype(np.float64)
    ref = np.exp(xd - xd.max())
    ref /= ref.sum()
    y, report = run(x, a.blocks, a.pieces)
    print(f"one launch, {a.blocks} cores: {report.seconds * 1e6:.2f} us simulated, max error "
          f"{np.abs(y - ref).max() / ref.max():.1e} of the largest value")
    compiled = pyasc.jit(lambda t: pyasc.softmax(t, -1)).lower(pyasc.tensor(x.reshape(1, -1))).compile()
    _, two = compiled.simulate(pyasc.tensor(x.reshape(1, -1)))
    print(f"pyasc.softmax: {len(two.launches)} launches, {two.seconds * 1e6:.2f} us simulated")
    if a.cpu:
        config.set_platform(config.Backend.CPU)
        y_cpu, _ = run(x, a.blocks, a.pieces)
        print(f"CPU build: max error {np.abs(y_cpu - ref).max() / ref.max():.1e} of the largest value")


if __name__ == "__main__":
    main()
