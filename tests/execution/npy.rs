//! Minimal `.npy` (version 1.0, little-endian, C order) reader and writer, and the element
//! types the tests exchange with the C++ mains and `ptoc run`.
//!
//! BF16 has no numpy dtype: it is exchanged as `<u2` holding the bf16 bits (what ml_dtypes'
//! bfloat16 arrays look like when saved without the extension).

use ptoc::ir::DataType;

/// An element type of an exchanged array.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Elem {
    F32,
    F16,
    Bf16,
    I8,
    I16,
    I32,
    I64,
    U8,
    U16,
    U32,
    U64,
    Bool,
}

impl Elem {
    pub fn of(d: DataType) -> Option<Elem> {
        Some(match d {
            DataType::Fp32 => Elem::F32,
            DataType::Fp16 => Elem::F16,
            DataType::Bf16 => Elem::Bf16,
            DataType::Int8 => Elem::I8,
            DataType::Int16 => Elem::I16,
            DataType::Int32 => Elem::I32,
            DataType::Int64 => Elem::I64,
            DataType::UInt8 => Elem::U8,
            DataType::UInt16 => Elem::U16,
            DataType::UInt32 => Elem::U32,
            DataType::UInt64 => Elem::U64,
            DataType::Bool => Elem::Bool,
            _ => return None,
        })
    }
    pub fn size(self) -> usize {
        match self {
            Elem::I8 | Elem::U8 | Elem::Bool => 1,
            Elem::F16 | Elem::Bf16 | Elem::I16 | Elem::U16 => 2,
            Elem::F32 | Elem::I32 | Elem::U32 => 4,
            Elem::I64 | Elem::U64 => 8,
        }
    }
    pub fn descr(self) -> &'static str {
        match self {
            Elem::F32 => "<f4",
            Elem::F16 => "<f2",
            Elem::Bf16 | Elem::U16 => "<u2",
            Elem::I8 => "|i1",
            Elem::I16 => "<i2",
            Elem::I32 => "<i4",
            Elem::I64 => "<i8",
            Elem::U8 => "|u1",
            Elem::U32 => "<u4",
            Elem::U64 => "<u8",
            Elem::Bool => "|b1",
        }
    }
    pub fn is_float(self) -> bool {
        matches!(self, Elem::F32 | Elem::F16 | Elem::Bf16)
    }
    pub fn is_signed(self) -> bool {
        matches!(self, Elem::I8 | Elem::I16 | Elem::I32 | Elem::I64)
    }
    /// Element `i` of little-endian `data`, as f64 (exact for every type but 64-bit ints
    /// beyond 2^53, which the inputs never reach).
    pub fn get(self, data: &[u8], i: usize) -> f64 {
        let b = &data[i * self.size()..(i + 1) * self.size()];
        match self {
            Elem::F32 => f32::from_le_bytes(b.try_into().unwrap()) as f64,
            Elem::F16 => f16_to_f32(u16::from_le_bytes(b.try_into().unwrap())) as f64,
            Elem::Bf16 => f32::from_bits((u16::from_le_bytes(b.try_into().unwrap()) as u32) << 16) as f64,
            Elem::I8 => b[0] as i8 as f64,
            Elem::I16 => i16::from_le_bytes(b.try_into().unwrap()) as f64,
            Elem::I32 => i32::from_le_bytes(b.try_into().unwrap()) as f64,
            Elem::I64 => i64::from_le_bytes(b.try_into().unwrap()) as f64,
            Elem::U8 | Elem::Bool => b[0] as f64,
            Elem::U16 => u16::from_le_bytes(b.try_into().unwrap()) as f64,
            Elem::U32 => u32::from_le_bytes(b.try_into().unwrap()) as f64,
            Elem::U64 => u64::from_le_bytes(b.try_into().unwrap()) as f64,
        }
    }
    /// Appends `v` (already representable: the inputs are chosen so) in little-endian bytes.
    pub fn push(self, out: &mut Vec<u8>, v: f64) {
        match self {
            Elem::F32 => out.extend((v as f32).to_le_bytes()),
            Elem::F16 => out.extend(f32_to_f16(v as f32).to_le_bytes()),
            Elem::Bf16 => out.extend(((v as f32).to_bits() >> 16).to_le_bytes()[..2].iter()),
            Elem::I8 => out.push(v as i8 as u8),
            Elem::I16 => out.extend((v as i16).to_le_bytes()),
            Elem::I32 => out.extend((v as i32).to_le_bytes()),
            Elem::I64 => out.extend((v as i64).to_le_bytes()),
            Elem::U8 | Elem::Bool => out.push(v as u8),
            Elem::U16 => out.extend((v as u16).to_le_bytes()),
            Elem::U32 => out.extend((v as u32).to_le_bytes()),
            Elem::U64 => out.extend((v as u64).to_le_bytes()),
        }
    }
}

