//! Flink SQL's exact `DECIMAL(p, s)`: values, literals, casts and arithmetic, as
//! `org.apache.flink.table.data.DecimalData` and `DecimalDataUtils` (Flink 2.3.0) compute them.
//!
//! A value is its unscaled integer (`|unscaled| < 10^38`, so it fits an `i128`) with the
//! precision and scale of its SQL type. Every result goes through
//! [`from_exact`] = `DecimalData.fromBigDecimal(bd, p, s)`: `bd.setScale(s, HALF_UP)`, then NULL
//! when its precision exceeds `p`. Intermediate results (products, aligned sums, quotients)
//! can exceed 128 bits: they are computed exactly on a small unsigned big integer ([`Big`]).
//! Result types follow `LogicalTypeMerging` (`findAdditionDecimalType`,
//! `findMultiplicationDecimalType`, `findDivisionDecimalType`, `adjustPrecisionScale`).

use std::cmp::Ordering;
use std::fmt;

/// `DecimalType.MAX_PRECISION`.
pub const MAX_PRECISION: u8 = 38;
/// `DecimalData.MAX_COMPACT_PRECISION`: up to 18 digits a value is held (and written into a
/// `BinaryRowData`) as a `long`.
pub const MAX_COMPACT_PRECISION: u8 = 18;

/// One exact `DECIMAL(precision, scale)` value.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Decimal {
    pub unscaled: i128,
    pub precision: u8,
    pub scale: u8,
}

/// Whether `(p, s)` is a valid `DECIMAL(p, s)` (`DecimalType`: `1 <= p <= 38`, `0 <= s <= p`).
pub fn valid_type(p: u32, s: u32) -> Result<(), String> {
    if !(1..=MAX_PRECISION as u32).contains(&p) {
        return Err(format!(
            "Decimal precision must be between 1 and {MAX_PRECISION} (both inclusive)."
        ));
    }
    if s > p {
        return Err(format!(
            "Decimal scale must be between 0 and the precision {p} (both inclusive)."
        ));
    }
    Ok(())
}

/// `adjustPrecisionScale` of `LogicalTypeMerging`: a type wider than 38 digits keeps its
/// integral digits and gives up scale down to `min(s, 6)`.
fn adjust(p: i32, s: i32) -> (u8, u8) {
    if p <= MAX_PRECISION as i32 {
        return (p as u8, s as u8);
    }
    let int_digits = p - s;
    let min_scale = s.min(6);
    let scale = (MAX_PRECISION as i32 - int_digits).max(min_scale);
    (MAX_PRECISION, scale as u8)
}

/// `LogicalTypeMerging.findAdditionDecimalType` (also `-`).
pub fn addition_type(p1: u8, s1: u8, p2: u8, s2: u8) -> (u8, u8) {
    let (p1, s1, p2, s2) = (p1 as i32, s1 as i32, p2 as i32, s2 as i32);
    let s = s1.max(s2);
    adjust((p1 - s1).max(p2 - s2) + s + 1, s)
}

/// `LogicalTypeMerging.findMultiplicationDecimalType`.
pub fn multiplication_type(p1: u8, s1: u8, p2: u8, s2: u8) -> (u8, u8) {
    adjust(p1 as i32 + p2 as i32 + 1, s1 as i32 + s2 as i32)
}

/// `LogicalTypeMerging.findDivisionDecimalType`.
pub fn division_type(p1: u8, s1: u8, p2: u8, s2: u8) -> (u8, u8) {
    let (p1, s1, p2, s2) = (p1 as i32, s1 as i32, p2 as i32, s2 as i32);
    let s = 6.max(s1 + p2 + 1);
    adjust(p1 - s1 + s2 + s, s)
}

/// `LogicalTypeMerging.findModuloDecimalType`.
pub fn modulo_type(p1: u8, s1: u8, p2: u8, s2: u8) -> (u8, u8) {
    let (p1, s1, p2, s2) = (p1 as i32, s1 as i32, p2 as i32, s2 as i32);
    let s = s1.max(s2);
    adjust((p1 - s1).min(p2 - s2) + s, s)
}

/// `LogicalTypeMerging.findSumAggType`: `DECIMAL(38, s)`.
pub fn sum_type(s: u8) -> (u8, u8) {
    (MAX_PRECISION, s)
}

