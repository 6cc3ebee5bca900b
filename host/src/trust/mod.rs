//! The trust fence around the routes: which origins, content types and tokens may reach the
//! host (`fence`, `security`).

pub mod fence;
pub mod security;
