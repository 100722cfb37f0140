//! Nim multiplication (`src/eval/nim_mul.rs`) against its definition
//! and the field laws.

use grundy::eval::nim_mul::nim_mul;

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
