//! One study's session: request lines read one at a time (64 KiB at most each:
//! [`MAX_REQUEST_LINE`]), each answered by one reply line. A connection is admitted
//! ([`admit`]) only once its first request has come whole within the first-request
//! deadline (10 s; [`super::Agent::first_request`]) and carries the agent's token; each
//! later one must come whole within `--idle-secs` of the reply before it. Each line is read
//! against its deadline, not a timeout per read ([`super::deadline`]), so a peer that
//! trickles bytes cannot hold a connection open, and one without the token never holds
//! the session's place. A line that is not JSON, or lacks the token, is refused and ends
//! the connection, as does an over-long line: a peer can neither guess on nor make the
//! agent read on. A request with the token that the agent cannot do (an unknown
//! contender, a pid not of this session, a request it does not serve) is answered with
//! an error and the session goes on. When the session ends, however it ends, the servers
//! it started are stopped ([`Running`]).

use std::io::{self, BufReader, ErrorKind};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use harness::remote::Token;
use harness::remote::line::{LineError, read_line, write_line};
use harness::remote::protocol::{MAX_REQUEST_LINE, Reply, Request};
use serde_json::Value;
use socket2::{SockRef, TcpKeepalive};

use super::deadline::Deadlined;
use super::running::Running;
use super::{Agent, note};

/// How long writing one reply may take. Default is 10 s.
const WRITE_TIMEOUT: Duration = Duration::from_secs(10);

/// How long a session's connection may be silent before TCP asks the study's host
/// whether it is still there. Default is 20 s.
const KEEPALIVE_IDLE: Duration = Duration::from_secs(20);

/// How far apart those probes are. Default is 5 s.
const KEEPALIVE_INTERVAL: Duration = Duration::from_secs(5);

/// How many unanswered probes end the connection. Default is 8.
const KEEPALIVE_PROBES: u32 = 8;

/// How long data sent (a reply, or a probe) may stay unacknowledged before the connection
/// is ended (`TCP_USER_TIMEOUT`). Default is 60 s.
const UNACKNOWLEDGED_FOR: Duration = Duration::from_secs(60);

/// A connection whose first request carried the token, read but not yet answered.
pub struct Admitted {
    reader: BufReader<Deadlined>,
    writer: TcpStream,
    first: Value,
}

impl Admitted {
    /// Its connection.
    pub fn stream(&self) -> &TcpStream {
        &self.writer
    }

    /// Its connection, to refuse it after all.
    pub fn into_stream(self) -> TcpStream {
        self.writer
    }
}

/// Reads the first request on `stream`, which must come whole within the agent's
/// first-request deadline and carry its token: the connection admitted, or the
/// connection and its refusal.
pub fn admit(stream: TcpStream, agent: &Agent) -> Result<Admitted, (TcpStream, String)> {
    let within = agent.first_request;
    let reading = match stream.try_clone() {
        Ok(reading) => reading,
        Err(e) => return Err((stream, format!("refused: {e}"))),
    };
    let _ = stream.set_write_timeout(Some(WRITE_TIMEOUT));
    let mut reader = BufReader::new(Deadlined::new(reading, Instant::now() + within));
    let silence = format!("refused: no request within {within:?}");
    match next_request(&mut reader, &agent.token, within, &silence) {
        Ok(Some(first)) => Ok(Admitted {
            reader,
            writer: stream,
            first,
        }),
        Ok(None) => Err((stream, "refused: closed before its first request".into())),
        Err(refusal) => Err((stream, refusal)),
    }
}

/// Serves the session `admitted` until it ends, and says why it ended; every server it
/// started has been stopped by then.
pub fn serve(admitted: Admitted, agent: &Agent) -> String {
    let Admitted {
        mut reader,
        mut writer,
        first,
    } = admitted;
    if let Err(e) = keep_alive(&writer) {
        note(format_args!("no TCP keepalive on the session's connection: {e}"));
    }
    let mut running = Running::default();
    let ended = converse((&mut reader, &mut writer), first, agent, &mut running);
    drop(running);
    ended
}

