/*
 * pyasc CPU mode, part 1 of 2: the data members the stub's classes get under -DPYASC_CPU.
 *
 * Included by pyasc's kernel_operator.h before its declarations. Memory model: every on-chip
 * memory (UB, L1, L0A, L0B, L0C) is one host array per thread with the capacity of the A2 core, shared by the
 * blocks, which run one after another (pyasc_cpu.cpp; the AIC and the two AIVs of a MIX kernel's AI Core on
 * three threads); a LocalTensor is a pointer into one of them plus its position and byte address; a
 * GlobalTensor is a pointer into host memory.
 */
#ifndef PYASC_CPU_STATE_H
#define PYASC_CPU_STATE_H

#include <cstddef>
#include <cstdint>

namespace pyasc_cpu {

/* The on-chip memories of one core. */
enum class Mem : int { UB = 0, L1, L0A, L0B, L0C, BT, COUNT };

uint8_t* MemBase(Mem m);
uint32_t MemSize(Mem m);
const char* MemName(Mem m);
[[noreturn]] void Fail(const char* fmt, ...);

/* The state of one TQue: `num` buffers of `len` bytes from byte `base` of memory `mem`,
 * allocated round robin, plus the FIFO of enqueued buffers (slot numbers). */
struct QueueState {
    Mem mem = Mem::UB;
    uint32_t base = 0;
    uint32_t len = 0;
    uint32_t num = 0;
    uint32_t next = 0;      // next slot AllocTensor hands out
    uint32_t live = 0;      // bit mask of slots allocated and not yet freed
    uint32_t fifo[16] = {};
    uint32_t head = 0;
    uint32_t count = 0;
    bool initialised = false;
};

struct BufState {
    Mem mem = Mem::UB;
    uint32_t base = 0;
    uint32_t len = 0;
    bool initialised = false;
};

/* TPipe: a bump allocator per memory, and per HardEvent the bit mask of event ids AllocEventID holds. */
constexpr int kEventPool = 8;
struct PipeState {
    uint32_t next[static_cast<int>(Mem::COUNT)] = {};
    uint32_t events[64] = {};
};

}  // namespace pyasc_cpu

#define PYASC_CPU_HALF_STATE

#define PYASC_CPU_GLOBAL_TENSOR_STATE \
    T* cpuData_ = nullptr;            \
    uint64_t cpuSize_ = 0;

#define PYASC_CPU_LOCAL_TENSOR_STATE       \
    T* cpuData_ = nullptr;                 \
    uint32_t cpuSize_ = 0;                 \
    uint32_t cpuAddr_ = 0;                 \
    pyasc_cpu::Mem cpuMem_ = pyasc_cpu::Mem::UB;

#define PYASC_CPU_TQUE_STATE  \
    static constexpr TPosition cpuPos_ = pos; \
    pyasc_cpu::QueueState cpu_;
#define PYASC_CPU_TBUF_STATE  \
    static constexpr TPosition cpuPos_ = pos; \
    pyasc_cpu::BufState cpu_;
#define PYASC_CPU_TPIPE_STATE pyasc_cpu::PipeState cpu_;

#endif  // PYASC_CPU_STATE_H
