//! The HTTP edge: the accept loop, the routes, the unary methods and the two downlinks.
//! Everything here reads requests and writes answers; what a session does lives in
//! `crate::log` and `crate::agent`.

pub mod admin;
pub mod api;
pub mod attachments;
pub mod check;
pub mod commands;
pub mod history;
pub mod limits;
pub mod rpc;
pub mod serve;
pub mod streams;
pub mod verbs;
