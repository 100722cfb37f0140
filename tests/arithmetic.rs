//! Integer arithmetic of the language (`eval/ops.rs`: floor division and
//! modulo, constant divisors, overflow and type errors) and nim
//! multiplication (`eval/nim_mul.rs`), against their definitions.

use grundy::diag::{ErrorKind, Fallible};
use grundy::eval::nim_mul::nim_mul;
use grundy::eval::ops::{binary, int_op, ConstDivisor};
use grundy::eval::value::Value;
use grundy::syntax::ast::BinaryOp;
use grundy::syntax::Span;

#[test]
fn constant_divisors_agree_with_floor_division() {
    let values = [
        i64::MIN,
        i64::MIN + 1,
        -1_000_000_007,
        -10,
        -7,
        -6,
        -1,
        0,
        1,
        5,
        6,
        7,
        999_999_999_999,
        i64::MAX - 1,
        i64::MAX,
    ];
    for d in [1, 2, 3, 7, 10, 64, 1_000_003, i64::MAX] {
        let c = ConstDivisor::new(d).expect("positive");
        for &a in &values {
            assert_eq!(
                Some(c.floor_div(a)),
                int_op(BinaryOp::Div, a, d),
                "{a} / {d}"
            );
            assert_eq!(
                Some(c.floor_mod(a)),
                int_op(BinaryOp::Mod, a, d),
                "{a} % {d}"
            );
        }
    }
    assert!(ConstDivisor::new(0).is_none() && ConstDivisor::new(-3).is_none());
}

fn int(op: BinaryOp, a: i64, b: i64) -> Fallible<Value> {
    binary(op, &Value::Int(a), &Value::Int(b), Span::default())
}

#[test]
fn division_floors_and_modulo_is_never_negative() {
    assert_eq!(int(BinaryOp::Div, -7, 2).unwrap(), Value::Int(-4));
    assert_eq!(int(BinaryOp::Div, 7, -2).unwrap(), Value::Int(-4));
    assert_eq!(int(BinaryOp::Div, -7, -2).unwrap(), Value::Int(3));
    assert_eq!(int(BinaryOp::Mod, -7, 3).unwrap(), Value::Int(2));
    assert_eq!(int(BinaryOp::Mod, 7, -3).unwrap(), Value::Int(1));
}

#[test]
fn overflow_and_zero_division_are_errors() {
    let e = int(BinaryOp::Mul, i64::MAX, 2).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Overflow);
    let e = int(BinaryOp::Div, 1, 0).unwrap_err();
    assert_eq!(e.kind, ErrorKind::DivisionByZero);
    assert_eq!(int(BinaryOp::Shl, 1, 62).unwrap(), Value::Int(1 << 62));
    assert!(int(BinaryOp::Shl, 1, 63).is_err());
}

#[test]
fn adding_a_list_to_an_integer_is_a_type_error() {
    let e = binary(
        BinaryOp::Add,
        &Value::Int(1),
        &Value::list(vec![]),
        Span::default(),
    );
    assert_eq!(e.unwrap_err().kind, ErrorKind::Type);
}

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
fn nim_multiplication_agrees_with_the_definition() {
    let t = by_definition(64);
    for a in 0..64 {
        for b in 0..64 {
            assert_eq!(nim_mul(a, b), t[a as usize][b as usize], "{a} ⊗ {b}");
        }
    }
}

#[test]
fn nim_products_known_and_field_laws() {
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