/// IEEE half to single (exact).
pub fn f16_to_f32(h: u16) -> f32 {
    let sign = ((h >> 15) as u32) << 31;
    let exp = ((h >> 10) & 0x1f) as u32;
    let frac = (h & 0x3ff) as u32;
    let bits = match (exp, frac) {
        (0, 0) => sign,
        (0, f) => {
            // subnormal: normalise
            let mut e = 127 - 15 + 1;
            let mut f = f;
            while f & 0x400 == 0 {
                f <<= 1;
                e -= 1;
            }
            sign | (e << 23) | ((f & 0x3ff) << 13)
        }
        (0x1f, f) => sign | 0x7f80_0000 | (f << 13),
        (e, f) => sign | ((e + 127 - 15) << 23) | (f << 13),
    };
    f32::from_bits(bits)
}

/// Single to IEEE half, round to nearest even (inputs are exact halves; this is only the
/// encoding, so overflow and NaN payloads are handled simply).
pub fn f32_to_f16(x: f32) -> u16 {
    let b = x.to_bits();
    let sign = ((b >> 16) & 0x8000) as u16;
    let exp = ((b >> 23) & 0xff) as i32;
    let frac = b & 0x7f_ffff;
    if exp == 0xff {
        return sign | 0x7c00 | if frac != 0 { 0x200 } else { 0 };
    }
    let e = exp - 127 + 15;
    if e >= 0x1f {
        return sign | 0x7c00;
    }
    if e <= 0 {
        if e < -10 {
            return sign;
        }
        let m = frac | 0x80_0000;
        let shift = (14 - e) as u32;
        let half = m >> shift;
        let rem = m & ((1 << shift) - 1);
        let mid = 1 << (shift - 1);
        let r = if rem > mid || (rem == mid && half & 1 == 1) { half + 1 } else { half };
        return sign | r as u16;
    }
    let half = ((e as u32) << 10) | (frac >> 13);
    let rem = frac & 0x1fff;
    let r = if rem > 0x1000 || (rem == 0x1000 && half & 1 == 1) { half + 1 } else { half };
    sign | r as u16
}

/// An array read from or written to a `.npy` file.
#[derive(Clone, Debug, PartialEq)]
pub struct Array {
    pub descr: String,
    pub shape: Vec<usize>,
    /// Little-endian payload.
    pub data: Vec<u8>,
}

impl Array {
    pub fn len(&self) -> usize {
        self.shape.iter().product()
    }

    /// The file's bytes.
    pub fn to_npy(&self) -> Vec<u8> {
        let dims: Vec<String> = self.shape.iter().map(|d| d.to_string()).collect();
        let shape = match dims.len() {
            1 => format!("({},)", dims[0]),
            _ => format!("({})", dims.join(", ")),
        };
        let mut dict = format!("{{'descr': '{}', 'fortran_order': False, 'shape': {shape}, }}", self.descr);
        // Header (magic, version, length, dict, newline) padded to a multiple of 64 bytes.
        let pad = (64 - (10 + dict.len() + 1) % 64) % 64;
        dict.push_str(&" ".repeat(pad));
        dict.push('\n');
        let mut out = b"\x93NUMPY\x01\x00".to_vec();
        out.extend((dict.len() as u16).to_le_bytes());
        out.extend(dict.as_bytes());
        out.extend(&self.data);
        out
    }

