//! Every server raises its open-descriptor soft limit to the hard limit at startup, so
//! that it can hold as many connections as the system lets it (the usual soft limit of
//! 1,024 would refuse the 1,025th). Failing to raise it is not fatal: the server then
//! serves what the old limit allows, and its accept back-off handles running out.

use rustix::process::{Resource, Rlimit, getrlimit, setrlimit};

/// Raises RLIMIT_NOFILE's soft limit to its hard limit, best effort; returns the soft
/// limit in force afterwards (`None` for unlimited).
pub fn raise_to_hard_limit() -> Option<u64> {
    let limit = getrlimit(Resource::Nofile);
    let raised = Rlimit {
        current: limit.maximum,
        maximum: limit.maximum,
    };
    let _ = setrlimit(Resource::Nofile, raised);
    getrlimit(Resource::Nofile).current
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_soft_limit_ends_at_the_hard_limit() {
        let hard = getrlimit(Resource::Nofile).maximum;
        assert_eq!(raise_to_hard_limit(), hard);
    }
}
