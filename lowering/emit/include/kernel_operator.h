/*
 * pyasc's syntax-check stub of "kernel_operator.h".
 *
 * It declares exactly the subset of the Ascend C API that pyasc's emitter prints, with the
 * signatures of the Ascend C documentation (basic_api, count form), so that emitted kernels can
 * be checked with `g++ -std=c++17 -fsyntax-only -I<this dir>`. It has no implementation and is
 * never used for a real build: on a machine with CANN, kernels include CANN's own header.
 */
#ifndef PYASC_KERNEL_OPERATOR_STUB_H
#define PYASC_KERNEL_OPERATOR_STUB_H

#if defined(__CCE__) || defined(__CCE_AICORE__)
#error "this is pyasc's g++ syntax-check stub; build kernels against CANN's kernel_operator.h"
#endif

#include <cstddef>
#include <cstdint>

/* Device keywords of the bisheng compiler mean nothing to g++. */
#define __global__
#define __aicore__
#define __gm__
#define GM_ADDR __gm__ uint8_t*

/* Scalar types of the device: 16-bit floats stored as bits, convertible from and to float. */
struct half {
    uint16_t bits = 0;
    half() = default;
    half(float value);
    operator float() const;
};

struct bfloat16_t {
    uint16_t bits = 0;
    bfloat16_t() = default;
    bfloat16_t(float value);
    operator float() const;
};

/* Pipes, for PipeBarrier<PIPE_X>() (global, as in CANN's headers). */
enum pipe_t {
    PIPE_S = 0,
    PIPE_V,
    PIPE_M,
    PIPE_MTE1,
    PIPE_MTE2,
    PIPE_MTE3,
    PIPE_ALL,
    PIPE_FIX = 10,
};

namespace AscendC {

enum class TPosition : uint8_t {
    GM,
    A1,
    A2,
    B1,
    B2,
    C1,
    C2,
    CO1,
    CO2,
    VECIN,
    VECOUT,
    VECCALC,
    LCM = VECCALC,
    SPM,
    SHM = SPM,
    TSCM,
    C2PIPE2GM,
    C2PIPE2LOCAL,
    MAX,
};

enum class HardEvent : uint8_t {
    MTE2_MTE1,
    MTE1_MTE2,
    MTE1_M,
    M_MTE1,
    MTE2_V,
    V_MTE2,
    MTE3_V,
    V_MTE3,
    M_V,
    V_M,
    V_V,
    MTE3_MTE1,
    MTE1_MTE3,
    MTE1_V,
    MTE2_M,
    M_MTE2,
    V_MTE1,
    M_FIX,
    FIX_M,
    MTE3_MTE2,
    MTE2_MTE3,
    S_V,
    V_S,
    S_MTE2,
    MTE2_S,
    S_MTE3,
    MTE3_S,
    MTE2_FIX,
    FIX_MTE2,
    FIX_S,
    M_S,
    FIX_MTE3,
    MTE1_FIX,
    FIX_MTE1,
    FIX_FIX,
    MAX,
};

enum class RoundMode {
    CAST_NONE = 0,
    CAST_RINT,
    CAST_FLOOR,
    CAST_CEIL,
    CAST_ROUND,
    CAST_TRUNC,
    CAST_ODD,
};

/* ---- tensors ------------------------------------------------------------------------------- */

template <typename T>
class GlobalTensor {
public:
    __aicore__ GlobalTensor() {}
    __aicore__ void SetGlobalBuffer(__gm__ T* buffer, uint64_t bufferSize);
    __aicore__ void SetGlobalBuffer(__gm__ T* buffer);
    __aicore__ GlobalTensor operator[](const uint64_t offset) const;
    __aicore__ T GetValue(const uint64_t offset) const;
    __aicore__ void SetValue(const uint64_t offset, T value);
};

template <typename T>
class LocalTensor {
public:
    __aicore__ LocalTensor() {}
    /* static tensor programming: a tensor at a logical position, byte address, element count */
    __aicore__ LocalTensor(TPosition pos, uint32_t addr, uint32_t tileSize);
    __aicore__ explicit LocalTensor(uint32_t addr);
    __aicore__ LocalTensor operator[](const uint32_t offset) const;
    __aicore__ T GetValue(const uint32_t offset) const;
    template <typename T1>
    __aicore__ void SetValue(const uint32_t index, const T1 value) const;
};

/* ---- TPipe / TQue / TBuf ------------------------------------------------------------------- */

template <TPosition pos, int32_t depth, auto mask = 0>
class TQue {
public:
    template <typename T>
    __aicore__ LocalTensor<T> AllocTensor();
    template <typename T>
    __aicore__ bool EnQue(const LocalTensor<T>& tensor);
    template <typename T>
    __aicore__ LocalTensor<T> DeQue();
    template <typename T>
    __aicore__ void FreeTensor(LocalTensor<T>& tensor);
};

template <TPosition pos = TPosition::LCM>
class TBuf {
public:
    template <typename T>
    __aicore__ LocalTensor<T> Get();
    template <typename T>
    __aicore__ LocalTensor<T> Get(uint32_t len);
};

class TPipe {
public:
    __aicore__ TPipe() {}
    template <class T>
    __aicore__ bool InitBuffer(T& que, uint8_t num, uint32_t len);
    template <TPosition bufPos>
    __aicore__ bool InitBuffer(TBuf<bufPos>& buf, uint32_t len);
};

/* ---- data movement ------------------------------------------------------------------------- */

struct DataCopyExtParams {
    __aicore__ DataCopyExtParams() {}
    __aicore__ DataCopyExtParams(const uint16_t count, const uint32_t len, const uint32_t srcStrideIn,
                                 const uint32_t dstStrideIn, const uint32_t rsvIn)
        : blockCount(count), blockLen(len), srcStride(srcStrideIn), dstStride(dstStrideIn), rsv(rsvIn)
    {
    }
    uint16_t blockCount = 1;
    uint32_t blockLen = 0;
    uint32_t srcStride = 0;
    uint32_t dstStride = 0;
    uint32_t rsv = 0;
};

template <typename T>
struct DataCopyPadExtParams {
    __aicore__ DataCopyPadExtParams() {}
    __aicore__ DataCopyPadExtParams(const bool isPadValue, const uint8_t leftPadValue,
                                    const uint8_t rightPadValue, T padValue)
        : isPad(isPadValue), leftPadding(leftPadValue), rightPadding(rightPadValue), paddingValue(padValue)
    {
    }
    bool isPad = false;
    uint8_t leftPadding = 0;
    uint8_t rightPadding = 0;
    T paddingValue = 0;
};

template <typename T>
__aicore__ void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const uint32_t count);
template <typename T>
__aicore__ void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t count);
template <typename T>
__aicore__ void DataCopy(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t count);