    /// Parses a version 1.x/2.x/3.x file in C order with a little-endian or byte-sized dtype.
    pub fn from_npy(bytes: &[u8]) -> Result<Array, String> {
        if bytes.len() < 10 || &bytes[..6] != b"\x93NUMPY" {
            return Err("not a .npy file".into());
        }
        let (hlen, start) = match bytes[6] {
            1 => (u16::from_le_bytes([bytes[8], bytes[9]]) as usize, 10),
            2 | 3 if bytes.len() >= 12 => (u32::from_le_bytes(bytes[8..12].try_into().unwrap()) as usize, 12),
            v => return Err(format!("unsupported .npy version {v}")),
        };
        let header = std::str::from_utf8(bytes.get(start..start + hlen).ok_or("truncated header")?)
            .map_err(|_| "header is not text")?;
        let field = |key: &str| -> Result<&str, String> {
            let at = header.find(&format!("'{key}'")).ok_or(format!("header has no '{key}': {header}"))?;
            Ok(header[at + key.len() + 2..].trim_start().trim_start_matches(':').trim_start())
        };
        let descr = field("descr")?.trim_start_matches('\'').split('\'').next().unwrap_or("").to_string();
        if field("fortran_order")?.starts_with("True") {
            return Err("Fortran-order arrays are not supported".into());
        }
        let shape_text = field("shape")?;
        let shape_text = &shape_text[1..shape_text.find(')').ok_or("bad shape")?];
        let shape = shape_text
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(|s| s.trim_end_matches('L').parse::<usize>().map_err(|e| format!("bad shape `{shape_text}`: {e}")))
            .collect::<Result<Vec<_>, _>>()?;
        let data = bytes[start + hlen..].to_vec();
        let a = Array { descr, shape, data };
        let want = a.len() * descr_size(&a.descr).ok_or(format!("unsupported dtype `{}`", a.descr))?;
        if a.data.len() != want {
            return Err(format!("payload is {} bytes, shape {:?} of {} needs {want}", a.data.len(), a.shape, a.descr));
        }
        Ok(a)
    }

    /// The element type for comparisons: BF16 travels as `<u2`, so the expected type decides.
    pub fn elem(&self, expected: Elem) -> Result<Elem, String> {
        if self.descr == expected.descr() || (self.descr == "<u2" && expected == Elem::Bf16) {
            Ok(expected)
        } else {
            Err(format!("dtype `{}`, expected `{}`", self.descr, expected.descr()))
        }
    }
}

fn descr_size(d: &str) -> Option<usize> {
    let (order, rest) = d.split_at(1);
    if !matches!(order, "<" | "|" | "=") {
        return None;
    }
    rest.get(1..)?.parse().ok()
}

#[cfg(test)]
#[allow(unused_imports)] // harness = false targets drop #[test] functions (see common/mod.rs)
mod tests {
    use super::*;

    #[test]
    fn npy_round_trip() {
        let a = Array { descr: "<f4".into(), shape: vec![2, 3], data: (0..24).collect() };
        let bytes = a.to_npy();
        assert_eq!((10 + u16::from_le_bytes([bytes[8], bytes[9]]) as usize) % 64, 0);
        assert_eq!(Array::from_npy(&bytes).unwrap(), a);
        let s = Array { descr: "<i8".into(), shape: vec![], data: vec![7, 0, 0, 0, 0, 0, 0, 0] };
        assert_eq!(Array::from_npy(&s.to_npy()).unwrap(), s);
        assert!(Array::from_npy(&a.to_npy()[..100]).is_err());
    }

    #[test]
    fn half_conversions() {
        for v in [0.0f32, 1.0, -1.0, 0.5, -0.999_023_44, 65504.0, 6.1035156e-5, 5.9604645e-8] {
            assert_eq!(f16_to_f32(f32_to_f16(v)), v, "{v}");
        }
        assert_eq!(f32_to_f16(1.0 + 1.0 / 4096.0), 0x3c00); // ties to even
        assert!(f16_to_f32(f32_to_f16(f32::NAN)).is_nan());
    }
}
