//! Scalar expressions (`Binary`/`Unary` nodes) with the IR's dtype rules: the node's dtype is
//! the result dtype; integers wrap at its width, floats are rounded to it after the operation.

use super::numeric::is_float;
use super::value::{Num, Scalar};
use crate::ir::{BinOp, DataType, UnOp};
use crate::ops::modes::RoundMode;

/// Evaluates `x op y` with result dtype `d` (BOOL for comparisons and logical operators).
pub fn binary(op: BinOp, d: DataType, x: Scalar, y: Scalar) -> Result<Scalar, String> {
    use BinOp::*;
    let (a, b) = (x.num, y.num);
    // Operands are compared and combined in the class of their own dtypes (promoted by the
    // front end); comparisons and logic give BOOL.
    let float_operands = is_float(x.dtype) || is_float(y.dtype);
    let bool_of = |v: bool| Ok(Scalar::new(DataType::Bool, Num::I(i128::from(v))));
    match op {
        Eq | Ne | Lt | Le | Gt | Ge => {
            let ord =
                if float_operands { a.as_f64().partial_cmp(&b.as_f64()) } else { Some(a.as_i128().cmp(&b.as_i128())) };
            let r = match (op, ord) {
                (Ne, None) => true,
                (_, None) => false,
                (Eq, Some(o)) => o.is_eq(),
                (Ne, Some(o)) => o.is_ne(),
                (Lt, Some(o)) => o.is_lt(),
                (Le, Some(o)) => o.is_le(),
                (Gt, Some(o)) => o.is_gt(),
                (_, Some(o)) => o.is_ge(),
            };
            return bool_of(r);
        }
        And => return bool_of(a.is_true() && b.is_true()),
        Or => return bool_of(a.is_true() || b.is_true()),
        Xor => return bool_of(a.is_true() != b.is_true()),
        _ => {}
    }
    let num = if is_float(d) {
        let (p, q) = (a.as_f64(), b.as_f64());
        Num::F(match op {
            Add => p + q,
            Sub => p - q,
            Mul => p * q,
            FloatDiv => p / q,
            FloorDiv => (p / q).floor(),
            // Python's `%`: the result has the divisor's sign.
            FloorMod => p - q * (p / q).floor(),
            Min => p.min(q),
            Max => p.max(q),
            Pow => p.powf(q),
            _ => return Err(format!("`{}` needs integer operands", op.node_name())),
        })
    } else {
        let (p, q) = (a.as_i128(), b.as_i128());
        let nonzero = || {
            if q == 0 {
                Err(format!("integer division by zero in `{}`", op.node_name()))
            } else {
                Ok(q)
            }
        };
        Num::I(match op {
            Add => p.wrapping_add(q),
            Sub => p.wrapping_sub(q),
            Mul => p.wrapping_mul(q),
            // `//` and `%` are Python's floor division and modulo; `/` on integers (which the
            // IR keeps integral) truncates, like C.
            FloorDiv => {
                let q = nonzero()?;
                let t = p / q;
                if p % q != 0 && ((p < 0) != (q < 0)) {
                    t - 1
                } else {
                    t
                }
            }
            FloorMod => {
                let q = nonzero()?;
                let r = p % q;
                if r != 0 && ((r < 0) != (q < 0)) {
                    r + q
                } else {
                    r
                }
            }
            FloatDiv => p.wrapping_div(nonzero()?),
            Min => p.min(q),
            Max => p.max(q),
            Pow => {
                if q < 0 {
                    return Err("integer `**` with a negative exponent".into());
                }
                let mut r: i128 = 1;
                for _ in 0..q.min(128) {
                    r = super::numeric::wrap_int(d, r.wrapping_mul(p));
                }
                r
            }
            BitAnd => p & q,
            BitOr => p | q,
            BitXor => p ^ q,
            Shl | Shr => {
                if !(0..i128::from(d.bits())).contains(&q) {
                    return Err(format!("shift by {q} is outside 0..{} for {}", d.bits(), d.name()));
                }
                if op == Shl {
                    p << q
                } else {
                    p >> q
                }
            }
            _ => return Err(format!("`{}` is not defined here", op.node_name())),
        })
    };
    Ok(Scalar::new(d, num))
}

