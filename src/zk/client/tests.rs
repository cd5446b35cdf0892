//! Client tests against a scripted server on an in-memory duplex, on tokio's paused clock.

mod fake;
mod requests;
mod session;
