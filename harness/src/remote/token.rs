//! The agent's shared secret: the text of a file that only its owner may read, the same on
//! both hosts. It keeps anyone else who can reach the agent's address from starting
//! servers there; it travels in clear text with every request, so it protects a lab
//! network, not an open one (`docs/two_hosts.md`). Comparing two tokens takes a time that
//! depends on the agent's token alone, never on where a wrong one first differs.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

/// The fewest characters a token may have. Default is 16.
pub const MIN_TOKEN_LEN: usize = 16;

/// How to make a token file.
pub const MAKE_ONE: &str = "(umask 077; head -c 24 /dev/urandom | base64 > FILE)";

/// A token; its text is never printed.
pub struct Token(String);

impl Token {
    /// The text of the file at `path`, surrounding whitespace dropped; refused when the
    /// file may be read by users other than its owner, or is shorter than
    /// [`MIN_TOKEN_LEN`].
    pub fn read(path: &Path) -> Result<Token, String> {
        let shown = path.display();
        let metadata = std::fs::metadata(path).map_err(|e| format!("token file {shown}: {e}"))?;
        if metadata.permissions().mode() & 0o077 != 0 {
            return Err(format!(
                "token file {shown}: other users may read it; chmod 600 {shown}"
            ));
        }
        let text = std::fs::read_to_string(path).map_err(|e| format!("token file {shown}: {e}"))?;
        Token::new(text.trim()).map_err(|e| format!("token file {shown}: {e}"))
    }

    /// `text` as a token, refused when shorter than [`MIN_TOKEN_LEN`].
    pub fn new(text: &str) -> Result<Token, String> {
        if text.chars().count() < MIN_TOKEN_LEN {
            return Err(format!(
                "a token has at least {MIN_TOKEN_LEN} characters; make one with {MAKE_ONE}"
            ));
        }
        Ok(Token(text.to_string()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether `given` is this token: every byte of this token is compared, whatever
    /// `given` is, so the time taken tells nothing of how much of it was right.
    pub fn matches(&self, given: &str) -> bool {
        let (expected, given) = (self.0.as_bytes(), given.as_bytes());
        let mut difference = expected.len() ^ given.len();
        for (i, byte) in expected.iter().enumerate() {
            let other = given.get(i).copied().unwrap_or(0);
            difference |= usize::from(byte ^ other);
        }
        std::hint::black_box(difference) == 0
    }
}

impl std::fmt::Debug for Token {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Token(hidden)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_same_token_matches() {
        let token = Token::new("0123456789abcdef").unwrap();
        assert!(token.matches("0123456789abcdef"));
        let longer = "0123456789abcdef0";
        for wrong in ["", "x", "0123456789abcde", longer, "0123456789abcdeF"] {
            assert!(!token.matches(wrong), "{wrong:?}");
        }
        assert_eq!(format!("{token:?}"), "Token(hidden)");
    }

    #[test]
    fn a_short_token_or_a_file_others_may_read_is_refused() {
        assert!(Token::new("short").unwrap_err().contains("at least 16"));
        let path = std::env::temp_dir().join(format!("token-test-{}", std::process::id()));
        std::fs::write(&path, "0123456789abcdef\n").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        assert!(Token::read(&path).unwrap_err().contains("chmod 600"));
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
        assert!(Token::read(&path).unwrap().matches("0123456789abcdef"));
        std::fs::remove_file(&path).unwrap();
    }
}