/// Answers `first`, then reads requests and answers them, starting and stopping servers in
/// `running`, until the study closes the connection or a refusal or silence ends it.
fn converse(
    (reader, writer): (&mut BufReader<Deadlined>, &mut TcpStream),
    first: Value,
    agent: &Agent,
    running: &mut Running,
) -> String {
    let silence = format!("no request for {} s", agent.idle.as_secs());
    let mut request = first;
    loop {
        let answer = match serde_json::from_value::<Request>(request) {
            Ok(request) => running.answer(request, agent),
            Err(e) => Err(format!("not a request this agent serves: {e}")),
        };
        if let Err(e) = write_line(writer, &Reply::from(answer)) {
            return format!("connection: {e}");
        }
        request = match next_request(reader, &agent.token, agent.idle, &silence) {
            Ok(Some(request)) => request,
            Ok(None) => return "the study closed the connection".into(),
            Err(refusal) => {
                let _ = write_line(writer, &Reply::<()>::Error(refusal.clone()));
                return refusal;
            }
        };
    }
}

/// The next request of `reader`, come whole within `within` from now and carrying
/// `token`; `Ok(None)` when the peer closed the connection; otherwise the refusal that
/// ends it (`silence` when the deadline passed).
fn next_request(
    reader: &mut BufReader<Deadlined>,
    token: &Token,
    within: Duration,
    silence: &str,
) -> Result<Option<Value>, String> {
    reader.get_mut().set_deadline(Instant::now() + within);
    let line = match read_line(reader, MAX_REQUEST_LINE) {
        Ok(Some(line)) => line,
        Ok(None) => return Ok(None),
        Err(LineError::Io(e)) if timed_out(&e) => return Err(silence.to_string()),
        Err(LineError::Io(e)) => return Err(format!("connection: {e}")),
        Err(too_long @ LineError::TooLong { .. }) => return Err(format!("refused: {too_long}")),
    };
    authenticate(&line, token).map(Some)
}

/// Has TCP probe a silent connection, so a study's host that vanished (no FIN, no RST)
/// ends the session within about a minute rather than at `--idle-secs`.
fn keep_alive(stream: &TcpStream) -> io::Result<()> {
    let socket = SockRef::from(stream);
    let probes = TcpKeepalive::new()
        .with_time(KEEPALIVE_IDLE)
        .with_interval(KEEPALIVE_INTERVAL)
        .with_retries(KEEPALIVE_PROBES);
    socket.set_tcp_keepalive(&probes)?;
    socket.set_tcp_user_timeout(Some(UNACKNOWLEDGED_FOR))
}

/// The request in `line` when it carries the agent's token; otherwise the refusal.
fn authenticate(line: &[u8], token: &Token) -> Result<Value, String> {
    let Ok(value) = serde_json::from_slice::<Value>(line) else {
        return Err(NOT_JSON.into());
    };
    let right = value
        .get("token")
        .and_then(Value::as_str)
        .map(|given| token.matches(given));
    match right {
        Some(true) => Ok(value),
        Some(false) => Err(WRONG_TOKEN.into()),
        None => Err(NO_TOKEN.into()),
    }
}

const NOT_JSON: &str = "refused: not a JSON request (one object per line)";
const WRONG_TOKEN: &str = "refused: wrong token";
const NO_TOKEN: &str = "refused: no token (every request carries \"token\": the token file's text)";

/// Whether a read failed only because its deadline passed.
fn timed_out(error: &io::Error) -> bool {
    matches!(error.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_json_line_with_the_token_is_let_through() {
        let token = Token::new("0123456789abcdef").unwrap();
        let good = br#"{"token":"0123456789abcdef","request":"stop","pid":1}"#;
        assert_eq!(authenticate(good, &token).unwrap()["pid"], 1);
        let refusals: [(&[u8], &str); 6] = [
            (
                br#"{"token":"0123456789abcdeX","request":"stop","pid":1}"#,
                "wrong token",
            ),
            (
                br#"{"token":"0123456789abcdef0","request":"stop"}"#,
                "wrong token",
            ),
            (br#"{"token":7,"request":"stop","pid":1}"#, "no token"),
            (br#"{"request":"stop","pid":1}"#, "no token"),
            (br#"["0123456789abcdef"]"#, "no token"),
            (b"stop 1", "not a JSON request"),
        ];
        for (line, refusal) in refusals {
            let error = authenticate(line, &token).unwrap_err();
            assert!(error.starts_with("refused: "), "{error}");
            assert!(error.contains(refusal), "{error}");
        }
    }
}
