//! One study's session: request lines read one at a time (64 KiB at most each:
//! [`MAX_REQUEST_LINE`]), each answered by one reply line. A line that is not JSON, or
//! lacks the agent's token, is refused and ends the session, as do an over-long line and
//! a first request that does not come within [`FIRST_REQUEST_WITHIN`]: a peer without the
//! token can neither guess on nor hold the agent's one session. A request with the token
//! that the agent cannot do (an unknown contender, a pid not of this session, a request
//! it does not serve) is answered with an error and the session goes on. When the session
//! ends, however it ends, the servers it started are stopped ([`Running`]).

use std::io::{BufReader, ErrorKind};
use std::net::TcpStream;
use std::time::Duration;

use harness::remote::Token;
use harness::remote::line::{LineError, read_line, write_line};
use harness::remote::protocol::{MAX_REQUEST_LINE, Reply, Request};
use serde_json::Value;

use super::Agent;
use super::running::Running;

/// How soon after connecting the first request must come. Default is 10 s.
pub const FIRST_REQUEST_WITHIN: Duration = Duration::from_secs(10);

/// How long writing one reply may take. Default is 10 s.
const WRITE_TIMEOUT: Duration = Duration::from_secs(10);

/// Serves one session on `stream` until it ends, and says why it ended; every server it
/// started has been stopped by then.
pub fn serve(stream: TcpStream, agent: &Agent) -> String {
    let mut running = Running::default();
    let ended = converse(stream, agent, &mut running);
    drop(running);
    ended.unwrap_or_else(|e| format!("connection: {e}"))
}

/// Reads requests and answers them, starting and stopping servers in `running`, until
/// the study closes the connection or a refusal ends it.
fn converse(stream: TcpStream, agent: &Agent, running: &mut Running) -> std::io::Result<String> {
    stream.set_write_timeout(Some(WRITE_TIMEOUT))?;
    stream.set_read_timeout(Some(FIRST_REQUEST_WITHIN))?;
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut writer = stream;
    let mut trusted = false;
    loop {
        let line = match read_line(&mut reader, MAX_REQUEST_LINE) {
            Ok(Some(line)) => line,
            Ok(None) => return Ok("the study closed the connection".into()),
            Err(LineError::Io(e)) if timed_out(&e) => {
                let silence = if trusted {
                    format!("no request for {} s", agent.idle.as_secs())
                } else {
                    format!("refused: no request within {FIRST_REQUEST_WITHIN:?}")
                };
                return refuse(&mut writer, silence);
            }
            Err(LineError::Io(e)) => return Err(e),
            Err(too_long @ LineError::TooLong { .. }) => {
                return refuse(&mut writer, format!("refused: {too_long}"));
            }
        };
        let request = match authenticate(&line, &agent.token) {
            Ok(request) => request,
            Err(refusal) => return refuse(&mut writer, refusal),
        };
        if !trusted {
            trusted = true;
            reader.get_ref().set_read_timeout(Some(agent.idle))?;
        }
        let answer = match serde_json::from_value::<Request>(request) {
            Ok(request) => running.answer(request, agent),
            Err(e) => Err(format!("not a request this agent serves: {e}")),
        };
        write_line(&mut writer, &Reply::from(answer))?;
    }
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

/// Writes `refusal` as the session's last reply; it is why the session ended.
fn refuse(writer: &mut TcpStream, refusal: String) -> std::io::Result<String> {
    let _ = write_line(writer, &Reply::<()>::Error(refusal.clone()));
    Ok(refusal)
}

/// Whether a read failed only because its timeout passed.
fn timed_out(error: &std::io::Error) -> bool {
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
            (br#"{"token":"0123456789abcdeX","request":"stop","pid":1}"#, "wrong token"),
            (br#"{"token":"0123456789abcdef0","request":"stop"}"#, "wrong token"),
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
