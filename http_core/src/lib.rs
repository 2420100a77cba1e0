//! The HTTP/1.1 contract every server in this workspace serves, in one place, so that
//! "the same endpoints" holds by construction: the routes, the limits, the request rules
//! of RFC 9112/9110, the response rendering with its cached Date, and a sans-I/O
//! [`Codec`] that any I/O loop can drive. Bytes in, bytes out: no sockets, no flags, no
//! runtime (what servers share at startup lives in `server_kit`).

pub mod chunked;
pub mod codec;
pub mod date;
pub mod error;
pub mod file_name;
pub mod files;
pub mod headers;
pub mod limits;
pub mod output;
pub mod pace;
pub mod request;
pub mod response;
pub mod routes;
pub mod upload;
pub mod work;

pub use codec::{Codec, Outcome, Received};
pub use error::HttpError;
pub use files::{FileAnswer, FileName, FileRequest};
pub use limits::Limits;
pub use output::{Lending, Output, Sink};
