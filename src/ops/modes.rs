//! The enumerated modes operators take as integer kwargs: `cast`'s rounding mode (`mode`) and
//! `cmp`/`cmps`'s comparison (`cmp_type`). Each mode's code, its name in the text, its name in
//! pto-isa's C++ and PTO-ISA MLIR, and what it means are written here once; the table checks
//! kwargs with them, the interpreter computes with them, and both backends spell them.

use std::cmp::Ordering;

/// Rounding modes of `cast`, by code 0…6 as in pto-isa's `RoundMode`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RoundMode {
    None,
    Rint,
    Round,
    Floor,
    Ceil,
    Trunc,
    Odd,
}

impl RoundMode {
    /// Every mode in code order.
    pub const ALL: [RoundMode; 7] = [
        RoundMode::None,
        RoundMode::Rint,
        RoundMode::Round,
        RoundMode::Floor,
        RoundMode::Ceil,
        RoundMode::Trunc,
        RoundMode::Odd,
    ];

    pub fn from_code(c: i64) -> Option<RoundMode> {
        usize::try_from(c).ok().and_then(|i| RoundMode::ALL.get(i)).copied()
    }

    pub fn code(self) -> i64 {
        self as i64
    }

    /// The name a program may write instead of the code (`mode="rint"`).
    pub fn name(self) -> &'static str {
        ["none", "rint", "round", "floor", "ceil", "trunc", "odd"][self as usize]
    }

    pub fn from_name(name: &str) -> Option<RoundMode> {
        RoundMode::ALL.into_iter().find(|m| m.name() == name)
    }

    /// pto-isa's spelling: `RoundMode::CAST_<isa>` in C++, `#pto<round_mode <isa>>` in MLIR.
    pub fn isa_name(self) -> &'static str {
        ["NONE", "RINT", "ROUND", "FLOOR", "CEIL", "TRUNC", "ODD"][self as usize]
    }

    /// Rounds to an integral value the way pto-isa's CPU simulator does before a float → integer
    /// conversion (`applyRoundingToIntegral` in its TCvt): `None` leaves the value as it is,
    /// so the conversion then truncates; `Odd` rounds ties to the odd neighbour.
    pub fn to_integral(self, v: f64) -> f64 {
        match self {
            RoundMode::None => v,
            RoundMode::Rint => v.round_ties_even(),
            RoundMode::Round => v.round(),
            RoundMode::Floor => v.floor(),
            RoundMode::Ceil => v.ceil(),
            RoundMode::Trunc => v.trunc(),
            RoundMode::Odd => {
                let f = v.floor();
                let frac = v - f;
                // Nearest; a tie goes to the odd neighbour.
                let odd_floor = (f as i64) & 1 != 0;
                if frac > 0.5 || (frac == 0.5 && !odd_floor) {
                    f + 1.0
                } else {
                    f
                }
            }
        }
    }
}

/// Comparisons of `cmp`/`cmps`, by code 0…5 as in pto-isa's `CmpMode`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CmpMode {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl CmpMode {
    /// Every mode in code order.
    pub const ALL: [CmpMode; 6] = [CmpMode::Eq, CmpMode::Ne, CmpMode::Lt, CmpMode::Le, CmpMode::Gt, CmpMode::Ge];

    pub fn from_code(c: i64) -> Option<CmpMode> {
        usize::try_from(c).ok().and_then(|i| CmpMode::ALL.get(i)).copied()
    }

    /// pto-isa's C++ spelling (`CmpMode::EQ`).
    pub fn isa_name(self) -> &'static str {
        ["EQ", "NE", "LT", "LE", "GT", "GE"][self as usize]
    }

    /// PTO-ISA MLIR's spelling (`#pto<cmp eq>`).
    pub fn mlir_name(self) -> &'static str {
        ["eq", "ne", "lt", "le", "gt", "ge"][self as usize]
    }

    /// Whether `a <mode> b` holds, given how they order (`None`: unordered, a NaN operand,
    /// for which only `Ne` holds).
    pub fn holds(self, ord: Option<Ordering>) -> bool {
        let Some(o) = ord else { return self == CmpMode::Ne };
        match self {
            CmpMode::Eq => o.is_eq(),
            CmpMode::Ne => o.is_ne(),
            CmpMode::Lt => o.is_lt(),
            CmpMode::Le => o.is_le(),
            CmpMode::Gt => o.is_gt(),
            CmpMode::Ge => o.is_ge(),
        }
    }

    /// The codes and names, for messages: `0 (EQ) … 5 (GE)`.
    pub fn range_text() -> String {
        let all: Vec<String> = CmpMode::ALL.iter().map(|m| format!("{} ({})", *m as i64, m.isa_name())).collect();
        all.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_and_names_round_trip() {
        for m in RoundMode::ALL {
            assert_eq!(RoundMode::from_code(m.code()), Some(m));
            assert_eq!(RoundMode::from_name(m.name()), Some(m));
            assert_eq!(m.isa_name().to_lowercase(), m.name());
        }
        assert_eq!(RoundMode::from_code(7), None);
        assert_eq!(RoundMode::from_code(-1), None);
        for (i, m) in CmpMode::ALL.into_iter().enumerate() {
            assert_eq!(CmpMode::from_code(i as i64), Some(m));
            assert_eq!(m.isa_name().to_lowercase(), m.mlir_name());
        }
        assert_eq!(CmpMode::from_code(6), None);
    }

    #[test]
    fn comparisons_with_nan_hold_only_for_ne() {
        for m in CmpMode::ALL {
            assert_eq!(m.holds(None), m == CmpMode::Ne);
        }
        assert!(CmpMode::Le.holds(Some(Ordering::Equal)) && !CmpMode::Lt.holds(Some(Ordering::Equal)));
    }
}
