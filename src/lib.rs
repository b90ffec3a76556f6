//! `usdsim`'s commands as a library: what `usdsim run`, `validate`, `inspect` and the
//! other subcommands do, callable in process. The binary (`src/main.rs`) only parses
//! the command line and prints; the Python module (`crates/usdsim-py`) calls
//! [`run::run`], [`run::set_up`] and [`inspect::view`] with the same arguments, so a
//! bake from Python is the command's, byte for byte.
//!
//! The commands wire the two libraries together: `usdsim-usd` imports the stage and
//! exports frames, `usdsim-core` simulates.

pub mod cli;
pub mod console;
pub mod cpu;
pub mod failure;
pub mod farm;
pub mod inspect;
pub mod interrupt;
pub mod prepare;
pub mod preview;
pub mod progress;
pub mod report;
pub mod run;
pub mod summary;
pub mod upgrade;
pub mod validate;
