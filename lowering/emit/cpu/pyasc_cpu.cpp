/*
 * pyasc CPU mode: the runtime behind pyasc_cpu_impl.h and pyasc_cpu_launch.h, and CPU stand-ins
 * for the AscendCL calls of host/main.cpp (device memory is host memory, streams do nothing).
 *
 * Build an emitted project on the CPU (see its README.md, or `./run.sh cpu`):
 *   g++ -std=c++17 -O1 -pthread -DPYASC_CPU -Iinclude -Icpu -Ihost kernel/*.cpp host/main.cpp cpu/pyasc_cpu.cpp -o main_cpu
 */
#include <atomic>
#include <condition_variable>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "acl/acl.h"
#include "kernel_operator.h"
#include "pyasc_cpu_launch.h"

namespace pyasc_cpu {
namespace {

/* per-core capacities of Ascend 910B (arch 2201): UB 192 KB, L1 512 KB, L0A/L0B 64 KB, L0C 128 KB,
 * bias table 1 KB */
constexpr uint32_t kMemSize[static_cast<int>(Mem::COUNT)] = {192u * 1024u, 512u * 1024u, 64u * 1024u,
                                                             64u * 1024u, 128u * 1024u, 1024u};
const char* const kMemName[static_cast<int>(Mem::COUNT)] = {"UB", "L1", "L0A", "L0B", "L0C", "BT"};

/* the state of the core running on this thread: a MIX kernel runs its AIC and its two AIVs on three threads */
alignas(64) thread_local uint8_t g_ub[192u * 1024u];
alignas(64) thread_local uint8_t g_l1[512u * 1024u];
alignas(64) thread_local uint8_t g_l0a[64u * 1024u];
alignas(64) thread_local uint8_t g_l0b[64u * 1024u];
alignas(64) thread_local uint8_t g_l0c[128u * 1024u];
alignas(64) thread_local uint8_t g_bt[1024u];

thread_local int64_t g_blockIdx = 0;
thread_local int64_t g_blockNum = 1;
thread_local const char* g_kernel = "?";
constexpr int kEvents = 64;
constexpr int kEventIds = 8;
thread_local int g_flags[kEvents][kEventIds];
thread_local bool g_mix = false;
thread_local int g_coreType = 0;
thread_local int64_t g_subBlockIdx = 0;

/* MIX kernels: the cross-core counters of the AI Core running (sets towards each AIV, sets of each AIV towards
 * the AIC, the AIC's waits), shared by its three threads under g_cross; the cores blocked in a wait or done */
constexpr int kCrossIds = 11;
std::mutex g_cross;
std::condition_variable g_crossChanged;
int g_toAiv[2][kCrossIds];
int g_fromAiv[2][kCrossIds];
int g_aicWaits[kCrossIds];
int g_waiting[3];  /* per core (AIC, AIV 0, AIV 1): the flag it waits for, or -1 */
int g_done = 0;
std::vector<std::thread> g_aivs;
std::function<void()> g_body;
std::atomic<int> g_warnings{0};

/* kernels that synchronise their blocks (SyncAll, KERNEL_TYPE_MIX_AIV_1_0): block 0 starts the others on threads
 * of their own when it declares its type; the blocks that arrived at the current SyncAll, those that ended */
std::mutex g_sync;
std::condition_variable g_syncChanged;
std::atomic<bool> g_joined{false};
int g_syncArrived = 0;
int g_syncEnded = 0;
int64_t g_syncRound = 0;
std::vector<std::thread> g_blocks;
thread_local bool g_startedBlock = false;

}  // namespace

uint8_t* MemBase(Mem m)
{
    uint8_t* const bases[static_cast<int>(Mem::COUNT)] = {g_ub, g_l1, g_l0a, g_l0b, g_l0c, g_bt};
    return bases[static_cast<int>(m)];
}
uint32_t MemSize(Mem m) { return kMemSize[static_cast<int>(m)]; }
const char* MemName(Mem m) { return kMemName[static_cast<int>(m)]; }

void Fail(const char* fmt, ...)
{
    std::fprintf(stderr, "pyasc-cpu: error in kernel %s, block %lld: ", g_kernel, static_cast<long long>(g_blockIdx));
    va_list args;
    va_start(args, fmt);
    std::vfprintf(stderr, fmt, args);
    va_end(args);
    std::fprintf(stderr, "\n");
    std::fflush(nullptr);
    std::_Exit(3);  /* the other cores of a MIX kernel may still be running */
}

void Warn(const char* fmt, ...)
{
    if (g_warnings++ >= 10) {
        return;
    }
    std::fprintf(stderr, "pyasc-cpu: warning in kernel %s, block %lld: ", g_kernel,
                 static_cast<long long>(g_blockIdx));
    va_list args;
    va_start(args, fmt);
    std::vfprintf(stderr, fmt, args);
    va_end(args);
    std::fprintf(stderr, "\n");
}

Mem PositionMem(AscendC::TPosition pos, const char* what)
{
    using AscendC::TPosition;
    switch (pos) {
        case TPosition::VECIN:
        case TPosition::VECOUT:
        case TPosition::VECCALC:
        case TPosition::CO2: return Mem::UB;
        case TPosition::A1:
        case TPosition::B1:
        case TPosition::C1:
        case TPosition::TSCM: return Mem::L1;
        case TPosition::A2: return Mem::L0A;
        case TPosition::B2: return Mem::L0B;
        case TPosition::CO1: return Mem::L0C;
        case TPosition::C2: return Mem::BT;
        default: Fail("%s: TPosition %d has no on-chip memory in CPU mode", what, static_cast<int>(pos));
    }
}

void FlagSet(int event, int32_t id, const char* name)
{
    if (id < 0 || id >= kEventIds) {
        Fail("%s: event id %d is out of range 0..%d", name, id, kEventIds - 1);
    }
    if (g_flags[event][id] != 0) {
        Fail("%s: event %d id %d is set again before its WaitFlag", name, event, id);
    }
    g_flags[event][id] = 1;
}

void FlagWait(int event, int32_t id, const char* name)
{
    if (id < 0 || id >= kEventIds) {
        Fail("%s: event id %d is out of range 0..%d", name, id, kEventIds - 1);
    }
    if (g_flags[event][id] == 0) {
        Fail("%s: event %d id %d was never set (on the device this waits forever)", name, event, id);
    }
    g_flags[event][id] = 0;
}

void BeginBlock(const char* kernel, uint32_t block, uint32_t blocks, std::function<void()> body)
{
    g_kernel = kernel;
    g_blockIdx = block;
    g_blockNum = blocks;
    std::memset(g_flags, 0, sizeof(g_flags));
    g_mix = false;
    g_coreType = 0;
    g_subBlockIdx = 0;
    std::memset(g_toAiv, 0, sizeof(g_toAiv));
    std::memset(g_fromAiv, 0, sizeof(g_fromAiv));
    std::memset(g_aicWaits, 0, sizeof(g_aicWaits));
    g_waiting[0] = g_waiting[1] = g_waiting[2] = -1;
    g_done = 0;
    g_body = std::move(body);
}

namespace {

void CoreDone()
{
    std::lock_guard<std::mutex> lock(g_cross);
    ++g_done;
    g_crossChanged.notify_all();
}

void RunAiv(const char* kernel, int64_t block, int64_t blocks, int sub)
{
    g_kernel = kernel;
    g_blockIdx = 2 * block + sub;
    g_blockNum = blocks;
    std::memset(g_flags, 0, sizeof(g_flags));
    g_mix = true;
    g_coreType = 1;
    g_subBlockIdx = sub;
    g_body();
    EndBlock(kernel);
    CoreDone();
}

}  // namespace

namespace {

/* a block of a kernel that synchronises its blocks, on a thread of its own */
void RunBlock(const char* kernel, int64_t block, int64_t blocks)
{
    g_startedBlock = true;
    g_kernel = kernel;
    g_blockIdx = block;
    g_blockNum = blocks;
    std::memset(g_flags, 0, sizeof(g_flags));
    g_body();
    EndBlock(kernel);
    BlockEnded();
}

}  // namespace

/* a block of a kernel that synchronises its blocks has ended: a block still waiting in SyncAll waits forever */
void BlockEnded()
{
    std::lock_guard<std::mutex> lock(g_sync);
    ++g_syncEnded;
    if (g_syncArrived > 0) {
        Fail("the block ends while %d other block(s) wait in SyncAll for it (on the device they wait forever)",
             g_syncArrived);
    }
    g_syncChanged.notify_all();
}

/* SyncAll: waits until every block of the launch has arrived */
void SyncAllBlocks()
{
    if (!g_joined) {
        Fail("SyncAll in a kernel that does not declare KERNEL_TYPE_MIX_AIV_1_0 (SyncAll.md: a vector kernel that "
             "synchronises its cores is __mix__(0, 1))");
    }
    std::unique_lock<std::mutex> lock(g_sync);
    if (g_syncEnded > 0) {
        Fail("SyncAll after %d block(s) of the launch ended (on the device it waits forever)", g_syncEnded);
    }
    const int64_t round = g_syncRound;
    if (++g_syncArrived == g_blockNum) {
        g_syncArrived = 0;
        ++g_syncRound;
        g_syncChanged.notify_all();
        return;
    }
    g_syncChanged.wait(lock, [round] { return g_syncRound != round; });
}

/* after block 0 of a kernel that synchronises its blocks: waits for the others; false for any other kernel */
bool EndJoinedBlocks(const char* kernel)
{
    if (!g_joined) {
        return false;
    }
    BlockEnded();
    for (auto& t : g_blocks) {
        t.join();
    }
    g_blocks.clear();
    g_joined = false;
    (void)kernel;
    return true;
}

/* KERNEL_TASK_TYPE_DEFAULT: on the AIC of a MIX kernel, its two AIVs start (each on a thread of its own); in block 0
 * of a kernel that synchronises its blocks, the other blocks start */
void SetKernelType(int type)
{
    if (type == KERNEL_TYPE_MIX_AIV_1_0 && !g_startedBlock && g_blocks.empty() && g_blockIdx == 0) {
        g_syncArrived = g_syncEnded = 0;
        g_joined = true;
        for (int64_t b = 1; b < g_blockNum; ++b) {
            g_blocks.emplace_back(RunBlock, g_kernel, b, g_blockNum);
        }
    }
    g_mix = type == KERNEL_TYPE_MIX_AIC_1_2;
    if (g_mix && g_coreType == 0 && g_aivs.empty()) {
        for (int sub = 0; sub < 2; ++sub) {
            g_aivs.emplace_back(RunAiv, g_kernel, g_blockIdx, g_blockNum, sub);
        }
    }
}
int CoreType() { return g_coreType; }

void CrossSet(int mode, int id)
{
    if (id < 0 || id >= kCrossIds) {
        Fail("CrossCoreSetFlag: flag id %d is out of range 0..%d", id, kCrossIds - 1);
    }
    if (mode != 2) {
        Fail("CrossCoreSetFlag: mode %d; the CPU mode runs AIC <-> AIV hand-offs (mode 2) only", mode);
    }
    std::lock_guard<std::mutex> lock(g_cross);
    if (g_coreType == 0) {
        ++g_toAiv[0][id];
        ++g_toAiv[1][id];
    } else {
        ++g_fromAiv[g_subBlockIdx][id];
    }
    g_crossChanged.notify_all();
}

bool CrossReady(int core, int id)
{
    if (core == 0) {
        return std::min(g_fromAiv[0][id], g_fromAiv[1][id]) > g_aicWaits[id];
    }
    return g_toAiv[core - 1][id] > 0;
}

/* blocks until the flag has a set this core has not taken; when every core of the AI Core that has not ended
 * waits for a flag none has set, none ever will: the device would wait forever */
void CrossWait(int id)
{
    if (id < 0 || id >= kCrossIds) {
        Fail("CrossCoreWaitFlag: flag id %d is out of range 0..%d", id, kCrossIds - 1);
    }
    const int core = g_coreType == 0 ? 0 : 1 + static_cast<int>(g_subBlockIdx);
    std::unique_lock<std::mutex> lock(g_cross);
    g_waiting[core] = id;
    while (!CrossReady(core, id)) {
        int stuck = g_done;
        for (int c = 0; c < 3; ++c) {
            stuck += g_waiting[c] >= 0 && !CrossReady(c, g_waiting[c]);
        }
        if (stuck == 3) {
            Fail("CrossCoreWaitFlag(%d) on the %s: no core of the AI Core will set it (on the device this waits "
                 "forever)", id, core == 0 ? "AIC" : (core == 1 ? "AIV 0" : "AIV 1"));
        }
        g_crossChanged.wait(lock);
    }
    g_waiting[core] = -1;
    if (core == 0) {
        ++g_aicWaits[id];
    } else {
        --g_toAiv[core - 1][id];
    }
}

void EndAiCore(const char* kernel)
{
    if (g_aivs.empty()) {
        return;
    }
    CoreDone();
    for (auto& t : g_aivs) {
        t.join();
    }
    g_aivs.clear();
    for (int id = 0; id < kCrossIds; ++id) {
        for (int s = 0; s < 2; ++s) {
            if (g_toAiv[s][id] != 0) {
                Fail("kernel %s: the AIC sets cross-core flag %d %d more time(s) than AIV %d waits for it", kernel,
                     id, g_toAiv[s][id], s);
            }
        }
        if (g_fromAiv[0][id] != g_fromAiv[1][id] || g_fromAiv[0][id] != g_aicWaits[id]) {
            Fail("kernel %s: cross-core flag %d is set %d and %d times by the AIVs and waited for %d times by the AIC",
                 kernel, id, g_fromAiv[0][id], g_fromAiv[1][id], g_aicWaits[id]);
        }
    }
}

void EndBlock(const char* kernel)
{
    for (int e = 0; e < kEvents; ++e) {
        for (int i = 0; i < kEventIds; ++i) {
            if (g_flags[e][i] != 0) {
                Fail("kernel %s ends with event %d id %d set and never waited for", kernel, e, i);
            }
        }
    }
}

}  // namespace pyasc_cpu

