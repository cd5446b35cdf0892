//! End-to-end tests of the `locksim` binary: exit statuses, one-line errors, the JSON shapes,
//! trace files that are written, replayed and never silently overwritten, and the pictures
//! `replay --html` writes.
//! Every command runs a few seeds at the default small time scale, so each takes well under
//! a second.

mod bad_input;
mod commands;
mod html;
mod output;
mod progress;
mod shards;
mod support;
mod trace_files;
