//! The compiler: what every `impl Compiler` block of the modules next to
//! this one extends (each adds the compilation of one kind of code).

use std::collections::HashSet;
use std::rc::Rc;

use crate::eval::value::Value;
use crate::ir::ir::*;

/// Compiles the IR of one program. `aliases` are the game ids whose bodies
/// are aliases (their positions must be expanded, not keyed).
pub struct Compiler<'a> {
    pub aliases: &'a HashSet<GameId>,
    /// Function bodies, for inlining small integer functions.
    pub fn_ir: &'a [Option<Rc<IrFn>>],
    pub inline_depth: std::cell::Cell<u32>,
    /// When compiling a game for one instance's static arguments
    /// (`specialize.rs`): those arguments, which its own positions in
    /// results carry as constants.
    pub own_statics: Option<&'a [Value]>,
    /// The values of the top-level constants (`specialize.rs`), for the
    /// bodies of functions compiled in their own frame
    /// (`key_kernel.rs`'s calls of set functions).
    pub globals: &'a [Option<Value>],
}

impl<'a> Compiler<'a> {
    pub fn new(aliases: &'a HashSet<GameId>, fn_ir: &'a [Option<Rc<IrFn>>]) -> Compiler<'a> {
        Compiler {
            aliases,
            fn_ir,
            inline_depth: std::cell::Cell::new(0),
            own_statics: None,
            globals: &[],
        }
    }
}
