//! The HTTP edge: the accept loop, the routes, the unary methods and the two downlinks.
//! Everything here reads requests and writes answers; what a session does lives in
//! `crate::log` and `crate::agent`.
//!
//! Modules: `serve` (the accept loop with its connection timeouts), `api` (`POST /api/<method>`
//! and `/api/respond`), `rpc` (envelope check, schema errors, carrier errors), `check`
//! (payload checks reporting every bad field), `limits` (size limits), `history`
//! (`session.history` pages), `verbs` (`session.rename`, `session.updateQueue`,
//! `session.fork`), `head` (the 2026-08-only search, models and workspace methods),
//! `commands` (`/api/commands/execute` and `/list`, `--wire 2026-08`),
//! `attachments` (images in prompts), `streams` (the two downlinks) and `admin` (`POST
//! /admin/faults`, `--faults` only).

pub mod admin;
pub mod api;
pub mod attachments;
pub mod check;
pub mod commands;
pub mod head;
pub mod history;
pub mod limits;
pub mod rpc;
pub mod serve;
pub mod streams;
pub mod verbs;
