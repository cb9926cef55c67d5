/*
 * pyasc CPU mode, part 2 of 2: definitions of the Ascend C subset declared by pyasc's
 * kernel_operator.h, with sequential semantics on host memory.
 *
 * Every call executes immediately and completely; SetFlag/WaitFlag only check that flags pair up,
 * PipeBarrier does nothing, TQue keeps its FIFO and checks its buffers' lifetimes. Values of type
 * half / bfloat16_t are IEEE binary16 / bfloat16 with round-to-nearest-even conversions; vector
 * ops on them compute in float and round the result, as NumPy (the simulator) does. Misuse
 * (out-of-bounds access, overflowing a memory, unpaired flags, an empty DeQue) aborts with a
 * message naming the call.
 */
#ifndef PYASC_CPU_IMPL_H
#define PYASC_CPU_IMPL_H

#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <type_traits>

namespace pyasc_cpu {

/* ---- 16-bit floats ------------------------------------------------------------------------- */

inline uint32_t FloatBits(float f)
{
    uint32_t x;
    std::memcpy(&x, &f, sizeof(x));
    return x;
}

inline float BitsFloat(uint32_t x)
{
    float f;
    std::memcpy(&f, &x, sizeof(f));
    return f;
}

inline uint16_t FloatToHalf(float f)
{
    const uint32_t x = FloatBits(f);
    const uint32_t sign = (x >> 16) & 0x8000u;
    const uint32_t a = x & 0x7fffffffu;
    if (a >= 0x7f800000u) {  // inf or NaN (NaN stays quiet, keeps its top payload bits)
        return static_cast<uint16_t>(sign | (a > 0x7f800000u ? (0x7e00u | ((a >> 13) & 0x3ffu)) : 0x7c00u));
    }
    if (a >= 0x477ff000u) {  // >= 65520 rounds to infinity
        return static_cast<uint16_t>(sign | 0x7c00u);
    }
    if (a < 0x38800000u) {  // below 2^-14: a subnormal half (or zero)
        if (a < 0x33000000u) {  // <= 2^-25 rounds to zero (2^-25 is a tie, to even)
            return static_cast<uint16_t>(sign);
        }
        const uint32_t e = a >> 23;
        const uint32_t m = (a & 0x7fffffu) | 0x800000u;
        const uint32_t shift = 126u - e;
        uint32_t r = m >> shift;
        const uint32_t rem = m & ((1u << shift) - 1u);
        const uint32_t halfway = 1u << (shift - 1u);
        if (rem > halfway || (rem == halfway && (r & 1u))) {
            ++r;
        }
        return static_cast<uint16_t>(sign | r);
    }
    const uint32_t r = a - 0x38000000u;  // rebias the exponent from 127 to 15
    uint32_t h = r >> 13;
    const uint32_t rem = r & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) {
        ++h;  // a carry into the exponent is the correct result
    }
    return static_cast<uint16_t>(sign | h);
}

inline float HalfToFloat(uint16_t h)
{
    const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
    const uint32_t e = (h >> 10) & 0x1fu;
    const uint32_t m = h & 0x3ffu;
    if (e == 0) {
        const float v = std::ldexp(static_cast<float>(m), -24);
        return sign ? -v : v;
    }
    if (e == 31) {
        return BitsFloat(sign | 0x7f800000u | (m << 13));
    }
    return BitsFloat(sign | ((e + 112u) << 23) | (m << 13));
}

