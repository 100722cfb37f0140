//! Take-and-break codes: `d0.d1d2d3...` as CGSuite writes them (its
//! `TBCode` documentation), restricted to games that remove tokens.
//!
//! Digit `d_k` says what removing `k` tokens from a heap may leave: bit 1
//! nothing (the `k` tokens were the whole heap), bit 2 one non-empty heap,
//! bit 4 two, bit 8 three non-empty heaps. `d0` (before the point) splits a
//! heap without removing anything, so only its bits 4 and 8 mean a move.
//! Digits go up to `F` (hexadecimal games). A digit followed by `!` allows
//! its splits only into pairwise unequal heaps, by `?` only into heaps that
//! are not all equal: Grundy's game is `4!.0`.
//!
//! Anything else CGSuite accepts (more than one digit before the point,
//! which adds tokens; `[...]` repeating digits; `(d!a)` partial
//! constraints; `_g` ghost tokens; digits above F) is refused with the
//! place it starts, rather than played as some other game.

use std::fmt;
use std::ops::Range;

/// Splits into heaps that must differ, from a `!` or `?` after a digit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Constraint {
    None,
    /// `!`: the heaps of a split are pairwise unequal.
    Unequal,
    /// `?`: the heaps of a split are not all equal.
    NotAllEqual,
}

/// One digit: which results are allowed, and the constraint on splits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Digit {
    /// Bit 1 << h: the removal may leave exactly h non-empty heaps (h <= 3).
    pub bits: u8,
    pub constraint: Constraint,
}

impl Digit {
    pub const ZERO: Digit = Digit {
        bits: 0,
        constraint: Constraint::None,
    };

    pub fn leaves(self, heaps: u32) -> bool {
        self.bits & (1 << heaps) != 0
    }

    /// The digit as the rules language's prelude takes it: the bits, plus
    /// 16 for `!` and 32 for `?`.
    pub fn packed(self) -> i64 {
        self.bits as i64
            + match self.constraint {
                Constraint::None => 0,
                Constraint::Unequal => 16,
                Constraint::NotAllEqual => 32,
            }
    }

    pub fn from_packed(p: i64) -> Option<Digit> {
        if !(0..64).contains(&p) || p & 48 == 48 {
            return None;
        }
        let constraint = match p & 48 {
            16 => Constraint::Unequal,
            32 => Constraint::NotAllEqual,
            _ => Constraint::None,
        };
        Some(Digit {
            bits: (p & 15) as u8,
            constraint,
        })
    }
}

/// A parsed code; `digits[k]` is `d_k` (`digits[0]` the digit before the point).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Code {
    pub digits: Vec<Digit>,
}

/// Why a text is not a code, with the byte range of the culprit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CodeError {
    pub at: Range<usize>,
    pub message: String,
    pub help: &'static str,
}

/// The longest code accepted: a move never removes more tokens.
pub const MAX_DIGITS: usize = 4096;

const HELP: &str = "a code is d0.d1d2... with digits 0-9 and A-F, each optionally followed by `!` (unequal heaps) or `?` (heaps not all equal), e.g. \"0.137\", \"4.4\", \"4!.0\", \"0.F\"";