/// `LogicalTypeMerging.findAvgAggType`: `findDivisionDecimalType(38, s, 20, 0)`.
pub fn avg_type(s: u8) -> (u8, u8) {
    division_type(MAX_PRECISION, s, 20, 0)
}

/// The decimal type Calcite gives an integer operand of decimal arithmetic
/// (`RelDataTypeFactory.decimalOf`): `INT` is `DECIMAL(10, 0)`, `BIGINT` `DECIMAL(19, 0)`.
pub fn of_int(v: i32) -> Decimal {
    Decimal {
        unscaled: v as i128,
        precision: 10,
        scale: 0,
    }
}

/// See [`of_int`].
pub fn of_long(v: i64) -> Decimal {
    Decimal {
        unscaled: v as i128,
        precision: 19,
        scale: 0,
    }
}

// ---------------------------------------------------------------------------------------------
// A small unsigned big integer for exact intermediate results.

/// An unsigned integer of any size, little-endian 32-bit limbs without trailing zero limbs.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Big(Vec<u32>);

impl Big {
    fn from_u128(mut v: u128) -> Big {
        let mut l = Vec::new();
        while v != 0 {
            l.push(v as u32);
            v >>= 32;
        }
        Big(l)
    }
    fn is_zero(&self) -> bool {
        self.0.is_empty()
    }
    fn trim(&mut self) {
        while self.0.last() == Some(&0) {
            self.0.pop();
        }
    }
    fn mul_small(&mut self, m: u32) {
        let mut carry = 0u64;
        for l in &mut self.0 {
            let v = *l as u64 * m as u64 + carry;
            *l = v as u32;
            carry = v >> 32;
        }
        if carry != 0 {
            self.0.push(carry as u32);
        }
        self.trim();
    }
    fn add_small(&mut self, a: u32) {
        let mut carry = a as u64;
        for l in &mut self.0 {
            if carry == 0 {
                return;
            }
            let v = *l as u64 + carry;
            *l = v as u32;
            carry = v >> 32;
        }
        if carry != 0 {
            self.0.push(carry as u32);
        }
    }
    /// Divides in place, returns the remainder.
    fn divmod_small(&mut self, d: u32) -> u32 {
        let mut rem = 0u64;
        for l in self.0.iter_mut().rev() {
            let v = (rem << 32) | *l as u64;
            *l = (v / d as u64) as u32;
            rem = v % d as u64;
        }
        self.trim();
        rem as u32
    }
    fn mul_pow10(&mut self, mut n: u32) {
        while n >= 9 {
            self.mul_small(1_000_000_000);
            n -= 9;
        }
        self.mul_small(10u32.pow(n));
    }
    /// Truncating division by `10^n`; returns whether any nonzero digit was dropped.
    fn div_pow10(&mut self, mut n: u32) -> bool {
        let mut dropped = false;
        while n >= 9 {
            dropped |= self.divmod_small(1_000_000_000) != 0;
            n -= 9;
        }
        dropped |= self.divmod_small(10u32.pow(n)) != 0;
        dropped
    }
    /// Divides by `10^n` rounding HALF_UP (only the first dropped digit decides).
    fn div_pow10_half_up(&mut self, n: u32) {
        if n == 0 {
            return;
        }
        self.div_pow10(n - 1);
        if self.divmod_small(10) >= 5 {
            self.add_small(1);
        }
    }
    fn mul(&self, o: &Big) -> Big {
        let mut r = vec![0u32; self.0.len() + o.0.len()];
        for (i, &a) in self.0.iter().enumerate() {
            let mut carry = 0u64;
            for (j, &b) in o.0.iter().enumerate() {
                let v = r[i + j] as u64 + a as u64 * b as u64 + carry;
                r[i + j] = v as u32;
                carry = v >> 32;
            }
            let mut k = i + o.0.len();
            while carry != 0 {
                let v = r[k] as u64 + carry;
                r[k] = v as u32;
                carry = v >> 32;
                k += 1;
            }
        }
        let mut b = Big(r);
        b.trim();
        b
    }
    fn cmp(&self, o: &Big) -> Ordering {
        self.0
            .len()
            .cmp(&o.0.len())
            .then_with(|| self.0.iter().rev().cmp(o.0.iter().rev()))
    }
    fn add(&self, o: &Big) -> Big {
        let n = self.0.len().max(o.0.len());
        let mut r = Vec::with_capacity(n + 1);
        let mut carry = 0u64;
        for i in 0..n {
            let v = *self.0.get(i).unwrap_or(&0) as u64 + *o.0.get(i).unwrap_or(&0) as u64 + carry;
            r.push(v as u32);
            carry = v >> 32;
        }
        if carry != 0 {
            r.push(carry as u32);
        }
        Big(r)
    }
    /// `self - o`, for `self >= o`.
    fn sub(&self, o: &Big) -> Big {
        let mut r = Vec::with_capacity(self.0.len());
        let mut borrow = 0i64;
        for i in 0..self.0.len() {
            let mut v = self.0[i] as i64 - *o.0.get(i).unwrap_or(&0) as i64 - borrow;
            borrow = 0;
            if v < 0 {
                v += 1 << 32;
                borrow = 1;
            }
            r.push(v as u32);
        }
        let mut b = Big(r);
        b.trim();
        b
    }
    fn bits(&self) -> usize {
        match self.0.last() {
            None => 0,
            Some(&top) => (self.0.len() - 1) * 32 + (32 - top.leading_zeros() as usize),
        }
    }
    fn bit(&self, i: usize) -> bool {
        self.0.get(i / 32).is_some_and(|l| (l >> (i % 32)) & 1 == 1)
    }
    fn shl1_or(&mut self, b: bool) {
        let mut carry = u32::from(b);
        for l in &mut self.0 {
            let next = *l >> 31;
            *l = (*l << 1) | carry;
            carry = next;
        }
        if carry != 0 {
            self.0.push(carry);
        }
    }
    /// Truncating division (binary long division); `d` is not zero.
    fn divmod(&self, d: &Big) -> (Big, Big) {
        let mut q = Big(vec![0; self.0.len()]);
        let mut r = Big(Vec::new());
        for i in (0..self.bits()).rev() {
            r.shl1_or(self.bit(i));
            if r.cmp(d) != Ordering::Less {
                r = r.sub(d);
                q.0[i / 32] |= 1 << (i % 32);
            }
        }
        q.trim();
        (q, r)
    }
    /// Decimal digits (0 has one digit, as `BigDecimal.precision()` counts it).
    fn digits(&self) -> u32 {
        let mut t = self.clone();
        let mut n = 0;
        while t.0.len() > 1 || t.0.first().is_some_and(|&l| l >= 1_000_000_000) {
            t.divmod_small(1_000_000_000);
            n += 9;
        }
        let mut last = t.0.first().copied().unwrap_or(0);
        n += 1;
        while last >= 10 {
            last /= 10;
            n += 1;
        }
        n
    }
    fn to_u128(&self) -> Option<u128> {
        if self.0.len() > 4 {
            return None;
        }
        Some(
            self.0
                .iter()
                .rev()
                .fold(0u128, |acc, &l| (acc << 32) | l as u128),
        )
    }
}