inline uint16_t FloatToBf16(float f)
{
    const uint32_t x = FloatBits(f);
    if ((x & 0x7fffffffu) > 0x7f800000u) {
        return static_cast<uint16_t>((x >> 16) | 0x40u);
    }
    return static_cast<uint16_t>((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

inline float Bf16ToFloat(uint16_t b) { return BitsFloat(static_cast<uint32_t>(b) << 16); }

}  // namespace pyasc_cpu

inline half::half(float value) : bits(pyasc_cpu::FloatToHalf(value)) {}
inline half::operator float() const { return pyasc_cpu::HalfToFloat(bits); }
inline bfloat16_t::bfloat16_t(float value) : bits(pyasc_cpu::FloatToBf16(value)) {}
inline bfloat16_t::operator float() const { return pyasc_cpu::Bf16ToFloat(bits); }

namespace pyasc_cpu {

/* the type vector ops compute in: float for the 16-bit floats, else the type itself */
template <typename T>
struct Calc {
    using type = T;
};
template <>
struct Calc<half> {
    using type = float;
};
template <>
struct Calc<bfloat16_t> {
    using type = float;
};
template <typename T>
using C = typename Calc<T>::type;

template <typename T>
constexpr bool IsFloat = std::is_floating_point<T>::value || std::is_same<T, half>::value ||
                         std::is_same<T, bfloat16_t>::value;

template <typename V>
inline bool IsNan(V v)
{
    if constexpr (std::is_floating_point<V>::value) {
        return v != v;
    } else {
        return false;
    }
}

/* NumPy's maximum/minimum: the first operand when it is NaN or compares greater/less, else the second */
template <typename V>
inline V NpMax(V a, V b) { return (a > b || IsNan(a)) ? a : b; }
template <typename V>
inline V NpMin(V a, V b) { return (a < b || IsNan(a)) ? a : b; }

Mem PositionMem(AscendC::TPosition pos, const char* what);

/* the current block's flag bookkeeping (pyasc_cpu.cpp) */
void FlagSet(int event, int32_t id, const char* name);
void FlagWait(int event, int32_t id, const char* name);
void CrossSet(int mode, int id);
void SyncAllBlocks();
void Warn(const char* fmt, ...);

template <typename T>
inline void CheckLocal(const AscendC::LocalTensor<T>& t, int64_t count, const char* api)
{
    if (count < 0) {
        Fail("%s: negative count %lld", api, static_cast<long long>(count));
    }
    if (t.cpuData_ == nullptr) {
        Fail("%s: a LocalTensor that has no memory (never allocated, or default-constructed)", api);
    }
    if (static_cast<uint64_t>(count) > t.cpuSize_) {
        Fail("%s: %lld elements, but the %s tensor at byte %u holds %u", api, static_cast<long long>(count),
             MemName(t.cpuMem_), t.cpuAddr_, t.cpuSize_);
    }
    if (t.cpuAddr_ % 32u != 0) {
        Fail("%s: %s address %u is not 32 B aligned", api, MemName(t.cpuMem_), t.cpuAddr_);
    }
}

template <typename T>
inline void CheckGlobal(const AscendC::GlobalTensor<T>& t, uint64_t count, const char* api)
{
    if (t.cpuData_ == nullptr) {
        Fail("%s: a GlobalTensor without SetGlobalBuffer", api);
    }
    if (count > t.cpuSize_) {
        Fail("%s: %llu elements, but the global tensor holds %llu", api, static_cast<unsigned long long>(count),
             static_cast<unsigned long long>(t.cpuSize_));
    }
}

template <typename T>
inline AscendC::LocalTensor<T> MakeLocal(Mem mem, uint32_t addr, uint32_t bytes)
{
    AscendC::LocalTensor<T> t;
    t.cpuMem_ = mem;
    t.cpuAddr_ = addr;
    t.cpuSize_ = bytes / static_cast<uint32_t>(sizeof(T));
    t.cpuData_ = reinterpret_cast<T*>(MemBase(mem) + addr);
    return t;
}

/* one step from a 16-bit float towards +inf (up) or -inf, on its bits */
inline uint16_t Step16(uint16_t bits, bool up)
{
    const bool neg = (bits & 0x8000u) != 0;
    if ((bits & 0x7fffu) == 0) {
        return up ? 0x0001u : 0x8001u;
    }
    return static_cast<uint16_t>(up != neg ? bits + 1u : bits - 1u);
}

inline uint32_t Step32(uint32_t bits, bool up)
{
    const bool neg = (bits & 0x80000000u) != 0;
    if ((bits & 0x7fffffffu) == 0) {
        return up ? 0x1u : 0x80000001u;
    }
    return up != neg ? bits + 1u : bits - 1u;
}

/* x rounded into the float type T with an Ascend C round mode (as the simulator's round_float) */
template <typename T>
inline T RoundFloat(double x, AscendC::RoundMode mode)
{
    using AscendC::RoundMode;
    T r = static_cast<T>(static_cast<float>(x));  // nearest even (x is exact in float for our sources)
    if constexpr (std::is_same<T, double>::value) {
        return static_cast<T>(x);
    } else {
        if (std::is_same<T, float>::value) {
            r = static_cast<T>(static_cast<float>(x));
        }
        const double rx = static_cast<double>(static_cast<float>(r));
        if (mode == RoundMode::CAST_NONE || mode == RoundMode::CAST_RINT || !std::isfinite(x) || rx == x) {
            return r;
        }
        auto step = [](T v, bool up) -> T {
            T out;
            if constexpr (sizeof(T) == 2) {
                uint16_t b;
                std::memcpy(&b, &v, 2);
                b = Step16(b, up);
                std::memcpy(&out, &b, 2);
            } else {
                uint32_t b;
                std::memcpy(&b, &v, 4);
                b = Step32(b, up);
                std::memcpy(&out, &b, 4);
            }
            return out;
        };
        const bool above = rx > x;
        const T lower = above ? step(r, false) : r;
        const T upper = above ? r : step(r, true);
        switch (mode) {
            case RoundMode::CAST_FLOOR: return lower;
            case RoundMode::CAST_CEIL: return upper;
            case RoundMode::CAST_TRUNC: return x >= 0 ? lower : upper;
            case RoundMode::CAST_ODD: {
                uint32_t bits = 0;
                std::memcpy(&bits, &r, sizeof(T));
                return (bits & 1u) ? r : step(r, !above);
            }
            case RoundMode::CAST_ROUND: {
                const double dl = x - static_cast<double>(static_cast<float>(lower));
                const double du = static_cast<double>(static_cast<float>(upper)) - x;
                if (dl == du) {
                    return x >= 0 ? upper : lower;  // ties away from zero
                }
                return r;
            }
            default: return r;
        }
    }
}

template <typename T>
inline T RoundInt(double x, AscendC::RoundMode mode)
{
    using AscendC::RoundMode;
    if (x != x) {
        return static_cast<T>(0);
    }
    switch (mode) {
        case RoundMode::CAST_FLOOR: x = std::floor(x); break;
        case RoundMode::CAST_CEIL: x = std::ceil(x); break;
        case RoundMode::CAST_TRUNC: x = std::trunc(x); break;
        case RoundMode::CAST_ROUND: x = std::copysign(std::floor(std::fabs(x) + 0.5), x); break;
        default: x = std::nearbyint(x); break;
    }
    const double lo = static_cast<double>(std::numeric_limits<T>::min());
    const double hi = static_cast<double>(std::numeric_limits<T>::max());
    return static_cast<T>(x < lo ? lo : (x > hi ? hi : x));
}

template <typename T>
inline T TreeSum(const T* v, int32_t n, int32_t slots)
{
    /* the pairwise sum of one repeat: slots values (the missing ones 0), halved each step, every
     * partial sum rounded to T */
    T buf[128];
    for (int32_t i = 0; i < slots; ++i) {
        buf[i] = i < n ? v[i] : static_cast<T>(0);
    }
    for (int32_t width = slots; width > 1; width /= 2) {
        for (int32_t i = 0; i < width / 2; ++i) {
            buf[i] = static_cast<T>(static_cast<C<T>>(buf[2 * i]) + static_cast<C<T>>(buf[2 * i + 1]));
        }
    }
    return buf[0];
}

template <typename T>
inline void StoreIndex(T* p, uint32_t index)
{
    if constexpr (sizeof(T) == 2) {
        const uint16_t b = static_cast<uint16_t>(index);
        std::memcpy(p, &b, 2);
    } else if constexpr (sizeof(T) == 4) {
        std::memcpy(p, &index, 4);
    } else {
        *p = static_cast<T>(index);
    }
}

template <typename T, bool isMax>
inline void ReduceExtreme(const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src, int32_t count,
                          bool calIndex, const char* api)
{
    CheckLocal(src, count, api);
    CheckLocal(dst, calIndex ? 2 : 1, api);
    if (count <= 0) {
        return;
    }
    uint32_t best = 0;
    for (int32_t i = 1; i < count; ++i) {
        const C<T> v = static_cast<C<T>>(src.cpuData_[i]);
        const C<T> b = static_cast<C<T>>(src.cpuData_[best]);
        if (isMax ? (v > b) : (v < b)) {
            best = static_cast<uint32_t>(i);
        }
    }
    const T value = src.cpuData_[best];
    dst.cpuData_[0] = value;
    if (calIndex) {
        StoreIndex(dst.cpuData_ + 1, best);
    }
}

template <typename T, int kind>  // kind: 0 sum, 1 max, 2 min
inline void WholeReduce(const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src, int32_t mask,
                        int32_t repeatTime, int32_t dstRepStride, int32_t srcBlkStride, int32_t srcRepStride,
                        AscendC::ReduceOrder order, const char* api)
{
    const int32_t epb = 32 / static_cast<int32_t>(sizeof(T));
    const int32_t slots = 256 / static_cast<int32_t>(sizeof(T));
    if (mask < 1 || mask > slots) {
        Fail("%s: mask %d is outside 1..%d", api, mask, slots);
    }
    const bool pair = kind != 0 && (order == AscendC::ReduceOrder::ORDER_VALUE_INDEX ||
                                    order == AscendC::ReduceOrder::ORDER_INDEX_VALUE);
    for (int32_t r = 0; r < repeatTime; ++r) {
        T vals[128];
        for (int32_t i = 0; i < mask; ++i) {
            const int64_t at = static_cast<int64_t>(r) * srcRepStride * epb +
                               static_cast<int64_t>(i / epb) * srcBlkStride * epb + i % epb;
            CheckLocal(src, at + 1, api);
            vals[i] = src.cpuData_[at];
        }
        const int64_t out = static_cast<int64_t>(r) * dstRepStride * (pair ? 2 : 1);
        CheckLocal(dst, out + (pair ? 2 : 1), api);
        if (kind == 0) {
            dst.cpuData_[out] = TreeSum(vals, mask, slots);
            continue;
        }
        uint32_t best = 0;
        for (int32_t i = 1; i < mask; ++i) {
            const C<T> v = static_cast<C<T>>(vals[i]);
            const C<T> b = static_cast<C<T>>(vals[best]);
            if (kind == 1 ? (v > b) : (v < b)) {
                best = static_cast<uint32_t>(i);
            }
        }
        switch (order) {
            case AscendC::ReduceOrder::ORDER_VALUE_INDEX:
                dst.cpuData_[out] = vals[best];
                StoreIndex(dst.cpuData_ + out + 1, best);
                break;
            case AscendC::ReduceOrder::ORDER_INDEX_VALUE:
                StoreIndex(dst.cpuData_ + out, best);
                dst.cpuData_[out + 1] = vals[best];
                break;
            case AscendC::ReduceOrder::ORDER_ONLY_VALUE: dst.cpuData_[out] = vals[best]; break;
            case AscendC::ReduceOrder::ORDER_ONLY_INDEX: StoreIndex(dst.cpuData_ + out, best); break;
        }
    }
}

}  // namespace pyasc_cpu

namespace AscendC {

/* ---- tensors ------------------------------------------------------------------------------- */

template <typename T>
inline void GlobalTensor<T>::SetGlobalBuffer(__gm__ T* buffer, uint64_t bufferSize)
{
    cpuData_ = buffer;
    cpuSize_ = bufferSize;
}

template <typename T>
inline void GlobalTensor<T>::SetGlobalBuffer(__gm__ T* buffer)
{
    cpuData_ = buffer;
    cpuSize_ = UINT64_MAX / sizeof(T);
}

template <typename T>
inline GlobalTensor<T> GlobalTensor<T>::operator[](const uint64_t offset) const
{
    if (offset > cpuSize_) {
        pyasc_cpu::Fail("GlobalTensor[%llu]: past the end of a tensor of %llu elements",
                        static_cast<unsigned long long>(offset), static_cast<unsigned long long>(cpuSize_));
    }
    GlobalTensor<T> t;
    t.cpuData_ = cpuData_ + offset;
    t.cpuSize_ = cpuSize_ - offset;
    return t;
}

template <typename T>
inline T GlobalTensor<T>::GetValue(const uint64_t offset) const
{
    pyasc_cpu::CheckGlobal(*this, offset + 1, "GlobalTensor::GetValue");
    return cpuData_[offset];
}

template <typename T>
inline void GlobalTensor<T>::SetValue(const uint64_t offset, T value)
{
    pyasc_cpu::CheckGlobal(*this, offset + 1, "GlobalTensor::SetValue");
    cpuData_[offset] = value;
}

template <typename T>
inline LocalTensor<T>::LocalTensor(TPosition pos, uint32_t addr, uint32_t tileSize)
{
    cpuMem_ = pyasc_cpu::PositionMem(pos, "LocalTensor");
    const uint64_t end = static_cast<uint64_t>(addr) + static_cast<uint64_t>(tileSize) * sizeof(T);
    if (end > pyasc_cpu::MemSize(cpuMem_)) {
        pyasc_cpu::Fail("LocalTensor: [%u, %llu) overflows the %u B of %s", addr, static_cast<unsigned long long>(end),
                        pyasc_cpu::MemSize(cpuMem_), pyasc_cpu::MemName(cpuMem_));
    }
    cpuAddr_ = addr;
    cpuSize_ = tileSize;
    cpuData_ = reinterpret_cast<T*>(pyasc_cpu::MemBase(cpuMem_) + addr);
}

template <typename T>
inline LocalTensor<T>::LocalTensor(uint32_t addr)
    : LocalTensor(TPosition::VECCALC, addr,
                  (pyasc_cpu::MemSize(pyasc_cpu::Mem::UB) - (addr < pyasc_cpu::MemSize(pyasc_cpu::Mem::UB)
                                                                 ? addr
                                                                 : pyasc_cpu::MemSize(pyasc_cpu::Mem::UB))) /
                      sizeof(T))
{
}

template <typename T>
inline LocalTensor<T> LocalTensor<T>::operator[](const uint32_t offset) const
{
    if (offset > cpuSize_) {
        pyasc_cpu::Fail("LocalTensor[%u]: past the end of a tensor of %u elements", offset, cpuSize_);
    }
    LocalTensor<T> t = *this;
    t.cpuData_ = cpuData_ + offset;
    t.cpuSize_ = cpuSize_ - offset;
    t.cpuAddr_ = cpuAddr_ + offset * static_cast<uint32_t>(sizeof(T));
    return t;
}

template <typename T>
inline T LocalTensor<T>::GetValue(const uint32_t offset) const
{
    if (cpuData_ == nullptr || offset >= cpuSize_) {
        pyasc_cpu::Fail("LocalTensor::GetValue(%u): outside a tensor of %u elements", offset, cpuSize_);
    }
    return cpuData_[offset];
}

template <typename T>
template <typename T1>
inline void LocalTensor<T>::SetValue(const uint32_t index, const T1 value) const
{
    if (cpuData_ == nullptr || index >= cpuSize_) {
        pyasc_cpu::Fail("LocalTensor::SetValue(%u): outside a tensor of %u elements", index, cpuSize_);
    }
    cpuData_[index] = static_cast<T>(value);
}

template <typename T>
inline uint32_t LocalTensor<T>::GetSize() const
{
    return cpuSize_;
}

template <typename T>
inline uint64_t LocalTensor<T>::GetPhyAddr() const
{
    return reinterpret_cast<uint64_t>(cpuData_);  /* on the CPU, the host address of the tensor's memory */
}

template <typename T>
template <typename U>
inline LocalTensor<U> LocalTensor<T>::ReinterpretCast() const
{
    LocalTensor<U> t;
    t.cpuData_ = reinterpret_cast<U*>(cpuData_);
    t.cpuSize_ = static_cast<uint32_t>(static_cast<uint64_t>(cpuSize_) * sizeof(T) / sizeof(U));
    t.cpuAddr_ = cpuAddr_;
    t.cpuMem_ = cpuMem_;
    return t;
}

/* ---- TPipe / TQue / TBuf ------------------------------------------------------------------- */

template <class Q>
inline bool TPipe::InitBuffer(Q& que, uint8_t num, uint32_t len)
{
    const pyasc_cpu::Mem mem = pyasc_cpu::PositionMem(Q::cpuPos_, "TPipe::InitBuffer");
    uint32_t& next = cpu_.next[static_cast<int>(mem)];
    const uint32_t base = (next + 31u) & ~31u;
    const uint64_t end = static_cast<uint64_t>(base) + static_cast<uint64_t>(num) * len;
    if (num == 0 || num > 16 || len == 0) {
        pyasc_cpu::Fail("TPipe::InitBuffer: %u buffers of %u bytes", num, len);
    }
    if (end > pyasc_cpu::MemSize(mem)) {
        pyasc_cpu::Fail("TPipe::InitBuffer: %u x %u B from byte %u overflows the %u B of %s", num, len, base,
                        pyasc_cpu::MemSize(mem), pyasc_cpu::MemName(mem));
    }
    next = static_cast<uint32_t>(end);
    que.cpu_ = pyasc_cpu::QueueState{};
    que.cpu_.mem = mem;
    que.cpu_.base = base;
    que.cpu_.len = len;
    que.cpu_.num = num;
    que.cpu_.initialised = true;
    return true;
}

template <TPosition bufPos>
inline bool TPipe::InitBuffer(TBuf<bufPos>& buf, uint32_t len)
{
    const pyasc_cpu::Mem mem = pyasc_cpu::PositionMem(bufPos, "TPipe::InitBuffer");
    uint32_t& next = cpu_.next[static_cast<int>(mem)];
    const uint32_t base = (next + 31u) & ~31u;
    const uint64_t end = static_cast<uint64_t>(base) + len;
    if (end > pyasc_cpu::MemSize(mem)) {
        pyasc_cpu::Fail("TPipe::InitBuffer: %u B from byte %u overflows the %u B of %s", len, base,
                        pyasc_cpu::MemSize(mem), pyasc_cpu::MemName(mem));
    }
    next = static_cast<uint32_t>(end);
    buf.cpu_.mem = mem;
    buf.cpu_.base = base;
    buf.cpu_.len = len;
    buf.cpu_.initialised = true;
    return true;
}

inline void TPipe::Reset()
{
    cpu_ = pyasc_cpu::PipeState{};
}

template <HardEvent evt>
inline TEventID TPipe::AllocEventID()
{
    uint32_t& used = cpu_.events[static_cast<int>(evt)];
    for (int id = 0; id < pyasc_cpu::kEventPool; ++id) {
        if (!(used & (1u << id))) {
            used |= 1u << id;
            return static_cast<TEventID>(id);
        }
    }
    pyasc_cpu::Fail("TPipe::AllocEventID: all %d event ids of HardEvent %d are taken (ReleaseEventID missing?)",
                    pyasc_cpu::kEventPool, static_cast<int>(evt));
}

template <HardEvent evt>
inline void TPipe::ReleaseEventID(TEventID id)
{
    uint32_t& used = cpu_.events[static_cast<int>(evt)];
    if (id < 0 || id >= pyasc_cpu::kEventPool || !(used & (1u << id))) {
        pyasc_cpu::Fail("TPipe::ReleaseEventID: id %d of HardEvent %d was not taken by AllocEventID", static_cast<int>(id),
                        static_cast<int>(evt));
    }
    used &= ~(1u << id);
}

template <TPosition pos, int32_t depth, auto mask>
template <typename T>
inline LocalTensor<T> TQue<pos, depth, mask>::AllocTensor()
{
    if (!cpu_.initialised) {
        pyasc_cpu::Fail("TQue::AllocTensor on a queue without InitBuffer");
    }
    const uint32_t slot = cpu_.next % cpu_.num;
    if (cpu_.live & (1u << slot)) {
        pyasc_cpu::Fail("TQue::AllocTensor: all %u buffers of the queue are in use (FreeTensor missing)", cpu_.num);
    }
    cpu_.live |= 1u << slot;
    ++cpu_.next;
    return pyasc_cpu::MakeLocal<T>(cpu_.mem, cpu_.base + slot * cpu_.len, cpu_.len);
}

template <TPosition pos, int32_t depth, auto mask>
template <typename T>
inline bool TQue<pos, depth, mask>::EnQue(const LocalTensor<T>& tensor)
{
    const uint32_t rel = tensor.cpuAddr_ - cpu_.base;
    if (!cpu_.initialised || tensor.cpuMem_ != cpu_.mem || tensor.cpuAddr_ < cpu_.base || rel % cpu_.len ||
        rel / cpu_.len >= cpu_.num) {
        pyasc_cpu::Fail("TQue::EnQue of a tensor that is not a buffer of this queue");
    }
    if (cpu_.count >= cpu_.num) {
        pyasc_cpu::Fail("TQue::EnQue on a full queue");
    }
    if (depth > 0 && cpu_.count >= static_cast<uint32_t>(depth)) {
        pyasc_cpu::Fail("TQue::EnQue: the queue's depth is %d and it already holds %u tensors (DeQue first)",
                        static_cast<int>(depth), cpu_.count);
    }
    cpu_.fifo[(cpu_.head + cpu_.count) % 16u] = rel / cpu_.len;
    ++cpu_.count;
    return true;
}

template <TPosition pos, int32_t depth, auto mask>
template <typename T>
inline LocalTensor<T> TQue<pos, depth, mask>::DeQue()
{
    if (cpu_.count == 0) {
        pyasc_cpu::Fail("TQue::DeQue on an empty queue (it would wait forever)");
    }
    const uint32_t slot = cpu_.fifo[cpu_.head];
    cpu_.head = (cpu_.head + 1u) % 16u;
    --cpu_.count;
    return pyasc_cpu::MakeLocal<T>(cpu_.mem, cpu_.base + slot * cpu_.len, cpu_.len);
}

template <TPosition pos, int32_t depth, auto mask>
template <typename T>
inline void TQue<pos, depth, mask>::FreeTensor(LocalTensor<T>& tensor)
{
    const uint32_t rel = tensor.cpuAddr_ - cpu_.base;
    if (!cpu_.initialised || tensor.cpuAddr_ < cpu_.base || rel % cpu_.len || rel / cpu_.len >= cpu_.num ||
        !(cpu_.live & (1u << (rel / cpu_.len)))) {
        pyasc_cpu::Fail("TQue::FreeTensor of a tensor that is not a live buffer of this queue");
    }
    cpu_.live &= ~(1u << (rel / cpu_.len));
}

template <TPosition pos>
template <typename T>
inline LocalTensor<T> TBuf<pos>::Get()
{
    if (!cpu_.initialised) {
        pyasc_cpu::Fail("TBuf::Get on a buffer without InitBuffer");
    }
    return pyasc_cpu::MakeLocal<T>(cpu_.mem, cpu_.base, cpu_.len);
}

template <TPosition pos>
template <typename T>
inline LocalTensor<T> TBuf<pos>::Get(uint32_t len)
{
    LocalTensor<T> t = Get<T>();
    if (len > t.cpuSize_) {
        pyasc_cpu::Fail("TBuf::Get(%u): the buffer holds %u elements", len, t.cpuSize_);
    }
    t.cpuSize_ = len;
    return t;
}

/* ---- data movement ------------------------------------------------------------------------- */

template <typename T>
inline uint32_t CpuCopyCount(uint32_t count, const char* api)
{
    const uint64_t bytes = static_cast<uint64_t>(count) * sizeof(T);
    if (bytes % 32u) {
        pyasc_cpu::Warn("%s of %llu bytes is not a multiple of 32 B: the hardware moves %llu", api,
                        static_cast<unsigned long long>(bytes), static_cast<unsigned long long>(bytes & ~31ull));
        return static_cast<uint32_t>((bytes & ~31ull) / sizeof(T));
    }
    return count;
}

template <typename T>
inline void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const uint32_t count)
{
    const uint32_t n = CpuCopyCount<T>(count, "DataCopy GM->local");
    pyasc_cpu::CheckLocal(dst, n, "DataCopy GM->local");
    pyasc_cpu::CheckGlobal(src, n, "DataCopy GM->local");
    std::memmove(dst.cpuData_, src.cpuData_, static_cast<size_t>(n) * sizeof(T));
}

template <typename T>
inline void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t count)
{
    const uint32_t n = CpuCopyCount<T>(count, "DataCopy local->GM");
    pyasc_cpu::CheckLocal(src, n, "DataCopy local->GM");
    pyasc_cpu::CheckGlobal(dst, n, "DataCopy local->GM");
    std::memmove(dst.cpuData_, src.cpuData_, static_cast<size_t>(n) * sizeof(T));
}

template <typename T>
inline void DataCopy(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t count)
{
    const uint32_t n = CpuCopyCount<T>(count, "DataCopy local->local");
    pyasc_cpu::CheckLocal(dst, n, "DataCopy local->local");
    pyasc_cpu::CheckLocal(src, n, "DataCopy local->local");
    std::memmove(dst.cpuData_, src.cpuData_, static_cast<size_t>(n) * sizeof(T));
}

template <typename T>
inline void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const Nd2NzParams& p)
{
    const uint32_t c0 = 32u / static_cast<uint32_t>(sizeof(T));
    const uint32_t dAligned = (p.dValue + c0 - 1u) / c0 * c0;
    for (uint32_t nd = 0; nd < p.ndNum; ++nd) {
        const uint64_t srcBase = static_cast<uint64_t>(nd) * p.srcNdMatrixStride;
        const uint64_t dstBase = static_cast<uint64_t>(nd) * p.dstNzMatrixStride;
        for (uint32_t r = 0; r < p.nValue; ++r) {
            for (uint32_t c = 0; c < dAligned; ++c) {
                const uint64_t at = dstBase + static_cast<uint64_t>(c / c0) * p.dstNzC0Stride * c0 +
                                    static_cast<uint64_t>(r) * p.dstNzNStride * c0 + c % c0;
                pyasc_cpu::CheckLocal(dst, static_cast<int64_t>(at + 1), "DataCopy (Nd2Nz)");
                if (c < p.dValue) {
                    const uint64_t from = srcBase + static_cast<uint64_t>(r) * p.srcDValue + c;
                    pyasc_cpu::CheckGlobal(src, from + 1, "DataCopy (Nd2Nz)");
                    dst.cpuData_[at] = src.cpuData_[from];
                } else {
                    dst.cpuData_[at] = static_cast<T>(0);
                }
            }
        }
    }
}