impl Code {
    pub fn parse(text: &str) -> Result<Code, CodeError> {
        let err = |at: Range<usize>, message: String, help: &'static str| {
            Err(CodeError { at, message, help })
        };
        let mut digits: Vec<Digit> = Vec::new();
        let mut before_point = 0usize;
        let mut point: Option<usize> = None;
        let mut chars = text.char_indices().peekable();
        while let Some((i, c)) = chars.next() {
            let end = i + c.len_utf8();
            match c {
                '.' => {
                    if point.is_some() {
                        return err(i..end, "a second point in the code".into(), HELP);
                    }
                    point = Some(i);
                    if digits.is_empty() {
                        digits.push(Digit::ZERO);
                    }
                }
                '!' | '?' => {
                    return err(
                        i..end,
                        format!("`{c}` must follow a digit"),
                        HELP,
                    )
                }
                '[' | ']' | '(' | ')' | '_' | '&' | '#' | ';' => {
                    return err(
                        i..end,
                        format!("`{c}` (CGSuite's repeating digits, partial constraints or ghost tokens) is not supported"),
                        "write the code with plain digits, each optionally followed by `!` or `?`",
                    )
                }
                _ => {
                    let Some(d) = c.to_digit(36) else {
                        return err(i..end, format!("`{c}` is not a code digit"), HELP);
                    };
                    if d > 15 {
                        return err(
                            i..end,
                            format!("digit `{c}` ({d}) splits into more than three heaps, which is not supported"),
                            "digits go up to F: bit 8 is a split into three heaps",
                        );
                    }
                    let mut constraint = Constraint::None;
                    let mut dend = end;
                    if let Some(&(j, m)) = chars.peek() {
                        if m == '!' || m == '?' {
                            chars.next();
                            dend = j + 1;
                            constraint = if m == '!' {
                                Constraint::Unequal
                            } else {
                                Constraint::NotAllEqual
                            };
                            if d & 12 == 0 {
                                return err(
                                    i..dend,
                                    format!("`{m}` constrains splits, but digit `{c}` has none"),
                                    "`!` and `?` only make sense after a digit with bit 4 or 8 (a split)",
                                );
                            }
                        }
                    }
                    if point.is_none() {
                        before_point += 1;
                        if before_point > 1 {
                            return err(
                                i..dend,
                                "more than one digit before the point (adding tokens) is not supported".into(),
                                "the digit before the point splits a heap without removing tokens: 4.4 is Kayles shifted by one",
                            );
                        }
                        if d & 3 != 0 {
                            return err(
                                i..dend,
                                format!("digit `{c}` before the point has bit 1 or 2, which would remove nothing and leave the heap as it is"),
                                "before the point only 0, 4, 8 and C (splits) are moves",
                            );
                        }
                    }
                    digits.push(Digit {
                        bits: d as u8,
                        constraint,
                    });
                    if digits.len() > MAX_DIGITS + 1 {
                        return err(i..end, format!("the code is longer than {MAX_DIGITS} digits"), HELP);
                    }
                }
            }
        }
        if point.is_none() {
            return err(
                0..text.len(),
                "a code needs a point, as in \"0.137\"".into(),
                HELP,
            );
        }
        while digits.len() > 1 && digits.last() == Some(&Digit::ZERO) {
            digits.pop();
        }
        Ok(Code { digits })
    }

    /// The code from the prelude's packed digits (see [`Digit::packed`]).
    pub fn from_packed(packed: &[i64]) -> Option<Code> {
        let digits = packed
            .iter()
            .map(|&p| Digit::from_packed(p))
            .collect::<Option<Vec<_>>>()?;
        if digits.is_empty() || digits[0].bits & 3 != 0 {
            return None;
        }
        Some(Code { digits })
    }

    pub fn packed(&self) -> Vec<i64> {
        self.digits.iter().map(|d| d.packed()).collect()
    }

    /// The most tokens a move removes (the index of the last digit).
    pub fn max_removed(&self) -> usize {
        self.digits.len() - 1
    }

    /// The most heaps a move leaves.
    pub fn max_heaps(&self) -> u32 {
        let bits = self.digits.iter().fold(0, |a, d| a | d.bits);
        if bits & 8 != 0 {
            3
        } else if bits & 4 != 0 {
            2
        } else {
            1
        }
    }

    /// Whether a split is constrained (`!` or `?`) anywhere.
    pub fn constrained(&self) -> bool {
        self.digits.iter().any(|d| d.constraint != Constraint::None)
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (k, d) in self.digits.iter().enumerate() {
            if k == 1 {
                f.write_str(".")?;
            }
            write!(f, "{:X}", d.bits)?;
            match d.constraint {
                Constraint::None => {}
                Constraint::Unequal => f.write_str("!")?,
                Constraint::NotAllEqual => f.write_str("?")?,
            }
        }
        if self.digits.len() == 1 {
            f.write_str(".")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_whole_notation() {
        let k = Code::parse("4.4").unwrap();
        assert_eq!(k.digits.iter().map(|d| d.bits).collect::<Vec<_>>(), [4, 4]);
        let g = Code::parse("4!.0").unwrap();
        assert_eq!(g.digits.len(), 1);
        assert_eq!(g.digits[0].constraint, Constraint::Unequal);
        assert_eq!(g.to_string(), "4!.");
        assert_eq!(
            Code::parse("4?.").unwrap().digits[0].constraint,
            Constraint::NotAllEqual
        );
        let h = Code::parse("0.f7").unwrap();
        assert_eq!(h.max_heaps(), 3);
        assert_eq!(h.to_string(), "0.F7");
        assert_eq!(
            Code::parse(".137").unwrap(),
            Code::parse("0.13700").unwrap()
        );
        assert_eq!(Code::parse("0.137").unwrap().max_removed(), 3);
    }

    #[test]
    fn refuses_what_it_cannot_play_with_the_place() {
        for (text, at) in [
            ("0.1x7", 3..4),
            ("0.G", 2..3),
            ("44.0", 1..2),
            ("1.3", 0..1),
            ("0.3!", 2..4),
            ("0.[3]", 2..3),
            ("0.1.2", 3..4),
            ("137", 0..1),
            ("0.!", 2..3),
        ] {
            let e = Code::parse(text).unwrap_err();
            assert_eq!(e.at, at, "{text}: {}", e.message);
        }
    }

    #[test]
    fn packed_digits_round_trip() {
        for text in ["0.137", "4!.0", "8?.F", "0.6C?"] {
            let c = Code::parse(text).unwrap();
            assert_eq!(Code::from_packed(&c.packed()), Some(c));
        }
    }
}
