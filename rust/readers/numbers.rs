//! Decimal numbers read straight from bytes, as the readers meet them: runs of ASCII digits
//! eight at a time, and `m / 10^k` correctly rounded to an f64 without `str::parse`. The
//! NDJSON one-pass path and the CSV reader's typed columns share them.

/// Bytes of a word that are not ASCII digits: their high bit set, exactly for the first
/// of them (a carry or borrow only reaches the bytes above it).
#[inline(always)]
pub(crate) fn not_digits(word: u64) -> u64 {
    (word.wrapping_add(0x4646_4646_4646_4646) | word.wrapping_sub(0x3030_3030_3030_3030))
        & 0x8080_8080_8080_8080
}

/// 10^n for n up to 18 (all a fraction of up to 19 digits can need).
pub(crate) const POWERS_OF_TEN: [u64; 19] = {
    let mut powers = [1u64; 19];
    let mut n = 1;
    while n < powers.len() {
        powers[n] = powers[n - 1] * 10;
        n += 1;
    }
    powers
};

/// The same powers as f64s (exact: every power of ten up to 10^22 is).
const EXACT_POWERS_OF_TEN: [f64; 19] = {
    let mut powers = [1f64; 19];
    let mut n = 1;
    while n < powers.len() {
        powers[n] = POWERS_OF_TEN[n] as f64;
        n += 1;
    }
    powers
};

/// For each scale `s` up to 18: `floor(2^(62 + e) / 10^s)` and `e`, the bits of `10^s - 1`
/// (so that the reciprocal is in `[2^62, 2^63)`).
const RECIPROCALS_OF_TEN: [(u64, u32); 19] = {
    let mut table = [(0u64, 0u32); 19];
    let mut s = 0;
    while s < table.len() {
        let d = POWERS_OF_TEN[s];
        let e = 64 - (d - 1).leading_zeros();
        table[s] = (((1u128 << (62 + e)) / d as u128) as u64, e);
        s += 1;
    }
    table
};

/// `mantissa / 10^scale` correctly rounded to an f64 (as `str::parse` rounds it), for a
/// mantissa below 2^64 and `scale <= 18`. Up to 15 digits one float division does it (both
/// operands exact). Above, the mantissa, shifted to have its top bit set, times the
/// reciprocal of `10^scale` (63 bits, rounded down) gives a quotient `q` of 62 or 63 bits (a
/// signed conversion) that is less than 2 below the true one, `t`: if the bits rounding to
/// 53 drops from `q` are not within 3 of half their range, `t` rounds as `q` does (both
/// down, or both up to the same float), and `q` is converted. Otherwise (fewer than 1 in
/// 100, and every tie) the exact division decides. The split at 15 digits, not at 2^53
/// (where the division stops being exact), keeps the branch predictable: files of short
/// floats always take the division, and shortest round-trip floats (16-17 digits) seldom
/// have 15 or fewer, where 2^53 falls in the middle of the 16-digit ones.
#[inline(always)]
pub(crate) fn decimal_fraction(mantissa: u64, scale: usize) -> f64 {
    debug_assert!(scale <= 18);
    if mantissa < POWERS_OF_TEN[15] {
        // up to 15 digits, both exact in an f64: one float division rounds
        return mantissa as f64 / EXACT_POWERS_OF_TEN[scale];
    }
    let (reciprocal, e) = RECIPROCALS_OF_TEN[scale];
    let zeros = mantissa.leading_zeros();
    let q = ((u128::from(mantissa << zeros) * u128::from(reciprocal)) >> 64) as u64;
    // the bits the conversion to 53 drops: 10 of 63, 9 of 62
    let dropped = 9 + (q >> 62) as u32;
    let half = 1u64 << (dropped - 1);
    let low = q & ((half << 1) - 1);
    if half.wrapping_sub(low) <= 3 {
        return exact_decimal_fraction(mantissa, scale);
    }
    // q * 2^(2 - zeros - e); zeros + e <= 63 + 60: a normal f64
    q as i64 as f64 * f64::from_bits(u64::from(1025 - zeros - e) << 52)
}