template <typename T>
inline void InitConstValue(const LocalTensor<T>& dst, const InitConstValueParams<T>& p)
{
    const uint64_t per = 32u / sizeof(T);  // elements of a 32 B block (L1)
    for (uint64_t r = 0; r < p.repeatTimes; ++r) {
        const uint64_t base = r * (static_cast<uint64_t>(p.blockNum) + p.dstGap) * per;
        const uint64_t n = static_cast<uint64_t>(p.blockNum) * per;
        pyasc_cpu::CheckLocal(dst, static_cast<int64_t>(base + n), "InitConstValue");
        for (uint64_t i = 0; i < n; ++i) {
            dst.cpuData_[base + i] = p.initValue;
        }
    }
}

template <typename T>
inline void DataCopyPad(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const DataCopyExtParams& p,
                        const DataCopyPadExtParams<T>& pad)
{
    if (p.blockCount == 0 || p.blockLen == 0) {
        return;
    }
    const uint64_t blk = (p.blockLen + 31u) & ~31u;
    const uint64_t us = blk + static_cast<uint64_t>(p.dstStride) * 32u;
    const uint64_t gs = p.blockLen + static_cast<uint64_t>(p.srcStride);
    const uint64_t span = (p.blockCount - 1u) * us + blk;
    const uint64_t gend = (p.blockCount - 1u) * gs + p.blockLen;
    pyasc_cpu::CheckLocal(dst, static_cast<int64_t>((span + sizeof(T) - 1) / sizeof(T)), "DataCopyPad GM->local");
    pyasc_cpu::CheckGlobal(src, (gend + sizeof(T) - 1) / sizeof(T), "DataCopyPad GM->local");
    uint8_t* u = reinterpret_cast<uint8_t*>(dst.cpuData_);
    const uint8_t* g = reinterpret_cast<const uint8_t*>(src.cpuData_);
    for (uint32_t i = 0; i < p.blockCount; ++i) {
        std::memcpy(u + i * us, g + i * gs, p.blockLen);
        if (pad.isPad) {  // rightPadding elements of paddingValue after the block, within its last 32 B
            T* tail = reinterpret_cast<T*>(u + i * us + p.blockLen);
            const uint64_t n = pad.rightPadding * sizeof(T) <= blk - p.blockLen ? pad.rightPadding
                                                                               : (blk - p.blockLen) / sizeof(T);
            for (uint64_t k = 0; k < n; ++k) {
                tail[k] = pad.paddingValue;
            }
        }
    }
}

