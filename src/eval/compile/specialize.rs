//! Games compiled for one instance's static arguments. A game whose static
//! arguments are not all integers (`CB[F]` with a function `F`, `Sub[S]`
//! with a set `S`) would otherwise run on the general path: integer code
//! and kernels read a frame of integers, and a function or a set is not
//! one. Such an instance gets its own compiled game in which every read of
//! a static argument is that argument as a constant (integer code puts a
//! call of a constant function in place: `Compiler::call_body`), and the
//! remaining locals move down: the game compiles as one without static
//! arguments, with kernels, `where` code and sweeps like any other. Its
//! own positions in results are recognised by their static arguments'
//! values (`Compiler::own_statics`).
//!
//! The same compilation puts in the values of the top-level `let`s the
//! game reads (`IrKind::Global`), once they have run: a constant set or
//! list (`k in FIB`, `adj[v]`) is then a literal to the planner, whatever
//! its size or wherever it was computed. A game reading such constants
//! is compiled for them even without static arguments. A `let` runs once
//! (a redefinition is a new constant), so the values never change.

use std::rc::Rc;

use super::compiler::Compiler;
use super::constants::Fill;
use super::runtime::{CompiledGame, Runtime};
use crate::eval::value::Value;
use crate::ir::ir::*;

/// The game `game` compiled for the static arguments `statics` of its
/// instance `name` and the constants it reads (`None` for an alias, or a
/// game the runtime has no IR of; with `only_constants`, also when it
/// reads no constant that has a value). Its explanation names the
/// instance.
pub fn specialized_game(
    rt: &Runtime,
    game: GameId,
    statics: &[Value],
    name: &Rc<str>,
    only_constants: bool,
) -> Option<CompiledGame> {
    let ir = rt.game_ir.get(game as usize)?.as_ref()?;
    if ir.n_statics != statics.len() || matches!(ir.body, IrGameBody::Alias(_)) {
        return None;
    }
    let globals = rt.globals.borrow();
    let fill = Fill::new(statics, &globals, &rt.fn_ir);
    let mut filled = fill.game(ir);
    if only_constants && fill.constants() == 0 {
        return None;
    }
    filled.name = if statics.is_empty() {
        Rc::from(format!("{name} (its top-level constants read as values)"))
    } else {
        name.clone()
    };
    let aliases = rt.aliases();
    let mut compiler = Compiler::new(&aliases, &rt.fn_ir);
    compiler.own_statics = Some(statics);
    compiler.globals = &globals;
    let mut compiled = compiler.game(game, &filled);
    compiled.name = ir.name.clone();
    Some(compiled)
}
