// Stand-in for the PTO runtime's orchestration API, for ptoc's execution tests: it makes the
// orchestration C++ ptoc emits run on the host, synchronously. Each submitted task calls its
// kernel at once, in submission order (the order the real runtime's dependencies imply for
// the straight-line task lists ptoc emits). Tensors made by the orchestration are allocated
// with guard zones (exec_host.h).
#pragma once
#include <cstdint>
#include <initializer_list>

#include "exec_host.h"

// tensor.h (the kernels' view of a tensor) has no member functions; the orchestration code
// calls `t.view(...)`. The orchestration's Tensor is tensor.h's struct under another name
// plus that method: same layout, so a `Tensor*` is what the kernels expect behind args[i].
#define Tensor PtocTensorLayout
#include "tensor.h"
#undef Tensor

enum class DataType : int32_t { FLOAT32, FLOAT16, BFLOAT16, INT8, INT16, INT32, INT64, UINT8, UINT16, UINT32, UINT64, BOOL, UNKNOWN };

inline uint64_t ptoc_dtype_size(DataType d) {
    switch (d) {
        case DataType::FLOAT32: case DataType::INT32: case DataType::UINT32: return 4;
        case DataType::FLOAT16: case DataType::BFLOAT16: case DataType::INT16: case DataType::UINT16: return 2;
        case DataType::INT8: case DataType::UINT8: case DataType::BOOL: return 1;
        case DataType::INT64: case DataType::UINT64: return 8;
        default: ptoc_die("tensor of unknown dtype");
    }
}

struct Tensor : PtocTensorLayout {
    // A view of `shape` starting at `offsets` (elements, per dimension): same buffer and strides.
    Tensor view(std::initializer_list<uint64_t> shape, std::initializer_list<uint64_t> offsets) const {
        Tensor t = *this;
        uint64_t k = 0;
        for (uint64_t o : offsets) t.start_offset += o * strides[k++];
        k = 0;
        for (uint64_t s : shape) t.repeats[k++] = s;
        t.ndims = k;
        return t;
    }
    // The same elements with dimensions x and y exchanged (the runtime's Tensor::transpose).
    Tensor transpose(uint64_t x, uint64_t y) const {
        if (x >= ndims || y >= ndims) ptoc_die("transpose: axis out of range");
        Tensor t = *this;
        t.strides[x] = strides[y];
        t.strides[y] = strides[x];
        t.repeats[x] = repeats[y];
        t.repeats[y] = repeats[x];
        return t;
    }
    // The same elements, row-major, in another shape (the runtime's Tensor::reshape); only a
    // row-major contiguous tensor can be seen so (anything else would need a copy).
    Tensor reshape(const uint64_t* shape, uint64_t new_ndims) const {
        uint64_t n = 1;
        for (uint64_t i = ndims; i-- > 0;) {
            if (repeats[i] != 1 && strides[i] != n) ptoc_die("reshape of a tensor that is not contiguous");
            n *= repeats[i];
        }
        Tensor t = *this;
        uint64_t m = 1;
        for (uint64_t i = new_ndims; i-- > 0;) {
            t.strides[i] = m;
            t.repeats[i] = shape[i];
            m *= shape[i];
        }
        if (m != n) ptoc_die("reshape to a different number of elements");
        t.ndims = new_ndims;
        return t;
    }
};
static_assert(sizeof(Tensor) == sizeof(PtocTensorLayout), "Tensor must keep tensor.h's layout");

// A row-major tensor over `addr`.
inline Tensor ptoc_tensor_over(void* addr, const uint64_t* shape, uint64_t ndims, DataType dtype) {
    Tensor t{};
    uint64_t n = 1;
    for (uint64_t i = ndims; i-- > 0;) {
        t.strides[i] = n;
        t.repeats[i] = shape[i];
        n *= shape[i];
    }
    t.buffer.addr = reinterpret_cast<uint64_t>(addr);
    t.buffer.size = n * ptoc_dtype_size(dtype);
    t.start_offset = 0;
    t.ndims = ndims;
    t.dtype = static_cast<int32_t>(dtype);
    t.version = 0;
    return t;
}

inline uint64_t ptoc_elements(const uint64_t* shape, uint64_t ndims) {
    uint64_t n = 1;
    for (uint64_t i = 0; i < ndims; ++i) n *= shape[i];
    return n;
}

inline Tensor make_tensor_external(void* addr, const uint64_t* shape, uint64_t ndims, DataType dtype) {
    return ptoc_tensor_over(addr, shape, ndims, dtype);
}

// An intermediate tensor: zero-filled, guarded, never freed (checked at exit).
inline Tensor make_tensor(const uint64_t* shape, uint64_t ndims, DataType dtype) {
    uint64_t bytes = ptoc_elements(shape, ndims) * ptoc_dtype_size(dtype);
    return ptoc_tensor_over(ptoc_alloc(bytes, "make_tensor#" + std::to_string(ptoc_buffers().size())), shape, ndims, dtype);
}

enum class PtocParamKind { Input, Output, InOut, Scalar };

struct PTOParam {
    PtocParamKind kind;
    Tensor tensor;  // a copy: it shares the buffer, which is what the kernel writes
    uint64_t scalar;
};

inline PTOParam make_input_param(const Tensor& t) { return PTOParam{PtocParamKind::Input, t, 0}; }
inline PTOParam make_output_param(const Tensor& t) { return PTOParam{PtocParamKind::Output, t, 0}; }
inline PTOParam make_inout_param(const Tensor& t) { return PTOParam{PtocParamKind::InOut, t, 0}; }
inline PTOParam make_scalar_param(uint64_t v) { return PTOParam{PtocParamKind::Scalar, Tensor{}, v}; }

typedef void (*PtocKernelFn)(int64_t* args);

// The host main fills the kernel table from kernel_config.py (func_id -> kernel_entry_<f>).
struct PTO2Runtime {
    const PtocKernelFn* kernels;
    int kernel_count;
    int tasks;
};

struct PTO2OrchestrationConfig {
    int expected_arg_count;
};

enum PtocWorker { PTO2_WORKER_VECTOR, PTO2_WORKER_CUBE };

// Scopes only matter for the real runtime's tensor lifetimes; here they are a plain block.
#define PTO2_SCOPE(rt) if (((void)(rt)), true)

inline void pto2_rt_submit_task(PTO2Runtime* rt, int func_id, int worker, PTOParam* params, int n) {
    (void)worker;
    if (func_id < 0 || func_id >= rt->kernel_count || rt->kernels[func_id] == nullptr)
        ptoc_die("task " + std::to_string(rt->tasks) + ": no kernel with func_id " + std::to_string(func_id));
    int64_t args[64];
    if (n > 64) ptoc_die("more than 64 task parameters");
    for (int i = 0; i < n; ++i)
        args[i] = params[i].kind == PtocParamKind::Scalar ? static_cast<int64_t>(params[i].scalar)
                                                           : reinterpret_cast<int64_t>(&params[i].tensor);
    rt->kernels[func_id](args);
    ++rt->tasks;
}

// Scalar C types the orchestration code may declare (ptoc's `half`, `bfloat16_t`).
using half = _Float16;
using bfloat16_t = __bf16;