template <typename T>
inline void DataCopyPad(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyExtParams& p)
{
    if (p.blockCount == 0 || p.blockLen == 0) {
        return;
    }
    const uint64_t blk = (p.blockLen + 31u) & ~31u;
    const uint64_t us = blk + static_cast<uint64_t>(p.srcStride) * 32u;
    const uint64_t gs = p.blockLen + static_cast<uint64_t>(p.dstStride);
    const uint64_t span = (p.blockCount - 1u) * us + blk;
    const uint64_t gend = (p.blockCount - 1u) * gs + p.blockLen;
    pyasc_cpu::CheckLocal(src, static_cast<int64_t>((span + sizeof(T) - 1) / sizeof(T)), "DataCopyPad local->GM");
    pyasc_cpu::CheckGlobal(dst, (gend + sizeof(T) - 1) / sizeof(T), "DataCopyPad local->GM");
    const uint8_t* u = reinterpret_cast<const uint8_t*>(src.cpuData_);
    uint8_t* g = reinterpret_cast<uint8_t*>(dst.cpuData_);
    for (uint32_t i = 0; i < p.blockCount; ++i) {
        std::memcpy(g + i * gs, u + i * us, p.blockLen);
    }
}

/* ---- vector compute ------------------------------------------------------------------------ */