namespace AscendC {
int64_t GetBlockIdx() { return pyasc_cpu::g_blockIdx; }
int64_t GetBlockNum() { return pyasc_cpu::g_blockNum; }
int64_t GetSubBlockIdx() { return pyasc_cpu::g_subBlockIdx; }
void CrossCoreWaitFlag(uint16_t flagId) { pyasc_cpu::CrossWait(flagId); }
}  // namespace AscendC

/* ---- AscendCL on the CPU ------------------------------------------------------------------- */

extern "C" {
aclError aclInit(const char*) { return ACL_SUCCESS; }
aclError aclFinalize() { return ACL_SUCCESS; }
aclError aclrtSetDevice(int32_t) { return ACL_SUCCESS; }
aclError aclrtResetDevice(int32_t) { return ACL_SUCCESS; }
aclError aclrtCreateStream(aclrtStream* stream)
{
    *stream = nullptr;
    return ACL_SUCCESS;
}
aclError aclrtDestroyStream(aclrtStream) { return ACL_SUCCESS; }
aclError aclrtSynchronizeStream(aclrtStream) { return ACL_SUCCESS; }
aclError aclrtMalloc(void** devPtr, size_t size, aclrtMemMallocPolicy)
{
    /* 32 B aligned, and one extra block so that a kernel may round a tail up without faulting */
    *devPtr = std::aligned_alloc(64, ((size + 63u) / 64u + 1u) * 64u);
    if (*devPtr == nullptr) {
        return 1;
    }
    std::memset(*devPtr, 0, size);
    return ACL_SUCCESS;
}
aclError aclrtFree(void* devPtr)
{
    std::free(devPtr);
    return ACL_SUCCESS;
}
aclError aclrtMemcpy(void* dst, size_t destMax, const void* src, size_t count, aclrtMemcpyKind)
{
    if (count > destMax) {
        return 1;
    }
    std::memcpy(dst, src, count);
    return ACL_SUCCESS;
}
/* a launch on the CPU either completes or stops the program (Fail), so no error is pending */
aclError aclrtGetLastError(aclrtLastErrLevel) { return ACL_SUCCESS; }
}