/// An exact signed value `(-1)^neg * mag * 10^-scale` (scale may be negative).
struct Exact {
    neg: bool,
    mag: Big,
    scale: i32,
}

impl Exact {
    fn of(d: &Decimal) -> Exact {
        Exact {
            neg: d.unscaled < 0,
            mag: Big::from_u128(d.unscaled.unsigned_abs()),
            scale: d.scale as i32,
        }
    }
    /// The magnitude at scale `s` (`s >= self.scale`).
    fn mag_at(&self, s: i32) -> Big {
        let mut m = self.mag.clone();
        m.mul_pow10((s - self.scale) as u32);
        m
    }
}

/// `DecimalData.fromBigDecimal(bd, p, s)`: `setScale(s, HALF_UP)` (HALF_UP rounds the
/// magnitude, so it is symmetric around zero), then `None` (SQL NULL) when the result has more
/// than `p` digits.
fn from_exact(e: Exact, p: u8, s: u8) -> Option<Decimal> {
    let mut mag = e.mag;
    let target = s as i32;
    if target >= e.scale {
        // At most 38 + 38 + a few digits: bounded by the operand types.
        mag.mul_pow10((target - e.scale) as u32);
    } else {
        mag.div_pow10_half_up((e.scale - target) as u32);
    }
    if mag.digits() > p as u32 {
        return None;
    }
    let m = mag.to_u128()? as i128;
    Some(Decimal {
        unscaled: if e.neg { -m } else { m },
        precision: p,
        scale: s,
    })
}

