//! What counts as an answer in every scenario: a 200 with exactly the expected body.

/// A response counts only if it is a 200 with exactly the expected body.
pub fn check(status: u16, body: &[u8], expected: &[u8]) -> Result<(), String> {
    if status != 200 {
        return Err(format!("status {status}, expected 200"));
    }
    if body.len() != expected.len() || body != expected {
        return Err(format!(
            "body of {} bytes differs from the expected {} bytes",
            body.len(),
            expected.len()
        ));
    }
    Ok(())
}