#define PYASC_CPU_BINARY(NAME, EXPR)                                                                   \
    template <typename T>                                                                              \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, \
                     const int32_t& count)                                                             \
    {                                                                                                  \
        using V = pyasc_cpu::C<T>;                                                                     \
        pyasc_cpu::CheckLocal(dst, count, #NAME);                                                      \
        pyasc_cpu::CheckLocal(src0, count, #NAME);                                                     \
        pyasc_cpu::CheckLocal(src1, count, #NAME);                                                     \
        for (int32_t i = 0; i < count; ++i) {                                                          \
            const V a = static_cast<V>(src0.cpuData_[i]);                                              \
            const V b = static_cast<V>(src1.cpuData_[i]);                                              \
            dst.cpuData_[i] = static_cast<T>(EXPR);                                                    \
        }                                                                                              \
    }
PYASC_CPU_BINARY(Add, a + b)
PYASC_CPU_BINARY(Sub, a - b)
PYASC_CPU_BINARY(Mul, a * b)
PYASC_CPU_BINARY(Div, a / b)
PYASC_CPU_BINARY(Max, pyasc_cpu::NpMax(a, b))
PYASC_CPU_BINARY(Min, pyasc_cpu::NpMin(a, b))
PYASC_CPU_BINARY(And, a & b)
PYASC_CPU_BINARY(Or, a | b)
#undef PYASC_CPU_BINARY

#define PYASC_CPU_UNARY(NAME, EXPR)                                                                       \
    template <typename T>                                                                                 \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t& count)         \
    {                                                                                                     \
        using V = pyasc_cpu::C<T>;                                                                        \
        pyasc_cpu::CheckLocal(dst, count, #NAME);                                                         \
        pyasc_cpu::CheckLocal(src, count, #NAME);                                                         \
        for (int32_t i = 0; i < count; ++i) {                                                             \
            const V x = static_cast<V>(src.cpuData_[i]);                                                  \
            dst.cpuData_[i] = static_cast<T>(EXPR);                                                       \
        }                                                                                                 \
    }
/* float exp/ln in double, rounded once (correctly rounded); 16-bit types through float */
#define PYASC_CPU_WIDE(F) \
    static_cast<V>(std::is_same<T, float>::value ? F(static_cast<double>(x)) : static_cast<double>(F(x)))
PYASC_CPU_UNARY(Exp, PYASC_CPU_WIDE(std::exp))
PYASC_CPU_UNARY(Ln, PYASC_CPU_WIDE(std::log))
PYASC_CPU_UNARY(Abs, std::fabs(x))
PYASC_CPU_UNARY(Sqrt, std::sqrt(x))
/* as the simulator: the square root rounded to T, then its reciprocal */
PYASC_CPU_UNARY(Rsqrt, V(1) / static_cast<V>(static_cast<T>(std::sqrt(x))))
PYASC_CPU_UNARY(Reciprocal, V(1) / x)
PYASC_CPU_UNARY(Relu, pyasc_cpu::NpMax(x, V(0)))
#undef PYASC_CPU_UNARY

/* Sin, Cos, Tan: computed in float and rounded to T; the scratch must hold the documented minimum
   (FACTOR live temporaries of one 256 B repeat) and dst, src and scratch must not overlap */
#define PYASC_CPU_UNARY_SCRATCH(NAME, F, HALF_FACTOR, FLOAT_FACTOR)                                       \
    template <typename T, bool isReuseSource>                                                             \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src,                               \
                     const LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t calCount)                \
    {                                                                                                     \
        const int64_t count = static_cast<int64_t>(calCount);                                             \
        const uint32_t need = (sizeof(T) == 2 ? HALF_FACTOR : FLOAT_FACTOR) * 256u;                       \
        pyasc_cpu::CheckLocal(dst, count, #NAME);                                                         \
        pyasc_cpu::CheckLocal(src, count, #NAME);                                                         \
        pyasc_cpu::CheckLocal(sharedTmpBuffer, need, #NAME);                                              \
        const uint32_t bytes = static_cast<uint32_t>(count * sizeof(T));                                  \
        const uint32_t d0 = dst.cpuAddr_, s0 = src.cpuAddr_, t0 = sharedTmpBuffer.cpuAddr_;               \
        if ((d0 < s0 + bytes && s0 < d0 + bytes) || (t0 < d0 + bytes && d0 < t0 + need) ||                \
            (t0 < s0 + bytes && s0 < t0 + need)) {                                                        \
            pyasc_cpu::Fail("%s: dst, src and sharedTmpBuffer must not overlap", #NAME);                  \
        }                                                                                                 \
        for (int64_t i = 0; i < count; ++i) {                                                             \
            dst.cpuData_[i] = static_cast<T>(F(static_cast<float>(src.cpuData_[i])));                     \
        }                                                                                                 \
        for (uint32_t i = 0; i < need; ++i) {                                                             \
            sharedTmpBuffer.cpuData_[i] = 0xA5; /* clobbered */                                           \
        }                                                                                                 \
    }
PYASC_CPU_UNARY_SCRATCH(Sin, std::sin, 8, 3)
PYASC_CPU_UNARY_SCRATCH(Cos, std::cos, 8, 3)
PYASC_CPU_UNARY_SCRATCH(Tan, std::tan, 10, 4)
#undef PYASC_CPU_UNARY_SCRATCH

#define PYASC_CPU_SCALAR(NAME, EXPR)                                                                    \
    template <typename T, bool isSetMask>                                                               \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const T& scalarValue,       \
                     const int32_t& count)                                                              \
    {                                                                                                   \
        using V = pyasc_cpu::C<T>;                                                                      \
        pyasc_cpu::CheckLocal(dst, count, #NAME);                                                       \
        pyasc_cpu::CheckLocal(src, count, #NAME);                                                       \
        const V s = static_cast<V>(scalarValue);                                                        \
        for (int32_t i = 0; i < count; ++i) {                                                           \
            const V a = static_cast<V>(src.cpuData_[i]);                                                \
            dst.cpuData_[i] = static_cast<T>(EXPR);                                                     \
        }                                                                                               \
    }
PYASC_CPU_SCALAR(Adds, a + s)
PYASC_CPU_SCALAR(Muls, a * s)
PYASC_CPU_SCALAR(Maxs, pyasc_cpu::NpMax(a, s))
PYASC_CPU_SCALAR(Mins, pyasc_cpu::NpMin(a, s))
/* the doc's formula: src where src >= 0, else scalarValue * src */
PYASC_CPU_SCALAR(LeakyRelu, a >= V(0) ? a : a * s)
#undef PYASC_CPU_SCALAR

template <typename T>
inline void Duplicate(const LocalTensor<T>& dst, const T& scalarValue, const int32_t& count)
{
    pyasc_cpu::CheckLocal(dst, count, "Duplicate");
    for (int32_t i = 0; i < count; ++i) {
        dst.cpuData_[i] = scalarValue;
    }
}

template <typename T>
inline void CreateVecIndex(LocalTensor<T> dst, const T& firstValue, uint32_t count)
{
    using V = pyasc_cpu::C<T>;
    pyasc_cpu::CheckLocal(dst, count, "CreateVecIndex");
    const V first = static_cast<V>(firstValue);
    for (uint32_t i = 0; i < count; ++i) {
        dst.cpuData_[i] = static_cast<T>(first + static_cast<V>(i));
    }
}

template <typename T>
inline void Gather(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint32_t>& srcOffset,
                   const uint32_t srcBaseAddr, const uint32_t count)
{
    pyasc_cpu::CheckLocal(dst, count, "Gather");
    pyasc_cpu::CheckLocal(srcOffset, count, "Gather");
    pyasc_cpu::CheckLocal(src, 0, "Gather");
    const uint64_t limit = static_cast<uint64_t>(src.cpuSize_) * sizeof(T);
    for (uint32_t i = 0; i < count; ++i) {
        const uint64_t at = static_cast<uint64_t>(srcBaseAddr) + srcOffset.cpuData_[i];
        if (at % sizeof(T) != 0 || at + sizeof(T) > limit) {
            pyasc_cpu::Fail("Gather: byte offset %llu is misaligned or outside the %llu-byte source",
                            static_cast<unsigned long long>(at), static_cast<unsigned long long>(limit));
        }
        dst.cpuData_[i] = src.cpuData_[at / sizeof(T)];
    }
}

template <typename T>
inline void Gatherb(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<uint32_t>& offset,
                    const uint8_t repeatTime, const GatherRepeatParams& p)
{
    const uint32_t blocks = 8u * repeatTime;
    pyasc_cpu::CheckLocal(offset, blocks, "Gatherb");
    pyasc_cpu::CheckLocal(src0, 0, "Gatherb");
    const uint64_t last = ((repeatTime - 1u) * static_cast<uint64_t>(p.dstRepStride) + 7u * p.dstBlkStride + 1u) * 32u;
    pyasc_cpu::CheckLocal(dst, static_cast<int64_t>(last / sizeof(T)), "Gatherb");
    const uint64_t limit = static_cast<uint64_t>(src0.cpuSize_) * sizeof(T);
    const uint8_t* s = reinterpret_cast<const uint8_t*>(src0.cpuData_);
    uint8_t* d = reinterpret_cast<uint8_t*>(dst.cpuData_);
    for (uint32_t k = 0; k < blocks; ++k) {
        const uint64_t at = offset.cpuData_[k];
        if (at % 32 != 0 || at + 32 > limit) {
            pyasc_cpu::Fail("Gatherb: byte offset %llu is not a multiple of 32 or outside the %llu-byte source",
                            static_cast<unsigned long long>(at), static_cast<unsigned long long>(limit));
        }
        const uint64_t to = ((k / 8u) * static_cast<uint64_t>(p.dstRepStride) + (k % 8u) * p.dstBlkStride) * 32u;
        std::memcpy(d + to, s + at, 32);
    }
}

template <typename T>
inline void GatherMask(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const uint8_t src1Pattern,
                       const bool reduceMode, const uint32_t mask, const GatherMaskParams& p, uint64_t& rsvdCnt)
{
    static_assert(sizeof(T) == 2 || sizeof(T) == 4, "GatherMask: 16- and 32-bit types on A2");
    if (src1Pattern < 1 || src1Pattern > 7) {
        pyasc_cpu::Fail("GatherMask: built-in src1Pattern %u outside [1, 7]", static_cast<unsigned>(src1Pattern));
    }
    constexpr uint32_t per = 32 / sizeof(T);  /* elements of a DataBlock */
    const uint32_t period = src1Pattern <= 2 ? 2 : (src1Pattern <= 6 ? 4 : 1);
    const uint32_t lane = src1Pattern <= 2 ? src1Pattern - 1 : (src1Pattern <= 6 ? src1Pattern - 3 : 0);
    const uint32_t n = reduceMode ? mask : 256 / sizeof(T);
    const uint64_t limit = src0.cpuSize_;
    uint64_t out = 0;
    for (uint32_t r = 0; r < p.repeatTimes; ++r) {
        for (uint32_t i = lane; i < n; i += period) {
            const uint64_t at = static_cast<uint64_t>(r) * p.src0RepeatStride * per +
                                static_cast<uint64_t>(i / per) * p.src0BlockStride * per + i % per;
            if (at >= limit) {
                pyasc_cpu::Fail("GatherMask: source element %llu outside the %llu-element source",
                                static_cast<unsigned long long>(at), static_cast<unsigned long long>(limit));
            }
            if (out >= dst.cpuSize_) {
                pyasc_cpu::Fail("GatherMask: more than the %llu elements of dst",
                                static_cast<unsigned long long>(dst.cpuSize_));
            }
            dst.cpuData_[out++] = src0.cpuData_[at];
        }
    }
    rsvdCnt = out;
}

template <typename T>
inline void TransDataTo5HD(uint64_t dstList[NCHW_CONV_ADDR_LIST_SIZE], uint64_t srcList[NCHW_CONV_ADDR_LIST_SIZE],
                           const TransDataTo5HDParams& p)
{
    static_assert(sizeof(T) == 2 || sizeof(T) == 4, "TransDataTo5HD: the 8-bit forms are not modelled");
    if (p.dstHighHalf || p.srcHighHalf) {
        pyasc_cpu::Fail("TransDataTo5HD: dstHighHalf/srcHighHalf apply to 8-bit types only");
    }
    constexpr uint32_t per = 32 / sizeof(T);  /* elements of a DataBlock */
    for (uint32_t r = 0; r < p.repeatTimes; ++r) {
        T in[16][per];
        for (uint32_t i = 0; i < 16; ++i) {
            const T* s = reinterpret_cast<const T*>(srcList[i]) + static_cast<uint64_t>(r) * p.srcRepStride * per;
            for (uint32_t k = 0; k < per; ++k) {
                in[i][k] = s[k];
            }
        }
        for (uint32_t j = 0; j < 16; ++j) {
            T* d = reinterpret_cast<T*>(dstList[j]) + static_cast<uint64_t>(r) * p.dstRepStride * per;
            for (uint32_t k = 0; k < per; ++k) {
                d[k] = per == 16 ? in[k][j] : in[(j % 2) * 8 + k][j / 2];
            }
        }
    }
}

template <typename T, typename U>
inline void Cast(const LocalTensor<T>& dst, const LocalTensor<U>& src, const RoundMode& roundMode,
                 const uint32_t count)
{
    pyasc_cpu::CheckLocal(dst, count, "Cast");
    pyasc_cpu::CheckLocal(src, count, "Cast");
    for (uint32_t i = 0; i < count; ++i) {
        const double x = static_cast<double>(static_cast<pyasc_cpu::C<U>>(src.cpuData_[i]));
        if constexpr (pyasc_cpu::IsFloat<T>) {
            if constexpr (pyasc_cpu::IsFloat<U> && sizeof(U) < sizeof(T)) {
                dst.cpuData_[i] = static_cast<T>(static_cast<pyasc_cpu::C<U>>(src.cpuData_[i]));  // exact
            } else {
                dst.cpuData_[i] = pyasc_cpu::RoundFloat<T>(x, roundMode);
            }
        } else if constexpr (pyasc_cpu::IsFloat<U>) {
            dst.cpuData_[i] = pyasc_cpu::RoundInt<T>(x, roundMode);
        } else {
            dst.cpuData_[i] = static_cast<T>(src.cpuData_[i]);
        }
    }
}

/* ---- comparisons and selection ------------------------------------------------------------- */

template <typename V>
inline bool PyascCmpOp(V a, V b, AscendC::CMPMODE m)
{
    switch (m) {
        case AscendC::CMPMODE::LT: return a < b;
        case AscendC::CMPMODE::GT: return a > b;
        case AscendC::CMPMODE::EQ: return a == b;
        case AscendC::CMPMODE::LE: return a <= b;
        case AscendC::CMPMODE::GE: return a >= b;
        default: return a != b;
    }
}

/* Compare.md on A2: only whole 256 B repeats are computed (the bits of a partial one are left as they
 * were), and int32_t compares for equality whatever the mode */
template <typename T>
inline uint32_t PyascWholeRepeats(uint32_t count)
{
    return count * sizeof(T) / 256 * 256 / sizeof(T);
}

template <typename T>
inline CMPMODE PyascCmpModeA2(CMPMODE mode)
{
    return std::is_same_v<T, int32_t> ? CMPMODE::EQ : mode;
}

template <typename T, typename U>
inline void Compare(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
                    CMPMODE cmpMode, uint32_t count)
{
    using V = pyasc_cpu::C<T>;
    pyasc_cpu::CheckLocal(src0, count, "Compare");
    pyasc_cpu::CheckLocal(src1, count, "Compare");
    pyasc_cpu::CheckLocal(dst, (count + 7) / 8, "Compare");
    uint8_t* bits = reinterpret_cast<uint8_t*>(dst.cpuData_);
    const uint32_t valid = PyascWholeRepeats<T>(count);
    const CMPMODE mode = PyascCmpModeA2<T>(cmpMode);
    for (uint32_t i = 0; i < valid / 8; ++i) bits[i] = 0;
    for (uint32_t i = 0; i < valid; ++i) {
        if (PyascCmpOp(static_cast<V>(src0.cpuData_[i]), static_cast<V>(src1.cpuData_[i]), mode))
            bits[i >> 3] |= static_cast<uint8_t>(1u << (i & 7));
    }
}

template <typename T, typename U>
inline void Compares(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const T src1, CMPMODE cmpMode,
                     uint32_t count)
{
    using V = pyasc_cpu::C<T>;
    pyasc_cpu::CheckLocal(src0, count, "Compares");
    pyasc_cpu::CheckLocal(dst, (count + 7) / 8, "Compares");
    uint8_t* bits = reinterpret_cast<uint8_t*>(dst.cpuData_);
    const uint32_t valid = PyascWholeRepeats<T>(count);
    const CMPMODE mode = PyascCmpModeA2<T>(cmpMode);
    for (uint32_t i = 0; i < valid / 8; ++i) bits[i] = 0;
    for (uint32_t i = 0; i < valid; ++i) {
        if (PyascCmpOp(static_cast<V>(src0.cpuData_[i]), static_cast<V>(src1), mode))
            bits[i >> 3] |= static_cast<uint8_t>(1u << (i & 7));
    }
}

template <typename T, typename U>
inline void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
                   const LocalTensor<T>& src1, SELMODE selMode, uint32_t count)
{
    (void)selMode;
    pyasc_cpu::CheckLocal(dst, count, "Select");
    pyasc_cpu::CheckLocal(src0, count, "Select");
    pyasc_cpu::CheckLocal(src1, count, "Select");
    const uint8_t* bits = reinterpret_cast<const uint8_t*>(selMask.cpuData_);
    for (uint32_t i = 0; i < count; ++i) {
        dst.cpuData_[i] = ((bits[i >> 3] >> (i & 7)) & 1) ? src0.cpuData_[i] : src1.cpuData_[i];
    }
}

template <typename T, typename U>
inline void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0, T src1,
                   SELMODE selMode, uint32_t count)
{
    (void)selMode;
    pyasc_cpu::CheckLocal(dst, count, "Select");
    pyasc_cpu::CheckLocal(src0, count, "Select");
    const uint8_t* bits = reinterpret_cast<const uint8_t*>(selMask.cpuData_);
    for (uint32_t i = 0; i < count; ++i) {
        dst.cpuData_[i] = ((bits[i >> 3] >> (i & 7)) & 1) ? src0.cpuData_[i] : src1;
    }
}

/* ---- reductions and broadcasts ------------------------------------------------------------- */

template <typename T>
inline void ReduceMax(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& sharedTmpBuffer,
                      const int32_t count, bool calIndex)
{
    (void)sharedTmpBuffer;
    pyasc_cpu::ReduceExtreme<T, true>(dst, src, count, calIndex, "ReduceMax");
}

template <typename T>
inline void ReduceMin(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& sharedTmpBuffer,
                      const int32_t count, bool calIndex)
{
    (void)sharedTmpBuffer;
    pyasc_cpu::ReduceExtreme<T, false>(dst, src, count, calIndex, "ReduceMin");
}

/* A2, first-n form: a pairwise sum inside each 256 B repeat, the repeats' sums added in order */
template <typename T, bool isSetMask>
inline void ReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& sharedTmpBuffer,
                      const int32_t count)
{
    (void)sharedTmpBuffer;
    pyasc_cpu::CheckLocal(src, count, "ReduceSum");
    pyasc_cpu::CheckLocal(dst, 1, "ReduceSum");
    const int32_t slots = 256 / static_cast<int32_t>(sizeof(T));
    T acc = static_cast<T>(0);
    for (int32_t r = 0; r * slots < count; ++r) {
        const int32_t n = count - r * slots < slots ? count - r * slots : slots;
        const T part = pyasc_cpu::TreeSum(src.cpuData_ + r * slots, n, slots);
        acc = r == 0 ? part : static_cast<T>(static_cast<pyasc_cpu::C<T>>(acc) + static_cast<pyasc_cpu::C<T>>(part));
    }
    dst.cpuData_[0] = acc;
}

template <typename T, bool isSetMask>
inline void WholeReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t mask,
                           const int32_t repeatTime, const int32_t dstRepStride, const int32_t srcBlkStride,
                           const int32_t srcRepStride)
{
    pyasc_cpu::WholeReduce<T, 0>(dst, src, mask, repeatTime, dstRepStride, srcBlkStride, srcRepStride,
                                 ReduceOrder::ORDER_ONLY_VALUE, "WholeReduceSum");
}

template <typename T, bool isSetMask>
inline void WholeReduceMax(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t mask,
                           const int32_t repeatTime, const int32_t dstRepStride, const int32_t srcBlkStride,
                           const int32_t srcRepStride, ReduceOrder order)
{
    pyasc_cpu::WholeReduce<T, 1>(dst, src, mask, repeatTime, dstRepStride, srcBlkStride, srcRepStride, order,
                                 "WholeReduceMax");
}

template <typename T, bool isSetMask>
inline void WholeReduceMin(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t mask,
                           const int32_t repeatTime, const int32_t dstRepStride, const int32_t srcBlkStride,
                           const int32_t srcRepStride, ReduceOrder order)
{
    pyasc_cpu::WholeReduce<T, 2>(dst, src, mask, repeatTime, dstRepStride, srcBlkStride, srcRepStride, order,
                                 "WholeReduceMin");
}

template <typename T, bool isSetMask>
inline void RepeatReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t repeatTime,
                            const int32_t mask, const int32_t dstBlkStride, const int32_t srcBlkStride,
                            const int32_t dstRepStride, const int32_t srcRepStride)
{
    (void)dstBlkStride;
    pyasc_cpu::WholeReduce<T, 0>(dst, src, mask, repeatTime, dstRepStride, srcBlkStride, srcRepStride,
                                 ReduceOrder::ORDER_ONLY_VALUE, "RepeatReduceSum");
}

template <typename T>
inline void Brcb(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint8_t repeatTime,
                 const BrcbRepeatParams& p)
{
    const uint32_t epb = 32u / static_cast<uint32_t>(sizeof(T));
    pyasc_cpu::CheckLocal(src, static_cast<int64_t>(repeatTime) * 8, "Brcb");
    for (uint32_t r = 0; r < repeatTime; ++r) {
        for (uint32_t j = 0; j < 8; ++j) {
            const uint64_t block = static_cast<uint64_t>(r) * p.dstRepStride + static_cast<uint64_t>(j) * p.dstBlkStride;
            pyasc_cpu::CheckLocal(dst, static_cast<int64_t>((block + 1) * epb), "Brcb");
            const T v = src.cpuData_[r * 8 + j];
            for (uint32_t k = 0; k < epb; ++k) {
                dst.cpuData_[block * epb + k] = v;
            }
        }
    }
}

/* ---- cube path ----------------------------------------------------------------------------- */

template <typename T>
inline void LoadData(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LoadData2DParams& p)
{
    const uint32_t frac = 512u / static_cast<uint32_t>(sizeof(T));  // elements per fractal
    const uint32_t cols = 32u / static_cast<uint32_t>(sizeof(T));
    if (p.ifTranspose && cols != 16u) {
        pyasc_cpu::Fail("LoadData: transposing fractals of %zu-byte elements is not modelled", sizeof(T));
    }
    for (uint32_t r = 0; r < p.repeatTimes; ++r) {
        const uint64_t from = (static_cast<uint64_t>(p.startIndex) + static_cast<uint64_t>(r) * p.srcStride) * frac;
        const uint64_t to = static_cast<uint64_t>(r) * (p.dstGap + 1u) * frac;
        pyasc_cpu::CheckLocal(src, static_cast<int64_t>(from + frac), "LoadData");
        pyasc_cpu::CheckLocal(dst, static_cast<int64_t>(to + frac), "LoadData");
        for (uint32_t i = 0; i < 16u; ++i) {
            for (uint32_t j = 0; j < cols; ++j) {
                dst.cpuData_[to + i * cols + j] = p.ifTranspose ? src.cpuData_[from + j * cols + i]
                                                                : src.cpuData_[from + i * cols + j];
            }
        }
    }
}

/* square q (16 x 16 elements: for 4-byte types two 16 x 8 fractals side by side) transposed; its fractals
 * (4-byte: the first and the next 8 columns of the transposed square) at fractal r * (dstGap + 1) and
 * dstFracGap + 1 fractals on */
template <typename T>
inline void LoadDataWithTranspose(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                                  const LoadData2dTransposeParams& p)
{
    const uint32_t cols = 32u / static_cast<uint32_t>(sizeof(T));  // columns of a fractal
    if (cols != 8u && cols != 16u) {
        pyasc_cpu::Fail("LoadDataWithTranspose: %zu-byte elements are not modelled", sizeof(T));
    }
    const uint32_t halves = 16u / cols;  // fractals per square
    for (uint32_t r = 0; r < p.repeatTimes; ++r) {
        const int64_t step = static_cast<int64_t>(r) * p.srcStride;
        const int64_t q = static_cast<int64_t>(p.startIndex) + (p.addrMode ? -step : step);
        if (q < 0) {
            pyasc_cpu::Fail("LoadDataWithTranspose: square %lld is before the source", static_cast<long long>(q));
        }
        const uint64_t from = static_cast<uint64_t>(q) * 256u;
        pyasc_cpu::CheckLocal(src, static_cast<int64_t>(from + 256u), "LoadDataWithTranspose");
        for (uint32_t h = 0; h < halves; ++h) {
            const uint64_t to = (static_cast<uint64_t>(r) * (p.dstGap + 1u) + h * (p.dstFracGap + 1u)) * 16u * cols;
            pyasc_cpu::CheckLocal(dst, static_cast<int64_t>(to + 16u * cols), "LoadDataWithTranspose");
            for (uint32_t i = 0; i < 16u; ++i) {  // a row of the fractal: a column of the square
                for (uint32_t j = 0; j < cols; ++j) {
                    const uint32_t row = h * cols + j;
                    dst.cpuData_[to + i * cols + j] = src.cpuData_[from + (i / cols) * 16u * cols + row * cols + i % cols];
                }
            }
        }
    }
}

/* Load3Dv2: element (m, k) of the img2col matrix, m = oh * Wo + ow, k = ((c1 * filterH + kh) * filterW + kw) *
 * C0 + c0, is src[c1][oh * strideH + kh * dilH - padTop][ow * strideW + kw * dilW - padLeft][c0] (padValue
 * outside the l1H x l1W map); rows mStartPt.. (ceil16(mExtension) of them) and columns kStartPt..
 * (ceil(kExtension / C0) fractals) land in L0A as ZZ fractals, or in L0B transposed (B = the matrix
 * transposed, zN: the same 16 x C0 fractals, ordered by column block first). Only channelSize multiples of C0
 * and the flags false are modelled. */
template <typename T>
inline void LoadData(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LoadData3DParamsV2<T>& p)
{
    const char* api = "LoadData (Load3Dv2)";
    const uint32_t c0 = 32u / static_cast<uint32_t>(sizeof(T));
    if (sizeof(T) != 2 && sizeof(T) != 4) {
        pyasc_cpu::Fail("%s: %zu-byte elements are not modelled", api, sizeof(T));
    }
    if (p.enTranspose || p.enSmallK || p.filterSizeW || p.filterSizeH || p.fMatrixCtrl) {
        pyasc_cpu::Fail("%s: enTranspose, enSmallK, filterSizeW/H and fMatrixCtrl are not modelled", api);
    }
    const bool toB = dst.cpuMem_ == pyasc_cpu::Mem::L0B;
    if ((dst.cpuMem_ != pyasc_cpu::Mem::L0A && !toB) || src.cpuMem_ != pyasc_cpu::Mem::L1) {
        pyasc_cpu::Fail("%s: only L1 -> L0A and L1 -> L0B are modelled, got %s -> %s", api,
                        pyasc_cpu::MemName(src.cpuMem_), pyasc_cpu::MemName(dst.cpuMem_));
    }
    if (p.l1H == 0 || p.l1W == 0 || p.channelSize == 0 || p.kExtension == 0 || p.mExtension == 0 ||
        p.filterW == 0 || p.filterH == 0) {
        return;  // a NOP
    }
    if (p.channelSize % c0 != 0) {
        pyasc_cpu::Fail("%s: channelSize %u is not modelled (only multiples of %u)", api, p.channelSize, c0);
    }
    if (p.kStartPt % c0 != 0) {
        pyasc_cpu::Fail("%s: kStartPt %u is not a multiple of %u", api, p.kStartPt, c0);
    }
    if (p.strideW == 0 || p.strideH == 0) {
        pyasc_cpu::Fail("%s: stride 0 is not modelled", api);
    }
    if (dst.cpuAddr_ % 512u != 0) {
        pyasc_cpu::Fail("%s: %s address %u is not 512 B aligned", api, toB ? "L0B" : "L0A", dst.cpuAddr_);
    }
    const int64_t padL = p.padList[0], padR = p.padList[1], padT = p.padList[2], padB = p.padList[3];
    const int64_t dilW = p.dilationFilterW, dilH = p.dilationFilterH;
    const int64_t spanW = static_cast<int64_t>(p.l1W) + padL + padR - dilW * (p.filterW - 1) - 1;
    const int64_t spanH = static_cast<int64_t>(p.l1H) + padT + padB - dilH * (p.filterH - 1) - 1;
    if (spanW < 0 || spanH < 0) {
        pyasc_cpu::Fail("%s: the dilated filter does not fit the padded %u x %u feature map", api, p.l1H, p.l1W);
    }
    const int64_t wo = spanW / p.strideW + 1;
    const int64_t rows = (static_cast<int64_t>(p.mExtension) + 15) / 16 * 16;
    const int64_t k1 = (static_cast<int64_t>(p.kExtension) + c0 - 1) / c0;
    const int64_t kTotal = static_cast<int64_t>(p.filterH) * p.filterW * p.channelSize;
    if (p.kStartPt + k1 * c0 > kTotal) {
        pyasc_cpu::Fail("%s: columns [%u, %lld) pass the img2col matrix's %lld", api, p.kStartPt,
                        static_cast<long long>(p.kStartPt + k1 * c0), static_cast<long long>(kTotal));
    }
    pyasc_cpu::CheckLocal(dst, rows * k1 * c0, api);
    for (int64_t r = 0; r < rows; ++r) {
        const int64_t m = p.mStartPt + r;
        const int64_t oh = m / wo, ow = m % wo;
        for (int64_t col = 0; col < k1 * c0; ++col) {
            const int64_t k = p.kStartPt + col;
            const int64_t tap = k / c0;
            const int64_t kw = tap % p.filterW, kh = tap / p.filterW % p.filterH, c1 = tap / (p.filterW * p.filterH);
            const int64_t ih = oh * p.strideH + kh * dilH - padT;
            const int64_t iw = ow * p.strideW + kw * dilW - padL;
            const int64_t fractal = toB ? (col / c0) * (rows / 16) + r / 16 : (r / 16) * k1 + col / c0;
            const int64_t to = fractal * 16 * c0 + (r % 16) * c0 + col % c0;
            if (ih < 0 || ih >= p.l1H || iw < 0 || iw >= p.l1W) {
                dst.cpuData_[to] = p.padValue;
                continue;
            }
            const int64_t from = ((c1 * p.l1H + ih) * p.l1W + iw) * c0 + k % c0;
            pyasc_cpu::CheckLocal(src, from + 1, api);
            dst.cpuData_[to] = src.cpuData_[from];
        }
    }
}

/* A in L0A: zZ (16 x k0 fractals, row-major, fractals row-major); B in L0B: zN (fractals row-major
 * over (k, n), each stored n-major); C in L0C: nZ (16 x 16 fractals row-major, fractals
 * column-major); products accumulated in the type of C */
/* Mmad's products into dst, each element starting from 0, from dst (accumulate) or from bias[n] */
template <typename T, typename U, typename S>
inline void CpuMmadInto(const LocalTensor<T>& dst, const LocalTensor<U>& fm, const LocalTensor<S>& filter,
                        const MmadParams& p, const T* bias)
{
    using Acc = pyasc_cpu::C<T>;
    const uint32_t k0 = 32u / static_cast<uint32_t>(sizeof(U));
    const uint32_t m1 = (p.m + 15u) / 16u;
    const uint32_t n1 = (p.n + 15u) / 16u;
    const uint32_t kk1 = (p.k + k0 - 1u) / k0;
    pyasc_cpu::CheckLocal(fm, static_cast<int64_t>(m1) * kk1 * 16 * k0, "Mmad (fm)");
    pyasc_cpu::CheckLocal(filter, static_cast<int64_t>(kk1) * n1 * 16 * k0, "Mmad (filter)");
    pyasc_cpu::CheckLocal(dst, static_cast<int64_t>(m1) * n1 * 256, "Mmad (dst)");
    for (uint32_t m = 0; m < p.m; ++m) {
        for (uint32_t n = 0; n < p.n; ++n) {
            const uint64_t at = (static_cast<uint64_t>(n / 16u) * m1 + m / 16u) * 256u + (m % 16u) * 16u + n % 16u;
            Acc acc = bias != nullptr ? static_cast<Acc>(bias[n])
                                      : (p.cmatrixInitVal ? Acc(0) : static_cast<Acc>(dst.cpuData_[at]));
            for (uint32_t k = 0; k < p.k; ++k) {
                const uint64_t ai = (static_cast<uint64_t>(m / 16u) * kk1 + k / k0) * 16u * k0 + (m % 16u) * k0 + k % k0;
                const uint64_t bi = (static_cast<uint64_t>(k / k0) * n1 + n / 16u) * 16u * k0 + (n % 16u) * k0 + k % k0;
                acc += static_cast<Acc>(static_cast<pyasc_cpu::C<U>>(fm.cpuData_[ai])) *
                       static_cast<Acc>(static_cast<pyasc_cpu::C<S>>(filter.cpuData_[bi]));
            }
            dst.cpuData_[at] = static_cast<T>(acc);
        }
    }
}

template <typename T, typename U, typename S>
inline void Mmad(const LocalTensor<T>& dst, const LocalTensor<U>& fm, const LocalTensor<S>& filter,
                 const MmadParams& p)
{
    CpuMmadInto(dst, fm, filter, p, static_cast<const T*>(nullptr));
}

/* the bias overload: C starts from the BiasTable row (C2), whatever cmatrixInitVal says */
template <typename T, typename U, typename S, typename V>
inline void Mmad(const LocalTensor<T>& dst, const LocalTensor<U>& fm, const LocalTensor<S>& filter,
                 const LocalTensor<V>& bias, const MmadParams& p)
{
    static_assert(sizeof(V) == sizeof(T), "Mmad: the bias has the accumulator's type");
    if (bias.cpuMem_ != pyasc_cpu::Mem::BT || bias.cpuAddr_ % 64u != 0) {
        pyasc_cpu::Fail("Mmad: the bias must be a 64 B aligned tensor in BiasTable (C2)");
    }
    pyasc_cpu::CheckLocal(bias, static_cast<int64_t>((p.n + 15u) / 16u) * 16, "Mmad (bias)");
    CpuMmadInto(dst, fm, filter, p, reinterpret_cast<const T*>(bias.cpuData_));
}

/* L1 (C1) -> BiasTable (C2): blockCount bursts of blockLen 64 B units of src (srcStride 32 B blocks apart) to dst
 * (dstStride 64 B units apart); a half source widens to float, each burst unit filling 128 B of BT */
template <typename T, typename U>
inline void DataCopy(const LocalTensor<T>& dst, const LocalTensor<U>& src, const DataCopyParams& p)
{
    if (src.cpuMem_ != pyasc_cpu::Mem::L1 || dst.cpuMem_ != pyasc_cpu::Mem::BT) {
        pyasc_cpu::Fail("DataCopy with DataCopyParams between local tensors: only L1 (C1) -> BiasTable (C2) "
                        "is modelled");
    }
    if (dst.cpuAddr_ % 64u != 0) {
        pyasc_cpu::Fail("DataCopy C1->C2: BiasTable address %u is not 64 B aligned", dst.cpuAddr_);
    }
    const uint64_t elems = static_cast<uint64_t>(p.blockLen) * 64u / sizeof(U);
    for (uint32_t r = 0; r < p.blockCount; ++r) {
        const uint64_t from = r * (static_cast<uint64_t>(p.blockLen) * 64u + p.srcStride * 32u) / sizeof(U);
        const uint64_t to = r * (elems * sizeof(T) + p.dstStride * 64u) / sizeof(T);
        pyasc_cpu::CheckLocal(src, static_cast<int64_t>(from + elems), "DataCopy C1->C2 (src)");
        pyasc_cpu::CheckLocal(dst, static_cast<int64_t>(to + elems), "DataCopy C1->C2 (dst)");
        for (uint64_t i = 0; i < elems; ++i) {
            dst.cpuData_[to + i] = static_cast<T>(static_cast<pyasc_cpu::C<U>>(src.cpuData_[from + i]));
        }
    }
}

/* L0C nZ -> GM ND (row-major): srcStride = rows of the nZ source (a multiple of 16), dstStride =
 * elements between rows of dst; the quantisation is the conversion to T (round to nearest even) */
template <typename T, typename U, const FixpipeConfig& config>
inline void Fixpipe(const GlobalTensor<T>& dst, const LocalTensor<U>& src, const FixpipeParamsV220& p)
{
    if (config.format != CO2Layout::ROW_MAJOR || p.ndNum > 1) {
        pyasc_cpu::Fail("Fixpipe: only the row-major (ND) output of one matrix is modelled");
    }
    for (uint32_t m = 0; m < p.mSize; ++m) {
        for (uint32_t n = 0; n < p.nSize; ++n) {
            const uint64_t from = static_cast<uint64_t>(n / 16u) * p.srcStride * 16u + m * 16u + n % 16u;
            const uint64_t to = static_cast<uint64_t>(m) * p.dstStride + n;
            pyasc_cpu::CheckLocal(src, static_cast<int64_t>(from + 1), "Fixpipe");
            pyasc_cpu::CheckGlobal(dst, to + 1, "Fixpipe");
            float v = static_cast<float>(static_cast<pyasc_cpu::C<U>>(src.cpuData_[from]));
            if (p.reluEn) {
                v = pyasc_cpu::NpMax(v, 0.0f);
            }
            dst.cpuData_[to] = static_cast<T>(v);
        }
    }
}

/* ---- synchronisation ----------------------------------------------------------------------- */

template <HardEvent event>
inline void SetFlag(int32_t eventID)
{
    pyasc_cpu::FlagSet(static_cast<int>(event), eventID, "SetFlag");
}

template <HardEvent event>
inline void WaitFlag(int32_t eventID)
{
    pyasc_cpu::FlagWait(static_cast<int>(event), eventID, "WaitFlag");
}

template <pipe_t pipe>
inline void PipeBarrier()
{
}

inline void InitSocState()
{
}

/* the CPU build computes each Mmad whole: the order of its results changes nothing */
inline void SetMMRowMajor()
{
}

inline void SetMMColumnMajor()
{
}

template <uint8_t modeId, pipe_t pipe>
inline void CrossCoreSetFlag(uint16_t flagId)
{
    pyasc_cpu::CrossSet(modeId, flagId);
}

template <bool isAIVOnly>
inline void SyncAll()
{
    static_assert(isAIVOnly, "the CPU mode runs the hard SyncAll of vector kernels (isAIVOnly = true) only");
    pyasc_cpu::SyncAllBlocks();
}

}  // namespace AscendC

#endif  // PYASC_CPU_IMPL_H