impl Decimal {
    /// `CAST(self AS DECIMAL(p, s))` (`DecimalDataUtils.castToDecimal`): rounded HALF_UP to
    /// `s`; `None` (NULL) when it does not fit `p` digits.
    pub fn cast(&self, p: u8, s: u8) -> Option<Decimal> {
        from_exact(Exact::of(self), p, s)
    }

    /// `DecimalDataUtils.add` with the type of `findAdditionDecimalType`; `None` is NULL
    /// (the exact sum has more digits than the type: `fromBigDecimal`).
    pub fn add(&self, o: &Decimal) -> Option<Decimal> {
        let (p, s) = addition_type(self.precision, self.scale, o.precision, o.scale);
        self.add_as(o, p, s)
    }

    /// `DecimalDataUtils.subtract` (see [`Decimal::add`]).
    pub fn sub(&self, o: &Decimal) -> Option<Decimal> {
        self.add(&o.neg())
    }

    /// The exact sum rounded into `DECIMAL(p, s)` (`DecimalDataUtils.add(a, b, p, s)`, as
    /// `SUM` calls it with its accumulator type).
    pub fn add_as(&self, o: &Decimal, p: u8, s: u8) -> Option<Decimal> {
        let (a, b) = (Exact::of(self), Exact::of(o));
        let sc = a.scale.max(b.scale);
        let (ma, mb) = (a.mag_at(sc), b.mag_at(sc));
        let e = if a.neg == b.neg {
            Exact {
                neg: a.neg,
                mag: ma.add(&mb),
                scale: sc,
            }
        } else if ma.cmp(&mb) != Ordering::Less {
            Exact {
                neg: a.neg,
                mag: ma.sub(&mb),
                scale: sc,
            }
        } else {
            Exact {
                neg: b.neg,
                mag: mb.sub(&ma),
                scale: sc,
            }
        };
        from_exact(e, p, s)
    }

    /// `DecimalDataUtils.multiply`: the exact product, rounded into the type of
    /// `findMultiplicationDecimalType`.
    pub fn mul(&self, o: &Decimal) -> Option<Decimal> {
        let (p, s) = multiplication_type(self.precision, self.scale, o.precision, o.scale);
        let (a, b) = (Exact::of(self), Exact::of(o));
        from_exact(
            Exact {
                neg: a.neg != b.neg,
                mag: a.mag.mul(&b.mag),
                scale: a.scale + b.scale,
            },
            p,
            s,
        )
    }

    /// `DecimalDataUtils.divide` into the type of `findDivisionDecimalType`:
    /// `BigDecimal.divide(divisor, new MathContext(38, HALF_UP))` (the quotient rounded to 38
    /// significant digits), then `fromBigDecimal` (rounded again, to the type's scale).
    /// `Err` for a zero divisor (`ArithmeticException`: the job fails).
    pub fn div(&self, o: &Decimal) -> Result<Option<Decimal>, String> {
        let (p, s) = division_type(self.precision, self.scale, o.precision, o.scale);
        self.div_as(o, p, s)
    }

    /// The quotient as [`Decimal::div`] computes it, into `DECIMAL(p, s)`.
    pub fn div_as(&self, o: &Decimal, p: u8, s: u8) -> Result<Option<Decimal>, String> {
        if o.unscaled == 0 {
            return Err("Division by zero (a DECIMAL division fails the job)".into());
        }
        let (a, b) = (Exact::of(self), Exact::of(o));
        let neg = a.neg != b.neg;
        if a.mag.is_zero() {
            return Ok(from_exact(
                Exact {
                    neg: false,
                    mag: a.mag,
                    scale: 0,
                },
                p,
                s,
            ));
        }
        // a/b * 10^(b.scale - a.scale): scale a up by 10^k so the integral quotient has at least
        // 39 digits, then round it to 38 significant digits (MathContext(38, HALF_UP)).
        let k = (39 + b.mag.digits() as i32 - a.mag.digits() as i32 + 1).max(0);
        let mut num = a.mag.clone();
        num.mul_pow10(k as u32);
        let (mut q, _) = num.divmod(&b.mag);
        let mut scale = a.scale - b.scale + k;
        let n = q.digits() as i32;
        if n > MAX_PRECISION as i32 {
            let drop = (n - MAX_PRECISION as i32) as u32;
            q.div_pow10_half_up(drop);
            scale -= drop as i32;
        }
        Ok(from_exact(Exact { neg, mag: q, scale }, p, s))
    }

