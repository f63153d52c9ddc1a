// Floating-point division by zero in pto-isa's CPU simulator, as the NPU computes it.
//
// pto-isa's CPU simulator (include/pto/cpu/ElementOp.h) asserts "Divider cannot be equal to
// zero" in TDIV, TRECIP, TRSQRT and TDIVS-with-the-scalar-on-top (OP_RDIVS) for every element
// type. For floating-point tiles the NPU computes the IEEE result instead (x/0 = +-inf,
// 0/0 = NaN, 1/0 = inf, 1/sqrt(0) = inf), and so does ptoc's interpreter; a generated program
// reaches it whenever a computed tile is exactly zero (`t3 = t + tb` where `t = -tb`). These
// constrained partial specializations replace the asserting ones for float, double and
// _Float16 (half, and bfloat16_t on the CPU simulator) only, with the same arithmetic minus the
// assert; integer division by zero still asserts, as do TREM/TFMOD, whose result for a zero
// divisor is not IEEE-defined. The results are then judged on their numbers like any other
// (inf and NaN compare by value, tests/execution/compare.rs).
//
// Included by the precompiled header after pto/pto-inst.hpp (tests/execution/toolchain.rs):
// the kernels instantiate these templates later, so the more constrained specialization wins.
#pragma once
#include <cmath>
#include <cstddef>
#include <type_traits>

namespace pto {

template <typename T>
concept PtocIeeeFloat = std::is_floating_point_v<T> || std::is_same_v<T, _Float16>;

template <PtocIeeeFloat DType>
struct ElementOpCal<DType, ElementOp::OP_DIV> {
    static void apply(DType& dst, DType& src0, DType& src1, size_t) { dst = src0 / src1; }
    static void apply(DType& dst, const DType& src0, const DType& src1) { dst = src0 / src1; }
};

template <PtocIeeeFloat DType>
struct ElementOpCal<DType, ElementOp::OP_RECIP> {
    static void apply(DType& dst, DType& src) { dst = 1 / src; }
};

template <PtocIeeeFloat DType>
struct ElementOpCal<DType, ElementOp::OP_RSQRT> {
    static void apply(DType& dst, DType& src)
    {
        dst = static_cast<DType>(1.0 / std::sqrt(static_cast<double>(src)));
    }
};

template <PtocIeeeFloat DType>
struct ElementOpCal<DType, ElementOp::OP_RDIVS> {
    static void apply(DType& dst, DType& src, DType& scalar, size_t) { dst = scalar / src; }
};

}  // namespace pto
