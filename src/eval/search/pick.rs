//! Which result an option of a kernel move takes, once its guard and
//! conditions are read (kernels, keyed kernels and the walk share it).

use crate::eval::compile::{BoolCode, MoveResult};

/// What an option of a kernel move is, once its guard and conditions
/// are read.
pub(crate) enum Pick<'m, R> {
    /// The guard does not hold: no option.
    None,
    /// Something does not evaluate, or a position a function's body
    /// writes breaks `where`: the general path runs the position (and
    /// reports the error).
    GeneralPath,
    /// The result the option takes: the first whose conditions hold.
    Result(&'m R),
}

/// Reads the guard of a kernel move and picks the result an option
/// takes.
#[inline]
pub(crate) fn pick<'m, L: ?Sized, A>(
    guard: Option<&BoolCode<L>>,
    results: &'m [MoveResult<L, A>],
    frame: &L,
) -> Pick<'m, MoveResult<L, A>> {
    match guard.map(|g| g(frame)) {
        None | Some(Some(true)) => {}
        Some(Some(false)) => return Pick::None,
        Some(None) => return Pick::GeneralPath,
    }
    'results: for r in results {
        for (c, want) in &r.conds {
            match c(frame) {
                Some(v) if v == *want => {}
                Some(_) => continue 'results,
                None => return Pick::GeneralPath,
            }
        }
        if r.body_where
            .as_ref()
            .is_some_and(|w| w(frame) != Some(true))
        {
            return Pick::GeneralPath;
        }
        return Pick::Result(r);
    }
    Pick::GeneralPath
}
