//! Zeroed arrays that grow in place: a dense window's bytes and codes.
//!
//! A window whose outermost coordinate grows keeps every index (the
//! strides are those of the inner coordinates), so its arrays only need
//! to be longer. A `Vec` would allocate the longer array, copy, and hold
//! both at once (the peak of a growing table twice its size), and its
//! `resize` writes the zeros of the new part, touching pages that no
//! position may ever reach. Large arrays are mapped from the system
//! instead (Linux): the mapping is extended by `mremap`, which moves no
//! page, and the pages added are zero and untouched until written.

use std::ops::{Deref, DerefMut};

/// From this many bytes an array is mapped (below it, the allocator's
/// heap serves it, and a growth copies it; the first growth past it maps
/// it and copies once).
const MAP_FROM: usize = 1 << 16;

/// A type whose all-zero bytes are the value 0.
pub(super) trait Zero: Copy + Default + 'static {}
impl Zero for u8 {}
impl Zero for u16 {}

/// An array of `T` starting zeroed.
pub(super) enum Zeroed<T: Zero> {
    Heap(Vec<T>),
    #[cfg(target_os = "linux")]
    Mapped(Mapping<T>),
}

impl<T: Zero> Default for Zeroed<T> {
    fn default() -> Self {
        Zeroed::Heap(Vec::new())
    }
}

impl<T: Zero> std::fmt::Debug for Zeroed<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Zeroed({} items)", self.len())
    }
}

impl<T: Zero> Zeroed<T> {
    /// `len` zeroes.
    pub(super) fn new(len: usize) -> Self {
        #[cfg(target_os = "linux")]
        if len.saturating_mul(size_of::<T>()) >= MAP_FROM {
            if let Some(m) = Mapping::new(len) {
                return Zeroed::Mapped(m);
            }
        }
        Zeroed::Heap(vec![T::default(); len])
    }

    /// Lengthens the array to `len` items (at least its length), the new
    /// ones zero, the old ones kept.
    pub(super) fn grow(&mut self, len: usize) {
        if len <= self.len() {
            return;
        }
        #[cfg(target_os = "linux")]
        if let Zeroed::Mapped(m) = self {
            if m.grow(len) {
                return;
            }
        }
        // Not `Vec::resize`, which writes the zeros of the new part:
        // the allocator's zeroed memory leaves its pages untouched.
        let mut longer = Zeroed::new(len);
        longer[..self.len()].copy_from_slice(self);
        *self = longer;
    }
}

impl<T: Zero> Deref for Zeroed<T> {
    type Target = [T];
    #[inline]
    fn deref(&self) -> &[T] {
        match self {
            Zeroed::Heap(v) => v,
            #[cfg(target_os = "linux")]
            Zeroed::Mapped(m) => m.as_slice(),
        }
    }
}

impl<T: Zero> DerefMut for Zeroed<T> {
    #[inline]
    fn deref_mut(&mut self) -> &mut [T] {
        match self {
            Zeroed::Heap(v) => v,
            #[cfg(target_os = "linux")]
            Zeroed::Mapped(m) => m.as_mut_slice(),
        }
    }
}

/// Anonymous private pages holding `len` items of `T`.
#[cfg(target_os = "linux")]
pub(super) struct Mapping<T> {
    ptr: std::ptr::NonNull<T>,
    len: usize,
}

// SAFETY: the mapping is owned by this value alone, as a `Vec`'s buffer.
#[cfg(target_os = "linux")]
unsafe impl<T: Send> Send for Mapping<T> {}
// SAFETY: shared access only reads, as through `&[T]`.
#[cfg(target_os = "linux")]
unsafe impl<T: Sync> Sync for Mapping<T> {}

#[cfg(target_os = "linux")]
impl<T: Zero> Mapping<T> {
    fn bytes(len: usize) -> Option<usize> {
        len.checked_mul(size_of::<T>())
    }

    fn new(len: usize) -> Option<Self> {
        let bytes = Self::bytes(len)?;
        // SAFETY: a fresh anonymous mapping; the system zeroes its pages.
        let at = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                bytes,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if at == libc::MAP_FAILED {
            return None;
        }
        let ptr = std::ptr::NonNull::new(at.cast::<T>())?;
        crate::budget::mapped(bytes);
        Some(Mapping { ptr, len })
    }

    /// Extends the mapping to `len` items, moving it if it must (its pages
    /// go with it, none copied); false if the system refuses.
    fn grow(&mut self, len: usize) -> bool {
        let (Some(old), Some(new)) = (Self::bytes(self.len), Self::bytes(len)) else {
            return false;
        };
        // SAFETY: `ptr` maps `old` bytes (rounded up to pages by the
        // system, as mremap rounds them); on success the pages past them
        // are fresh zeroed memory.
        let at = unsafe { libc::mremap(self.ptr.as_ptr().cast(), old, new, libc::MREMAP_MAYMOVE) };
        if at == libc::MAP_FAILED {
            return false;
        }
        match std::ptr::NonNull::new(at.cast::<T>()) {
            Some(ptr) => {
                (self.ptr, self.len) = (ptr, len);
                crate::budget::mapped(new - old);
                true
            }
            None => false,
        }
    }

    fn as_slice(&self) -> &[T] {
        // SAFETY: `len` items of `T`, all bit patterns of which are values
        // (`Zero` is for integers), mapped while `self` lives.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }

    fn as_mut_slice(&mut self) -> &mut [T] {
        // SAFETY: as `as_slice`, borrowed mutably through `self`.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

#[cfg(target_os = "linux")]
impl<T> Drop for Mapping<T> {
    fn drop(&mut self) {
        let bytes = self.len * size_of::<T>();
        // SAFETY: unmaps the pages mapped by `new` or `grow`, once.
        unsafe {
            libc::munmap(self.ptr.as_ptr().cast(), bytes);
        }
        crate::budget::unmapped(bytes);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grown_arrays_keep_their_items_and_add_zeros_small_or_mapped() {
        for (first, second, third) in [(10, 100, 1000), (1000, 1 << 20, 3 << 20), (0, 5, 1 << 19)] {
            let mut a: Zeroed<u16> = Zeroed::new(first);
            assert!(a.iter().all(|&x| x == 0));
            for (i, x) in a.iter_mut().enumerate() {
                *x = i as u16 | 1;
            }
            for len in [second, third] {
                a.grow(len);
                assert_eq!(a.len(), len);
                assert!((0..first).all(|i| a[i] == i as u16 | 1));
                assert!(a[first..].iter().all(|&x| x == 0));
            }
            a.grow(1);
            assert_eq!(a.len(), third, "never shortened");
        }
    }
}