    /// `DecimalDataUtils.mod` into the type of `findModuloDecimalType`:
    /// `BigDecimal.remainder(divisor, MathContext(38, HALF_UP))`, the exact remainder with the
    /// dividend's sign (`ArithmeticException` when the integral quotient needs more than 38
    /// digits, or the divisor is zero: the job fails).
    pub fn rem(&self, o: &Decimal) -> Result<Option<Decimal>, String> {
        if o.unscaled == 0 {
            return Err("Division by zero (a DECIMAL MOD fails the job)".into());
        }
        let (p, s) = modulo_type(self.precision, self.scale, o.precision, o.scale);
        let (a, b) = (Exact::of(self), Exact::of(o));
        let sc = a.scale.max(b.scale);
        let (q, r) = a.mag_at(sc).divmod(&b.mag_at(sc));
        if q.digits() > MAX_PRECISION as u32 {
            return Err("Division impossible (a DECIMAL MOD fails the job)".into());
        }
        Ok(from_exact(
            Exact {
                neg: a.neg,
                mag: r,
                scale: sc,
            },
            p,
            s,
        ))
    }

    /// The value as a SQL literal that Flink accepts and that gives it back when inserted into
    /// its column: its text (`1.50`), without the trailing zeros of the scale when the unscaled
    /// value would not fit a `long` otherwise (Calcite's literal limit).
    pub fn literal_text(&self) -> String {
        let mut d = *self;
        while i64::try_from(d.unscaled).is_err() && d.scale > 0 && d.unscaled % 10 == 0 {
            d.unscaled /= 10;
            d.scale -= 1;
        }
        d.to_string()
    }

    /// `DecimalDataUtils.negate`: the same type.
    pub fn neg(&self) -> Decimal {
        Decimal {
            unscaled: -self.unscaled,
            ..*self
        }
    }

    /// `DecimalData.compareTo`: by value, whatever the scales.
    pub fn compare(&self, o: &Decimal) -> Ordering {
        let (a, b) = (Exact::of(self), Exact::of(o));
        let sc = a.scale.max(b.scale);
        let (ma, mb) = (a.mag_at(sc), b.mag_at(sc));
        let sa = if ma.is_zero() {
            0
        } else if a.neg {
            -1
        } else {
            1
        };
        let sb = if mb.is_zero() {
            0
        } else if b.neg {
            -1
        } else {
            1
        };
        if sa != sb {
            return sa.cmp(&sb);
        }
        let c = ma.cmp(&mb);
        if sa < 0 {
            c.reverse()
        } else {
            c
        }
    }

    /// `DecimalDataUtils.doubleValue`: a compact value (precision <= 18) is
    /// `(double) unscaled / POW10[scale]`; a wider one `BigDecimal.doubleValue()`, which in
    /// Java 17 takes the same double division when the unscaled value is below 2^52 (and
    /// `(double) unscaled` at scale 0 when it fits a `long`), and otherwise parses its text
    /// (correctly rounded, as Rust's parser is).
    pub fn to_f64(&self) -> f64 {
        let pow = |s: u8| 10f64.powi(s as i32);
        if self.precision <= MAX_COMPACT_PRECISION {
            return self.unscaled as i64 as f64 / pow(self.scale);
        }
        if let Ok(l) = i64::try_from(self.unscaled) {
            if l != i64::MIN {
                if self.scale == 0 {
                    return l as f64;
                }
                if l.unsigned_abs() < 1 << 52 && self.scale < 23 {
                    return l as f64 / pow(self.scale);
                }
            }
        }
        self.to_string().parse().unwrap_or(f64::NAN)
    }

    /// `DecimalDataUtils.castToIntegral`: truncated toward zero, then the low 64 bits
    /// (`BigDecimal.longValue`).
    pub fn to_long(&self) -> i64 {
        let p = 10i128.pow(self.scale as u32);
        (self.unscaled / p) as i64
    }

    pub fn is_zero(&self) -> bool {
        self.unscaled == 0
    }