/// `decimal_fraction` by exact arithmetic: up to 2^53 both the mantissa and the power of ten
/// are exact in an f64 and one float division rounds. Above, the mantissa is shifted left
/// by `shift` bits so that the integer quotient has 63 or 64 bits (one word), and a
/// remainder sets its lowest bit: rounding that to 53 bits rounds the true quotient, as
/// every halfway point between two floats is then an even integer and the lowest bit never
/// moves the quotient past one.
#[cold]
#[inline(never)]
pub(crate) fn exact_decimal_fraction(mantissa: u64, scale: usize) -> f64 {
    if mantissa <= 1 << 53 {
        return mantissa as f64 / EXACT_POWERS_OF_TEN[scale];
    }
    let divisor = POWERS_OF_TEN[scale];
    // 2^(bits - 1) <= divisor < 2^bits and mantissa << zeros has its top bit set, so the
    // quotient is below 2^64 and at least 2^62
    let shift = 63 - divisor.leading_zeros() + mantissa.leading_zeros();
    let scaled = (mantissa as u128) << shift;
    let (quotient, remainder) = divide_wide(scaled, divisor);
    let sticky = u64::from(remainder != 0);
    // shift <= 59 + 10: 2^-shift is a normal f64
    (quotient | sticky) as f64 * f64::from_bits(u64::from(1023 - shift) << 52)
}

/// `n / d` and `n % d` for a quotient known to fit 64 bits: one `div` on x86_64 (the
/// compiler's `u128` division is a call that checks for the wide case first).
#[inline(always)]
fn divide_wide(n: u128, d: u64) -> (u64, u64) {
    debug_assert!(n >> 64 < u128::from(d), "the quotient fits 64 bits");
    #[cfg(target_arch = "x86_64")]
    {
        let (quotient, remainder): (u64, u64);
        // SAFETY: `div` divides rdx:rax by `d`; the high word is below `d` (the caller's
        // contract), so the quotient fits rax and the instruction cannot fault.
        unsafe {
            std::arch::asm!(
                "div {d}",
                d = in(reg) d,
                inout("rax") n as u64 => quotient,
                inout("rdx") (n >> 64) as u64 => remainder,
                options(pure, nomem, nostack),
            );
        }
        (quotient, remainder)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        ((n / u128::from(d)) as u64, (n % u128::from(d)) as u64)
    }
}

/// The number eight digit values (0 to 9, one per byte, the first in the lowest byte) spell.
#[inline(always)]
pub(crate) fn eight_digits(values: u64) -> u64 {
    let pairs = values.wrapping_mul(10).wrapping_add(values >> 8);
    let low = (pairs & 0x0000_00FF_0000_00FF).wrapping_mul(100 + (1_000_000 << 32));
    let high = ((pairs >> 16) & 0x0000_00FF_0000_00FF).wrapping_mul(1 + (10_000 << 32));
    low.wrapping_add(high) >> 32
}

/// The 8 bytes of `b` at `i` as a little-endian word, if `b` has them.
#[inline(always)]
pub(crate) fn word_at(b: &[u8], i: usize) -> Option<u64> {
    let bytes = b.get(i..i + 8)?;
    Some(u64::from_le_bytes(bytes.try_into().expect("8 bytes")))
}

/// The word of `b` at `i`: its 8 bytes, or (near the end) the bytes left, the word's high
/// bytes zero (not digits). `None` past the end. The bytes left are read with two loads that
/// may overlap (the same bytes, so or-ing them is harmless), not copied byte by byte.
#[inline(always)]
fn padded_word_at(b: &[u8], i: usize) -> Option<u64> {
    if let Some(word) = word_at(b, i) {
        return Some(word);
    }
    let rest = b.len().checked_sub(i).filter(|&n| n > 0)?;
    let end = b.len();
    let word = if end >= 8 {
        word_at(b, end - 8).expect("8 bytes") >> (8 * (8 - rest))
    } else if rest >= 4 {
        let low = u32::from_le_bytes(b[i..i + 4].try_into().expect("4 bytes"));
        let high = u32::from_le_bytes(b[end - 4..end].try_into().expect("4 bytes"));
        u64::from(low) | (u64::from(high) << (8 * (rest - 4)))
    } else if rest >= 2 {
        let low = u16::from_le_bytes(b[i..i + 2].try_into().expect("2 bytes"));
        let high = u16::from_le_bytes(b[end - 2..end].try_into().expect("2 bytes"));
        u64::from(low) | (u64::from(high) << (8 * (rest - 2)))
    } else {
        u64::from(b[i])
    };
    Some(word)
}

