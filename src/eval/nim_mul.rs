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