/// Evaluates a unary node with result dtype `d`.
pub fn unary(op: UnOp, d: DataType, x: Scalar) -> Result<Scalar, String> {
    let a = x.num;
    let num = match op {
        UnOp::Not => return Ok(Scalar::new(DataType::Bool, Num::I(i128::from(!a.is_true())))),
        UnOp::Neg => match a {
            Num::F(v) => Num::F(-v),
            Num::I(v) => Num::I(-v),
        },
        UnOp::Abs => match a {
            Num::F(v) => Num::F(v.abs()),
            Num::I(v) => Num::I(v.abs()),
        },
        UnOp::BitNot => match a {
            Num::I(v) => Num::I(!v),
            Num::F(_) => return Err("`~` needs an integer operand".into()),
        },
        // A scalar cast is C++'s `static_cast`: float → integer truncates toward zero.
        UnOp::Cast => match a {
            Num::F(v) if !is_float(d) => Num::F(RoundMode::Trunc.to_integral(v)),
            other => other,
        },
    };
    Ok(Scalar::new(d, num))
}

#[cfg(test)]
mod tests {
    use super::*;
    use DataType::*;

    fn i(d: DataType, v: i128) -> Scalar {
        Scalar::new(d, Num::I(v))
    }
    fn f(d: DataType, v: f64) -> Scalar {
        Scalar::new(d, Num::F(v))
    }

    #[test]
    fn integer_ops_wrap_and_floor() {
        assert_eq!(
            binary(BinOp::Add, Int32, i(Int32, i32::MAX.into()), i(Int32, 1)).unwrap(),
            i(Int32, i32::MIN.into())
        );
        assert_eq!(binary(BinOp::Mul, Int8, i(Int8, 16), i(Int8, 16)).unwrap(), i(Int8, 0));
        assert_eq!(binary(BinOp::FloorDiv, Int64, i(Int64, -7), i(Int64, 2)).unwrap(), i(Int64, -4));
        assert_eq!(binary(BinOp::FloorMod, Int64, i(Int64, -7), i(Int64, 2)).unwrap(), i(Int64, 1));
        assert_eq!(binary(BinOp::FloorMod, Int64, i(Int64, 7), i(Int64, -2)).unwrap(), i(Int64, -1));
        assert_eq!(binary(BinOp::FloatDiv, Int64, i(Int64, -7), i(Int64, 2)).unwrap(), i(Int64, -3));
        assert!(binary(BinOp::FloorDiv, Int64, i(Int64, 1), i(Int64, 0)).is_err());
        assert_eq!(binary(BinOp::Shl, UInt8, i(UInt8, 0x81), i(UInt8, 1)).unwrap(), i(UInt8, 2));
        assert_eq!(binary(BinOp::Lt, Bool, i(Int64, 1), i(Int64, 2)).unwrap(), i(Bool, 1));
        assert_eq!(unary(UnOp::Neg, Int8, i(Int8, -128)).unwrap(), i(Int8, -128));
    }

    #[test]
    fn float_ops_round_to_their_dtype() {
        // 2049 is not an FP16 value: the sum rounds to 2048 (ties to even).
        assert_eq!(binary(BinOp::Add, Fp16, f(Fp16, 2048.0), f(Fp16, 1.0)).unwrap(), f(Fp16, 2048.0));
        assert_eq!(binary(BinOp::FloorMod, Fp32, f(Fp32, -7.0), f(Fp32, 2.0)).unwrap(), f(Fp32, 1.0));
        assert_eq!(unary(UnOp::Cast, Int32, f(Fp32, -2.7)).unwrap(), i(Int32, -2));
        assert_eq!(unary(UnOp::Cast, Fp16, i(Int32, 2049)).unwrap(), f(Fp16, 2048.0));
    }
}