    /// The unscaled value's minimal big-endian two's-complement bytes
    /// (`BigInteger.toByteArray`, what `DecimalData.toUnscaledBytes` gives).
    pub fn unscaled_bytes(&self) -> Vec<u8> {
        let b = self.unscaled.to_be_bytes();
        let mut i = 0;
        while i < 15 {
            let (x, next) = (b[i], b[i + 1]);
            if (x == 0 && next & 0x80 == 0) || (x == 0xff && next & 0x80 != 0) {
                i += 1;
            } else {
                break;
            }
        }
        b[i..].to_vec()
    }

    /// Reads a literal's text into `DECIMAL(p, s)`, as Flink stores it when the literal is
    /// inserted into such a column: the exact literal (`1.005`, `-12`, `1e2`) is cast with
    /// `fromBigDecimal` (HALF_UP to `s`, NULL when it has too many digits for `p`; a literal
    /// insert checked on Flink 2.3.0: `1.005` into `DECIMAL(10, 2)` is `1.01`, `123456789.5` is
    /// NULL). An exact literal whose unscaled value does not fit a `long` is Calcite's error
    /// (`SqlValidatorImpl.validateLiteral`; on Flink 2.3.0 a 38-digit literal is rejected).
    pub fn parse_literal(text: &str, p: u8, s: u8) -> Result<Option<Decimal>, String> {
        let e = parse_exact(text)?;
        if !text.contains(['e', 'E']) && e.mag.to_u128().is_none_or(|m| m > i64::MAX as u128) {
            return Err(format!("Numeric literal '{text}' out of range"));
        }
        Ok(from_exact(e, p, s))
    }

    /// Reads any decimal text (`BigDecimal(String)`: digits, a point, an exponent) into
    /// `DECIMAL(p, s)` with `fromBigDecimal`'s rounding (`None` when it does not fit `p`).
    pub fn parse_value(text: &str, p: u8, s: u8) -> Result<Option<Decimal>, String> {
        Ok(from_exact(parse_exact(text)?, p, s))
    }

    /// The type of a numeric literal without exponent (`1.50` is `DECIMAL(3, 2)`, `0.001` is
    /// `DECIMAL(3, 3)`; Calcite's `SqlLiteral.createExactNumeric`), or Calcite's error when its
    /// unscaled value does not fit a `long` (see [`Decimal::parse_literal`]).
    pub fn literal(text: &str) -> Result<Decimal, String> {
        let e = parse_exact(text)?;
        if e.mag.to_u128().is_none_or(|m| m > i64::MAX as u128) {
            return Err(format!("Numeric literal '{text}' out of range"));
        }
        let scale = e.scale.max(0) as u32;
        let digits = e.mag.digits().max(scale);
        let out = || format!("Numeric literal '{text}' out of range");
        if digits > MAX_PRECISION as u32 || e.scale < 0 {
            return Err(out());
        }
        from_exact(e, digits as u8, scale as u8).ok_or_else(out)
    }
}

/// Parses `[+-]digits[.digits][(e|E)[+-]digits]` exactly.
fn parse_exact(text: &str) -> Result<Exact, String> {
    let bad = || format!("{text:?} is not a DECIMAL number");
    let t = text.trim();
    let (neg, body) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let (mant, exp) = match body.find(['e', 'E']) {
        Some(i) => (&body[..i], Some(&body[i + 1..])),
        None => (body, None),
    };
    let (int, frac) = mant.split_once('.').unwrap_or((mant, ""));
    if int.is_empty() && frac.is_empty()
        || !int.bytes().all(|c| c.is_ascii_digit())
        || !frac.bytes().all(|c| c.is_ascii_digit())
    {
        return Err(bad());
    }
    // Bounded work: a literal longer than this is out of range anyway.
    if int.len() + frac.len() > 400 {
        return Err(format!("Numeric literal '{text}' out of range"));
    }
    let mut mag = Big(Vec::new());
    for c in int.bytes().chain(frac.bytes()) {
        mag.mul_small(10);
        mag.add_small((c - b'0') as u32);
    }
    let mut scale = frac.len() as i32;
    if let Some(x) = exp {
        let e: i32 = x.parse().map_err(|_| bad())?;
        if e.abs() > 400 {
            return Err(format!("Numeric literal '{text}' out of range"));
        }
        scale -= e;
    }
    Ok(Exact { neg, mag, scale })
}

/// `1.50 DECIMAL(10, 2)` (the derived form would pull 128-bit integer formatting into the
/// page's module).
impl fmt::Debug for Decimal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self} DECIMAL({}, {})", self.precision, self.scale)
    }
}

