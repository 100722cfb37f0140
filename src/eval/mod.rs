//! IR -> values: compiled code, the SG search and its memo tables, built-ins.

pub mod builtins;
pub mod compile;
pub mod compound;
pub mod memo;
pub mod ops;
pub mod ordinal;
pub mod plot;
pub mod product;
pub mod product_tables;
pub mod query;
pub mod search;
pub mod takebreak;
pub mod value;
