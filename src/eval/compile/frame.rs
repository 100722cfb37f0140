//! The frame of integers kernels and integer `where` code read: a
//! position's static arguments and arguments as integers (`KeyFrame`).

use super::int_code::{Locals, Seq};
use crate::eval::memo::{Key, MaskCache, Tag, MAX_COORDS};
use crate::eval::value::Value;
use crate::ir::ir::*;

/// The most slots (static arguments, then arguments) of a kernel's frame.
pub(crate) const KERNEL_FRAME: usize = 16;

/// The frame of integers of a position: its static arguments, then its
/// arguments (`coords`), and the number of slots they fill; `None` if a
/// static argument is not an integer or they do not fit.
pub(crate) fn int_frame(statics: &[Value], coords: &[i64]) -> Option<([i64; KERNEL_FRAME], usize)> {
    let mut frame = [0i64; KERNEL_FRAME];
    let n = statics.len() + coords.len();
    if n > KERNEL_FRAME {
        return None;
    }
    for (x, s) in frame.iter_mut().zip(statics) {
        match s {
            Value::Int(v) => *x = *v,
            _ => return None,
        }
    }
    frame[statics.len()..n].copy_from_slice(coords);
    Some((frame, n))
}

/// A position's static arguments and arguments as integers, for integer
/// code (`where` clauses) and for the moves of kernels over lists and sets
/// (`KeyLoopMove`): each slot holds an integer, a set of integers 0..63 as
/// its bit mask (`Tag::Bits`), or a list, tuple or set of integers (a run
/// of the key's coordinates, read through `Locals::items`). Bindings are
/// written into their slots as integers (`set_int`).
#[derive(Clone)]
pub(crate) struct KeyFrame {
    ints: [i64; KERNEL_FRAME],
    kinds: [SlotKind; KERNEL_FRAME],
    items: [i64; MAX_COORDS],
}

/// What one slot of a `KeyFrame` holds.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum SlotKind {
    /// Nothing integer code may read.
    Unset,
    Int,
    /// A set of integers 0..63: its bit mask is the slot's integer.
    Bits,
    /// A sequence: its kind, where its items start and how many.
    Items(Seq, u8, u8),
}

impl KeyFrame {
    /// Puts a position in an empty frame; false if a static argument is
    /// not an integer, an argument is not an integer, a bit set or a
    /// sequence of integers, or they do not fit.
    pub(crate) fn load(&mut self, statics: &[Value], key: &Key) -> bool {
        let n_slots = statics.len() + key.tags().count();
        if key.generic.is_some() || n_slots > KERNEL_FRAME {
            return false;
        }
        for (i, s) in statics.iter().enumerate() {
            let Value::Int(v) = s else {
                return false;
            };
            self.set_int(i as Slot, *v);
        }
        let coords = key.coords();
        let (mut at, mut n_items) = (0, 0);
        for (j, tag) in key.tags().enumerate() {
            let slot = statics.len() + j;
            let (len, seq) = match tag {
                Tag::Int => (1, None),
                Tag::Bits => (1, None),
                Tag::List(n) => (n as usize, Some(Seq::List)),
                Tag::Tuple(n) => (n as usize, Some(Seq::Tuple)),
                Tag::Set(n) => (n as usize, Some(Seq::Set)),
                Tag::Bool => return false,
            };
            match seq {
                None => {
                    self.ints[slot] = coords[at];
                    self.kinds[slot] = if tag == Tag::Bits {
                        SlotKind::Bits
                    } else {
                        SlotKind::Int
                    };
                }
                Some(seq) => {
                    self.items[n_items..n_items + len].copy_from_slice(&coords[at..at + len]);
                    self.kinds[slot] = SlotKind::Items(seq, n_items as u8, len as u8);
                    n_items += len;
                }
            }
            at += len;
        }
        true
    }