/// The decimal digits of a magnitude (by 9-digit chunks: no 128-bit formatting code).
fn magnitude_digits(m: u128) -> String {
    let mut b = Big::from_u128(m);
    let mut chunks = Vec::new();
    loop {
        let c = b.divmod_small(1_000_000_000);
        chunks.push(c);
        if b.is_zero() {
            break;
        }
    }
    let mut out = String::new();
    for (i, c) in chunks.iter().rev().enumerate() {
        if i == 0 {
            out.push_str(&c.to_string());
        } else {
            out.push_str(&format!("{c:09}"));
        }
    }
    out
}

/// `DecimalData.toString()`: `BigDecimal.toPlainString()`, every digit of the scale kept
/// (`1.50`, `0.0000001000`, `-0.500`).
impl fmt::Display for Decimal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let digits = magnitude_digits(self.unscaled.unsigned_abs());
        let s = self.scale as usize;
        if self.unscaled < 0 {
            f.write_str("-")?;
        }
        if s == 0 {
            return f.write_str(&digits);
        }
        if digits.len() > s {
            let (i, fr) = digits.split_at(digits.len() - s);
            write!(f, "{i}.{fr}")
        } else {
            write!(f, "0.{}{digits}", "0".repeat(s - digits.len()))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(text: &str, p: u8, s: u8) -> Decimal {
        Decimal::parse_value(text, p, s).unwrap().unwrap()
    }

    /// `DecimalData.toString` printed by Flink 2.3.0 (conformance/vectors/DecimalCheck.java).
    #[test]
    fn prints_as_flink() {
        for (text, p, s, out) in [
            ("1.5", 10, 2, "1.50"),
            ("0", 5, 3, "0.000"),
            ("-0.5", 4, 3, "-0.500"),
            ("1", 38, 18, "1.000000000000000000"),
            ("0.0000001", 20, 10, "0.0000001000"),
            (
                "123456789012345678901234567890.12345678",
                38,
                8,
                "123456789012345678901234567890.12345678",
            ),
            ("-1", 19, 0, "-1"),
        ] {
            assert_eq!(d(text, p, s).to_string(), out);
        }
    }

    /// An INSERT of a literal into a `DECIMAL(10, 2)` column, on Flink 2.3.0 (PyFlink, a CSV
    /// sink): HALF_UP to the scale, NULL when the integral part is too long.
    #[test]
    fn literals_round_half_up_and_overflow_to_null() {
        let lit = |t: &str, p, s| Decimal::parse_literal(t, p, s).map(|o| o.map(|x| x.to_string()));
        assert_eq!(lit("1.005", 10, 2), Ok(Some("1.01".into())));
        assert_eq!(lit("1.004", 10, 2), Ok(Some("1.00".into())));
        assert_eq!(lit("-1.005", 10, 2), Ok(Some("-1.01".into())));
        assert_eq!(lit("-1.015", 10, 2), Ok(Some("-1.02".into())));
        assert_eq!(lit("12345678.995", 10, 2), Ok(Some("12345679.00".into())));
        assert_eq!(lit("123456789.5", 10, 2), Ok(None));
        assert_eq!(lit("12345678901", 10, 2), Ok(None));
        assert_eq!(lit("99999999.999", 10, 2), Ok(None));
        assert_eq!(lit("2147483648", 10, 2), Ok(None));
        assert_eq!(lit("1e2", 10, 2), Ok(Some("100.00".into())));
        assert_eq!(lit("0.000001", 10, 2), Ok(Some("0.00".into())));
        assert_eq!(lit("999.5", 3, 0), Ok(None));
        assert_eq!(lit("0.123456", 5, 5), Ok(Some("0.12346".into())));
        assert!(lit("123456789012345678901234567890123456.785", 38, 2).is_err());
        // Calcite: the unscaled value of an exact literal must fit a long.
        assert!(lit("1234567890123456789012345678.0123456789", 38, 10).is_err());
        assert!(lit("999999999.9999999999", 38, 10).is_err());
        assert_eq!(
            lit("123456789.0123456789", 38, 10),
            Ok(Some("123456789.0123456789".into()))
        );
        assert!(lit("1.2.3", 10, 2).is_err());
        assert!(lit("", 10, 2).is_err());
        assert!(lit("abc", 10, 2).is_err());
    }

    #[test]
    fn result_types_follow_logical_type_merging() {
        assert_eq!(addition_type(10, 2, 5, 3), (12, 3));
        assert_eq!(addition_type(38, 2, 38, 2), (38, 2));
        assert_eq!(multiplication_type(32, 2, 32, 2), (38, 4));
        assert_eq!(multiplication_type(10, 2, 10, 0), (21, 2));
        assert_eq!(division_type(10, 2, 10, 0), (21, 13));
        assert_eq!(division_type(38, 2, 38, 2), (38, 6));
        assert_eq!(avg_type(2), (38, 6));
        assert_eq!(avg_type(10), (38, 10));
    }

    #[test]
    fn exact_arithmetic() {
        let a = d("1.50", 10, 2);
        let b = d("2.25", 5, 2);
        assert_eq!(a.add(&b).unwrap().to_string(), "3.75");
        assert_eq!(a.sub(&b).unwrap().to_string(), "-0.75");
        assert_eq!(a.mul(&b).unwrap().to_string(), "3.3750");
        assert_eq!(a.div(&b).unwrap().unwrap().to_string(), "0.66666667");
        assert!(a.div(&d("0", 5, 2)).is_err());
        // 10^37 * 10 overflows DECIMAL(38, 0).
        let big = d("99999999999999999999999999999999999999", 38, 0);
        assert_eq!(big.add(&d("1", 38, 0)), None);
        assert_eq!(big.mul(&d("2", 10, 0)), None);
        assert_eq!(big.neg().add(&big).unwrap().to_string(), "0");
        assert_eq!(a.compare(&d("1.5", 2, 1)), Ordering::Equal);
        assert_eq!(a.neg().compare(&d("-1.49", 3, 2)), Ordering::Less);
        assert_eq!(
            d("7", 10, 0)
                .div(&d("3", 10, 0))
                .unwrap()
                .unwrap()
                .to_string(),
            "2.33333333333"
        );
        assert_eq!(d("-2.5", 10, 1).to_long(), -2);
        assert_eq!(a.to_f64(), 1.5);
    }

    #[test]
    fn column_type_names() {
        use crate::value::ColumnType;
        for (text, want) in [
            ("decimal(10,2)", Some(ColumnType::Decimal(10, 2))),
            ("DECIMAL(10, 2)", Some(ColumnType::Decimal(10, 2))),
            ("Numeric( 5 )", Some(ColumnType::Decimal(5, 0))),
            ("dec", Some(ColumnType::Decimal(10, 0))),
            ("decimal(38,38)", Some(ColumnType::Decimal(38, 38))),
            ("decimal(39,2)", None),
            ("decimal(5,6)", None),
            ("decimal(0)", None),
            ("decimal(1,2,3)", None),
            ("decimalx", None),
        ] {
            assert_eq!(ColumnType::parse(text), want, "{text}");
        }
        assert!(ColumnType::parse_checked("decimal(39,2)").is_err());
        let t = ColumnType::Decimal(10, 2);
        let json = serde_json::to_string(&t).unwrap();
        assert_eq!(json, "\"decimal(10,2)\"");
        assert_eq!(serde_json::from_str::<ColumnType>(&json).unwrap(), t);
        // The document's form only (the rows editor accepts the others).
        assert!(serde_json::from_str::<ColumnType>("\"DECIMAL(10, 2)\"").is_err());
        assert!(serde_json::from_str::<ColumnType>("\"decimal(40,2)\"").is_err());
    }

    #[test]
    fn debug_and_display() {
        let x = d("-12345678901234567890.123", 38, 3);
        assert_eq!(x.to_string(), "-12345678901234567890.123");
        assert_eq!(format!("{x:?}"), "-12345678901234567890.123 DECIMAL(38, 3)");
        assert_eq!(d("0.05", 3, 3).to_string(), "0.050");
        assert_eq!(d("1000000000", 10, 0).to_string(), "1000000000");
    }

    #[test]
    fn unscaled_bytes_are_big_integer_to_byte_array() {
        let b = |t: &str| d(t, 38, 0).unscaled_bytes();
        assert_eq!(b("0"), vec![0]);
        assert_eq!(b("127"), vec![0x7f]);
        assert_eq!(b("128"), vec![0, 0x80]);
        assert_eq!(b("-128"), vec![0x80]);
        assert_eq!(b("-129"), vec![0xff, 0x7f]);
    }
}
