//! One case of the contract's table ([`crate::cases`], [`crate::upload_cases`]): request
//! bytes sent in one write and the answers they must get, and the helpers that spell them.

/// One request sequence sent in a single write.
pub struct Case {
    pub name: &'static str,
    pub request: Vec<u8>,
    /// Statuses of the responses, in order (interim `100` included).
    pub statuses: Vec<u16>,
    /// Whether the server must close the connection after the last response.
    pub close: bool,
    /// The requests are HEAD: responses carry no body.
    pub head: bool,
}

pub fn case(name: &'static str, request: impl Into<Vec<u8>>, statuses: &[u16], close: bool) -> Case {
    Case {
        name,
        request: request.into(),
        statuses: statuses.to_vec(),
        close,
        head: false,
    }
}

/// A request line plus `Host: test`, the given header lines, a blank line and `body`.
pub fn req(line: &str, headers: &str, body: &str) -> String {
    format!("{line}\r\nHost: test\r\n{headers}\r\n{body}")
}

pub fn get(path: &str) -> String {
    req(&format!("GET {path} HTTP/1.1"), "", "")
}