    /// `load` of a position of the shape last loaded into this frame,
    /// whose static arguments fill the slots below `first`: only the
    /// arguments' coordinates are written, their slots' kinds kept.
    #[inline]
    pub(crate) fn reload(&mut self, first: usize, n_args: usize, coords: &[i64]) {
        let mut at = 0;
        for slot in first..first + n_args {
            match self.kinds[slot] {
                SlotKind::Items(_, start, len) => {
                    let (start, len) = (start as usize, len as usize);
                    self.items[start..start + len].copy_from_slice(&coords[at..at + len]);
                    at += len;
                }
                _ => {
                    self.ints[slot] = coords[at];
                    at += 1;
                }
            }
        }
    }

    /// Puts the value `v` in `slot` as `load` puts an argument of its
    /// kind (an integer; a set of integers 0..63 as its mask; a sequence
    /// of integers as items, from `items` on, which it advances); false
    /// if it is none of these or does not fit. A set's mask is read
    /// through `masks` (the options of a position ask for the same set).
    pub(crate) fn put_value(
        &mut self,
        slot: Slot,
        v: &Value,
        items: &mut usize,
        masks: &MaskCache,
    ) -> bool {
        let s = slot as usize;
        let (seq, xs) = match v {
            _ if s >= KERNEL_FRAME => return false,
            Value::Int(n) => {
                self.set_int(slot, *n);
                return true;
            }
            Value::Set(xs) => match masks.mask(xs) {
                Some(mask) => {
                    (self.ints[s], self.kinds[s]) = (mask as i64, SlotKind::Bits);
                    return true;
                }
                None => (Seq::Set, xs),
            },
            Value::List(xs) => (Seq::List, xs),
            Value::Tuple(xs) => (Seq::Tuple, xs),
            _ => return false,
        };
        let Some(room) = self.items.get_mut(*items..*items + xs.len()) else {
            return false;
        };
        for (c, x) in room.iter_mut().zip(xs.iter()) {
            let Value::Int(n) = x else {
                return false;
            };
            *c = *n;
        }
        self.kinds[s] = SlotKind::Items(seq, *items as u8, xs.len() as u8);
        *items += xs.len();
        true
    }

    /// A frame with nothing in it (bindings are set with `set_int`).
    pub(crate) fn empty() -> KeyFrame {
        KeyFrame {
            ints: [0; KERNEL_FRAME],
            kinds: [SlotKind::Unset; KERNEL_FRAME],
            items: [0; MAX_COORDS],
        }
    }

    /// Sets item `i` of the sequences loaded (a sweep moving one).
    #[inline]
    pub(crate) fn set_item(&mut self, i: usize, v: i64) {
        self.items[i] = v;
    }

    /// Binds `slot` to the integer `v`.
    #[inline]
    pub(crate) fn set_int(&mut self, slot: Slot, v: i64) {
        self.ints[slot as usize] = v;
        self.kinds[slot as usize] = SlotKind::Int;
    }

    /// What `slot` holds (`Unset` past the frame).
    #[inline]
    pub(crate) fn kind(&self, slot: Slot) -> SlotKind {
        self.kinds
            .get(slot as usize)
            .copied()
            .unwrap_or(SlotKind::Unset)
    }
}

impl Locals for KeyFrame {
    #[inline]
    fn int(&self, slot: Slot) -> Option<i64> {
        match self.kinds.get(slot as usize)? {
            SlotKind::Int => Some(self.ints[slot as usize]),
            _ => None,
        }
    }

    fn value(&self, _slot: Slot) -> Option<&Value> {
        None
    }

    #[inline]
    fn items(&self, slot: Slot) -> Option<(Seq, &[i64])> {
        match *self.kinds.get(slot as usize)? {
            SlotKind::Items(seq, at, len) => {
                Some((seq, &self.items[at as usize..][..len as usize]))
            }
            _ => None,
        }
    }

    #[inline]
    fn bits(&self, slot: Slot) -> Option<u64> {
        match self.kinds.get(slot as usize)? {
            SlotKind::Bits => Some(self.ints[slot as usize] as u64),
            _ => None,
        }
    }
}
