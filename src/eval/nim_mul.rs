//! Nim multiplication of natural numbers: the product of Conway's field
//! On_2 (Winning Ways, ch. 14; Conway, On Numbers and Games, ch. 6), under
//! which the numbers below 2^(2^k) form a field with nim addition (xor).
//! By the product theorem for coin-turning games (Winning Ways, ch. 14) a
//! product game's values are the nim-products of its factors' values:
//! the coin at (x, y) of Turning Corners has the value x ⊗ y.

/// `a ⊗ b`. Numbers below 2^64 form a field, so the product is below 2^64.
pub fn nim_mul(a: u64, b: u64) -> u64 {
    mul(a, b, 32)
}

/// `a ⊗ b` for `a, b < 2^(2 * half)`, `half` a power of two (or 0).
///
/// With `X = 2^half` (a Fermat 2-power, so `x ⊗ X = x * X` for `x < X`
/// and `X ⊗ X = X ⊕ X/2`), `a = a1 X ⊕ a0` and `b = b1 X ⊕ b0`:
/// `a ⊗ b = (a1b1 ⊕ a1b0 ⊕ a0b1) X ⊕ a0b0 ⊕ a1b1 ⊗ X/2`, with the middle
/// sum `(a0 ⊕ a1)(b0 ⊕ b1) ⊕ a0b0 ⊕ a1b1` (three products, not four).
fn mul(a: u64, b: u64, half: u32) -> u64 {
    if a < 2 || b < 2 {
        return a * b;
    }
    let mut half = half;
    // The smallest field holding both: a, b < 2^(2 * half), not 2^half.
    while half > 1 && (a | b) >> half == 0 {
        half /= 2;
    }
    let low = (1u64 << half) - 1;
    let (a1, a0, b1, b0) = (a >> half, a & low, b >> half, b & low);
    let next = half / 2;
    let high_high = mul(a1, b1, next);
    let low_low = mul(a0, b0, next);
    let cross = mul(a0 ^ a1, b0 ^ b1, next);
    ((cross ^ low_low) << half) ^ low_low ^ mul(high_high, 1 << (half - 1), next)
}

#[cfg(test)]
mod tests {
    use super::nim_mul;

    /// The definition: a ⊗ b = mex { a'⊗b ⊕ a⊗b' ⊕ a'⊗b' : a' < a, b' < b }.
    fn by_definition(n: usize) -> Vec<Vec<u64>> {
        let mut t = vec![vec![0u64; n]; n];
        for a in 0..n {
            for b in 0..n {
                let mut seen = vec![false; 4 * n];
                for a2 in 0..a {
                    for b2 in 0..b {
                        seen[(t[a2][b] ^ t[a][b2] ^ t[a2][b2]) as usize] = true;
                    }
                }
                t[a][b] = seen.iter().position(|s| !s).expect("a gap") as u64;
            }
        }
        t
    }

    #[test]
    fn agrees_with_the_definition() {
        let t = by_definition(64);
        for a in 0..64 {
            for b in 0..64 {
                assert_eq!(nim_mul(a, b), t[a as usize][b as usize], "{a} ⊗ {b}");
            }
        }
    }

    #[test]
    fn known_products_and_field_laws() {
        // Winning Ways' table: 2 ⊗ 2 = 3; a Fermat 2-power F has F ⊗ F = 3F/2.
        assert_eq!(nim_mul(2, 2), 3);
        assert_eq!(nim_mul(16, 16), 24);
        assert_eq!(nim_mul(256, 256), 384);
        assert_eq!(nim_mul(1 << 32, 1 << 32), 3 << 31);
        // Distributive over xor, associative, commutative, with inverses in
        // the field of order 2^64 (x^(2^64 - 1) = 1, checked as x ⊗ x^(2^64 - 2)).
        let xs = [
            3u64,
            77,
            1 << 40,
            0xdead_beef_1234_5678,
            u64::MAX,
            0x8000_0000_0000_0001,
        ];
        for &x in &xs {
            for &y in &xs {
                assert_eq!(nim_mul(x, y), nim_mul(y, x));
                for &z in &xs {
                    assert_eq!(nim_mul(x, y ^ z), nim_mul(x, y) ^ nim_mul(x, z));
                    assert_eq!(nim_mul(nim_mul(x, y), z), nim_mul(x, nim_mul(y, z)));
                }
            }
            let (mut power, mut base, mut e) = (1u64, x, u64::MAX - 1);
            while e > 0 {
                if e & 1 == 1 {
                    power = nim_mul(power, base);
                }
                base = nim_mul(base, base);
                e >>= 1;
            }
            assert_eq!(nim_mul(x, power), 1, "{x} has an inverse");
        }
    }
}