template <typename T>
__aicore__ void DataCopyPad(const LocalTensor<T>& dst, const GlobalTensor<T>& src,
                                   const DataCopyExtParams& dataCopyParams,
                                   const DataCopyPadExtParams<T>& padParams);
template <typename T>
__aicore__ void DataCopyPad(const GlobalTensor<T>& dst, const LocalTensor<T>& src,
                                   const DataCopyExtParams& dataCopyParams);

/* ---- vector compute, count form ------------------------------------------------------------ */

#define PYASC_BINARY(NAME)                                                                          \
    template <typename T>                                                                           \
    __aicore__ void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src0,             \
                                const LocalTensor<T>& src1, const int32_t& count);
PYASC_BINARY(Add)
PYASC_BINARY(Sub)
PYASC_BINARY(Mul)
PYASC_BINARY(Div)
PYASC_BINARY(Max)
PYASC_BINARY(Min)
#undef PYASC_BINARY

#define PYASC_UNARY(NAME)                                                                           \
    template <typename T>                                                                           \
    __aicore__ void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t& count);
PYASC_UNARY(Exp)
PYASC_UNARY(Ln)
PYASC_UNARY(Abs)
PYASC_UNARY(Sqrt)
PYASC_UNARY(Rsqrt)
PYASC_UNARY(Reciprocal)
PYASC_UNARY(Relu)
#undef PYASC_UNARY

#define PYASC_SCALAR(NAME)                                                                          \
    template <typename T, bool isSetMask = true>                                                    \
    __aicore__ void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const T& scalarValue, \
                                const int32_t& count);
PYASC_SCALAR(Adds)
PYASC_SCALAR(Muls)
PYASC_SCALAR(Maxs)
PYASC_SCALAR(Mins)
#undef PYASC_SCALAR

template <typename T>
__aicore__ void Duplicate(const LocalTensor<T>& dst, const T& scalarValue, const int32_t& count);

template <typename T, typename U>
__aicore__ void Cast(const LocalTensor<T>& dst, const LocalTensor<U>& src, const RoundMode& roundMode,
                            const uint32_t count);

/* ---- synchronisation and system variables -------------------------------------------------- */

template <HardEvent event>
__aicore__ void SetFlag(int32_t eventID);
template <HardEvent event>
__aicore__ void WaitFlag(int32_t eventID);
template <pipe_t pipe>
__aicore__ void PipeBarrier();

__aicore__ int64_t GetBlockIdx();
__aicore__ int64_t GetBlockNum();

}  // namespace AscendC

#endif  // PYASC_KERNEL_OPERATOR_STUB_H