/// The end of the run of digits of `b` at `start` (maybe empty), and `before` followed by
/// them as a number (wrapped: meaningful for up to 19 digits in all).
#[inline(always)]
pub(crate) fn digits_value(b: &[u8], start: usize, before: u64) -> (usize, u64) {
    let mut i = start;
    let mut magnitude = before;
    // eight digits at a time while they come eight at a time
    while let Some(word) = padded_word_at(b, i) {
        let others = not_digits(word);
        let n = if others == 0 {
            8
        } else {
            (others.trailing_zeros() / 8) as usize
        };
        if n > 0 {
            let values = word.wrapping_sub(0x3030_3030_3030_3030) << (8 * (8 - n));
            magnitude = magnitude
                .wrapping_mul(POWERS_OF_TEN[n])
                .wrapping_add(eight_digits(values));
            i += n;
        }
        if n < 8 {
            break;
        }
    }
    (i, magnitude)
}

/// The end of the run of digits of `b` at `start` (maybe empty), eight at a time, their
/// value not computed.
#[inline(always)]
pub(crate) fn digits_end(b: &[u8], start: usize) -> usize {
    let mut i = start;
    while let Some(word) = padded_word_at(b, i) {
        let others = not_digits(word);
        if others != 0 {
            return i + (others.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    i
}

/// `text` if it is a plain decimal: an optional `-`, digits, and optionally `.` and more
/// digits, with at most 19 digits in all. Its sign, mantissa (the digits as one number) and
/// scale (the digits after the point).
#[inline(always)]
fn plain_decimal(text: &[u8]) -> Option<(bool, u64, usize)> {
    let negative = text.first() == Some(&b'-');
    let first = usize::from(negative);
    let (mut end, mut mantissa) = digits_value(text, first, 0);
    let whole = end - first;
    let mut scale = 0;
    if text.get(end) == Some(&b'.') {
        (end, mantissa) = digits_value(text, end + 1, mantissa);
        scale = end - (first + whole + 1);
        if scale == 0 {
            return None;
        }
    }
    (whole > 0 && end == text.len() && whole + scale <= 19).then_some((negative, mantissa, scale))
}

/// `text` as an i64 if it is `-` or nothing followed by 1 to 18 digits (leading zeros
/// allowed), exactly as `str::parse` reads it; `None` for anything else, which the caller
/// leaves to `str::parse`.
#[inline(always)]
pub(crate) fn plain_int(text: &[u8]) -> Option<i64> {
    match plain_decimal(text)? {
        (negative, mantissa, 0) if text.len() - usize::from(negative) <= 18 => {
            let v = mantissa as i64;
            Some(if negative { -v } else { v })
        }
        _ => None,
    }
}

/// `text` as an f64 if it is a plain decimal of at most 19 digits (`-`, digits, and a `.`
/// with digits after it), correctly rounded, so the same bits `str::parse` gives; `None` for
/// anything else (exponents, `+`, `inf`, more digits), which the caller leaves to
/// `str::parse`.
#[inline(always)]
pub(crate) fn plain_float(text: &[u8]) -> Option<f64> {
    let (negative, mantissa, scale) = plain_decimal(text)?;
    let x = decimal_fraction(mantissa, scale);
    Some(if negative { -x } else { x })
}

/// A float type a field's text converts to ([`java_float`]).
pub(crate) trait FloatText: std::str::FromStr + Copy {
    /// `x` rounded to this type.
    fn from_f64(x: f64) -> Self;
}

impl FloatText for f64 {
    fn from_f64(x: f64) -> Self {
        x
    }
}

impl FloatText for f32 {
    fn from_f64(x: f64) -> Self {
        x as f32
    }
}

/// The float Java's `Double.parseDouble` (or `Float.parseFloat`) reads in `text`, as
/// Spark's CSV reader and its inference read one: characters up to a space trimmed off
/// both ends, a sign, then `NaN` or `Infinity` (that case only), a decimal number with an
/// `f`/`d` suffix or not (`1.`, `.5e1`, `2D`), or a hexadecimal one (`0x1.8p1`); `None`
/// for any other text (`inf`, `nan`: Rust's spellings are not Java's). A decimal is
/// rounded once, from its text, to `F`.
pub(crate) fn java_float<F: FloatText>(text: &str) -> Option<F> {
    let t = text.trim_matches(|c: char| c <= ' ');
    let (negative, body) = match t.as_bytes().first()? {
        b'-' => (true, &t[1..]),
        b'+' => (false, &t[1..]),
        _ => (false, t),
    };
    let signed = |x: f64| F::from_f64(if negative { -x } else { x });
    match body {
        "NaN" => return Some(F::from_f64(f64::NAN)),
        "Infinity" => return Some(signed(f64::INFINITY)),
        _ => {}
    }
    let suffix = usize::from(body.ends_with(['f', 'F', 'd', 'D']));
    let body = &body[..body.len() - suffix];
    if let Some(hex) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        return hex_float(hex).map(signed);
    }
    let decimal = |b: u8| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'+' | b'-');
    let starts = body
        .bytes()
        .next()
        .is_some_and(|b| b.is_ascii_digit() || b == b'.');
    if !starts || !body.bytes().all(decimal) {
        return None;
    }
    // Rust reads the decimal texts Java reads, sign and all
    t[..t.len() - suffix].parse().ok()
}

/// The value of hexadecimal float `text` after its `0x`: hex digits with a `.` or not, then
/// `p`, a power of two (Java's `0x1.8p1`, 3.0), rounded to nearest from the digits.
fn hex_float(text: &str) -> Option<f64> {
    let (digits, power) = text.split_once(['p', 'P'])?;
    let mut exponent: i64 = power.parse().ok()?;
    let (whole, fraction) = digits.split_once('.').unwrap_or((digits, ""));
    if whole.is_empty() && fraction.is_empty() {
        return None;
    }
    // the first 57+ bits kept, the rest only as a sticky bit below double precision
    let (mut mantissa, mut sticky) = (0u64, false);
    for (c, in_fraction) in whole
        .chars()
        .map(|c| (c, false))
        .chain(fraction.chars().map(|c| (c, true)))
    {
        let d = u64::from(c.to_digit(16)?);
        if mantissa < 1 << 56 {
            mantissa = mantissa * 16 + d;
            exponent -= i64::from(in_fraction) * 4;
        } else {
            sticky |= d != 0;
            exponent += i64::from(!in_fraction) * 4;
        }
    }
    let x = (mantissa | u64::from(sticky)) as f64;
    let e = i32::try_from(exponent.clamp(-4000, 4000)).ok()?;
    Some(x * 2f64.powi(e / 2) * 2f64.powi(e - e / 2))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::{
        decimal_fraction, digits_end, digits_value, eight_digits, exact_decimal_fraction,
        java_float, not_digits, plain_float, plain_int, POWERS_OF_TEN,
    };

    /// Java's float texts, as Spark 4.3's CSV reader read each into a double column (the
    /// session's probe): its spellings of `NaN` and `Infinity` only, `f`/`d` suffixes,
    /// hexadecimal floats; not Rust's `inf` and `nan`. (Spark's own `Inf` and `-Inf` are
    /// `Conventions::float_of_field`'s.)
    #[test]
    fn java_floats_are_the_texts_java_reads() {
        let inf = f64::INFINITY;
        let read = [
            ("NaN", f64::NAN),
            ("+NaN", f64::NAN),
            ("-NaN", f64::NAN),
            (" NaN", f64::NAN),
            ("NaN\t", f64::NAN),
            ("Infinity", inf),
            ("+Infinity", inf),
            ("-Infinity", -inf),
            ("1.5d", 1.5),
            ("1e5f", 1e5),
            ("-2F", -2.0),
            ("1.5e3D", 1500.0),
            (" 1.5 ", 1.5),
            ("1.", 1.0),
            (".5", 0.5),
            ("+.5e1", 5.0),
            ("1.e2", 100.0),
            ("0x1p3", 8.0),
            ("0x1.8p1", 3.0),
            ("-0x10p0d", -16.0),
            ("0x.8P-1", 0.25),
            ("0x1.0000000000001p0", 1.0 + f64::EPSILON),
            ("0x1p-1074", f64::from_bits(1)),
        ];
        for (text, want) in read {
            let got = java_float::<f64>(text).unwrap_or_else(|| panic!("{text:?}"));
            assert!(
                got == want || got.is_nan() && want.is_nan(),
                "{text:?}: {got}"
            );
        }
        assert_eq!(java_float::<f32>("0.1f"), Some(0.1f32));
        assert_eq!(java_float::<f32>("0x1p-149"), Some(f32::from_bits(1)));
        let refused = [
            "",
            " ",
            "NAN",
            "Nan",
            "nan",
            "+Inf",
            "Inf",
            "inf",
            "INF",
            "-inf",
            "infinity",
            "INFINITY",
            "NaNd",
            "Infinityf",
            "1.5 d",
            "1.5dd",
            "0X10",
            "0x",
            "0xp1",
            "0x1p",
            "0x1g0p1",
            "1e",
            "1e+",
            "d",
            ".d",
            ".",
            "1_0",
            "--1",
            "+-1",
            "1,5",
            "e5",
        ];
        for text in refused {
            assert_eq!(java_float::<f64>(text), None, "{text:?}");
        }
    }

    /// A xorshift64 generator from `seed` (not 0): the tests' random inputs, the same on
    /// every run.
    pub(crate) fn xorshift(mut seed: u64) -> impl FnMut() -> u64 {
        move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        }
    }

    /// Random mantissas of every length up to 19 digits over every scale up to 18, the
    /// largest mantissas, and exact ties between two floats (odd integers above 2^54, scaled
    /// by powers of ten): the float made is the one `str::parse` makes.
    #[test]
    fn decimal_fractions_round_as_parse_does() {
        let mut next = xorshift(0x9e37_79b9_7f4a_7c15);
        let check = |mantissa: u64, scale: usize| {
            let text = format!("{mantissa}e-{scale}");
            let expected: f64 = text.parse().unwrap();
            for (path, x) in [
                ("reciprocal", decimal_fraction(mantissa, scale)),
                ("exact", exact_decimal_fraction(mantissa, scale)),
            ] {
                assert_eq!(x.to_bits(), expected.to_bits(), "{text} ({path})");
            }
        };
        for _ in 0..200_000 {
            let digits = 1 + (next() % 19) as u32;
            let mantissa = next() % 10u64.pow(digits);
            check(mantissa, (next() % 19) as usize);
        }
        for _ in 0..20_000 {
            // halfway between two floats (55 bits, odd), and a hair off it either way
            let odd = (1u64 << 54) + 2 * (next() % (1 << 20)) + 1;
            for scale in 0..=2 {
                if let Some(mantissa) = odd.checked_mul(10u64.pow(scale)) {
                    for near in [mantissa - 1, mantissa, mantissa + 1] {
                        check(near, scale as usize);
                    }
                }
            }
            check(u64::MAX - next() % 1000, (next() % 19) as usize);
        }
    }

    /// Words of digits and other bytes at every position: the first flagged byte is the
    /// first that is not a digit, and the digits before it read as their number.
    #[test]
    fn words_of_digits_read_as_their_numbers() {
        let fillers = [
            b'0', b'9', b'5', b'.', b'e', b'/', b':', b' ', b'"', 0, 0x80, 0xff,
        ];
        let mut next = xorshift(0x9e37_79b9_7f4a_7c15);
        for _ in 0..20_000 {
            let seed = next();
            let bytes: Vec<u8> = (0..8)
                .map(|k| fillers[((seed >> (k * 5)) % fillers.len() as u64) as usize])
                .collect();
            let word = u64::from_le_bytes(bytes.clone().try_into().unwrap());
            let n = bytes.iter().take_while(|b| b.is_ascii_digit()).count();
            let others = not_digits(word);
            let flagged = if others == 0 {
                8
            } else {
                (others.trailing_zeros() / 8) as usize
            };
            assert_eq!(flagged, n, "{bytes:?}");
            if n > 0 {
                let values = word.wrapping_sub(0x3030_3030_3030_3030) << (8 * (8 - n));
                let text = std::str::from_utf8(&bytes[..n]).unwrap();
                assert_eq!(eight_digits(values), text.parse::<u64>().unwrap(), "{text}");
                assert_eq!(POWERS_OF_TEN[n], 10u64.pow(n as u32));
            }
        }
    }

    /// Random texts of digits, signs, points and other bytes: a text read as plain is read
    /// as `str::parse` reads it (the same bits), and every text of the plain form within
    /// the digit limits is read as plain (so the callers' fallback is for the rest only).
    #[test]
    fn plain_numbers_read_as_parse_does() {
        let alphabet = b"0123456789000999.-+e ";
        let mut next = xorshift(0x6a09_e667_f3bc_c908);
        for _ in 0..200_000 {
            let r = next();
            let len = (r % 23) as usize;
            let text: Vec<u8> = (0..len)
                .map(|k| {
                    let pick = next() >> (k % 8);
                    // mostly digits: the plain forms are the interesting ones
                    if pick.is_multiple_of(4) {
                        alphabet[(pick >> 8) as usize % alphabet.len()]
                    } else {
                        b'0' + (pick >> 16) as u8 % 10
                    }
                })
                .collect();
            let mut text = String::from_utf8(text).unwrap();
            if r >> 40 & 1 == 1 {
                text.insert(0, '-');
            }
            let digits = text.bytes().filter(u8::is_ascii_digit).count();
            let body = text.strip_prefix('-').unwrap_or(&text);
            let plain = !body.is_empty()
                && body.split('.').count() <= 2
                && body
                    .split('.')
                    .all(|p| !p.is_empty() && p.bytes().all(|c| c.is_ascii_digit()));
            let float = plain_float(text.as_bytes());
            match text.parse::<f64>() {
                Ok(want) if plain && digits <= 19 => {
                    assert_eq!(float.map(f64::to_bits), Some(want.to_bits()), "{text}");
                }
                _ => assert_eq!(float, None, "{text}"),
            }
            let int = plain_int(text.as_bytes());
            match text.parse::<i64>() {
                Ok(want) if plain && digits <= 18 => assert_eq!(int, Some(want), "{text}"),
                _ => assert_eq!(int, None, "{text}"),
            }
        }
        assert_eq!(
            plain_float(b"-0").map(f64::to_bits),
            Some((-0f64).to_bits())
        );
        assert_eq!(plain_int(b"-000123"), Some(-123));
    }

    /// Slices of every length up to 24, digits and other bytes, from every start: the runs
    /// of digits end where a byte-by-byte scan ends them and read as its number, near the
    /// slice's end too (where the last bytes are loaded padded; the bytes past the slice,
    /// digits here, must not count).
    #[test]
    fn digit_runs_end_where_bytewise_scans_do() {
        let mut next = xorshift(0xbb67_ae85_84ca_a73b);
        for _ in 0..20_000 {
            let len = (next() % 25) as usize;
            let backing: Vec<u8> = (0..len + 8)
                .map(|k| {
                    let r = next();
                    if k >= len || !r.is_multiple_of(6) {
                        b'0' + (r >> 8) as u8 % 10
                    } else {
                        [b'.', b'-', b'e', 0, b'/', b':', 0xff][(r >> 8) as usize % 7]
                    }
                })
                .collect();
            let b = &backing[..len];
            for start in 0..=len {
                let end = start + b[start..].iter().take_while(|c| c.is_ascii_digit()).count();
                let want = b[start..end].iter().fold(7u64, |n, &c| {
                    n.wrapping_mul(10).wrapping_add(u64::from(c - b'0'))
                });
                assert_eq!(digits_end(b, start), end, "{b:?} from {start}");
                assert_eq!(digits_value(b, start, 7), (end, want), "{b:?} from {start}");
            }
        }
    }
}
