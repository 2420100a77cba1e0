//! Servers on another host: a study on one machine, its servers on another, started and
//! measured there by the agent (the `agent` binary of the `lab` crate, `lab/src/agent/`).
//! Here is what both ends share: the protocol ([`protocol`]), its length-bounded lines
//! ([`line`]) and the token that guards it ([`token`]); and the study's end of it: one
//! connection to the agent ([`client`]) and a server started through it, stopped when
//! dropped ([`server`]). How to run it: `docs/two_hosts.md`.

pub mod client;
pub mod line;
pub mod protocol;
pub mod server;
pub mod token;

pub use client::AgentClient;
pub use server::RemoteServer;
pub use token::Token;
