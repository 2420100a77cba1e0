//! What the agent starts, by name, and nothing else: the catalogue's contenders it offers
//! (`--contenders`: `all`, the contenders, the scheduler control and the floors that
//! [`harness::servers::by_id`] finds; `none`; or their ids) and the commands its operator
//! listed (`--allow 'NAME=COMMAND {port}'`, read as a study reads `--server`:
//! [`harness::servers::outside`]).

use harness::servers::{Contender, by_id, findable_by_id, outside};

/// The servers the agent starts.
#[derive(Debug, Clone, PartialEq)]
pub struct Offers {
    servers: Vec<Contender>,
}

impl Offers {
    /// The offers of `--contenders` (`contenders`) and every `--allow` (`allowed`); an
    /// error names what is wrong.
    pub fn new(contenders: &str, allowed: &[String]) -> Result<Offers, String> {
        let mut servers: Vec<Contender> = match contenders.trim() {
            "all" => findable_by_id().collect(),
            "none" => Vec::new(),
            ids => ids
                .split(',')
                .map(str::trim)
                .filter(|id| !id.is_empty())
                .map(catalogue_contender)
                .collect::<Result<_, _>>()?,
        };
        let commands = outside::parse_all(allowed).map_err(|e| e.replace("--server", "--allow"))?;
        for command in commands {
            if servers.iter().any(|s| s.id == command.id) {
                let name = command.id;
                return Err(format!("--allow: {name:?} is a catalogue contender's name"));
            }
            servers.push(command);
        }
        Ok(Offers { servers })
    }

    /// The server offered as `name`; an error says what is offered instead.
    pub fn find(&self, name: &str) -> Result<Contender, String> {
        match self.servers.iter().find(|c| c.id == name) {
            Some(&contender) => Ok(contender),
            None => Err(format!(
                "unknown contender {name:?}: this agent starts only {}",
                self.names()
            )),
        }
    }

    /// The catalogue's contenders among the offers: the binaries the agent builds.
    pub fn catalogue(&self) -> Vec<Contender> {
        self.servers
            .iter()
            .copied()
            .filter(|c| c.launch.is_cargo())
            .collect()
    }

    /// The names offered, for messages.
    pub fn names(&self) -> String {
        if self.servers.is_empty() {
            return "nothing".into();
        }
        let names: Vec<&str> = self.servers.iter().map(|c| c.id).collect();
        names.join(", ")
    }
}

/// The catalogue's contender `id`; an error lists the ids there are.
fn catalogue_contender(id: &str) -> Result<Contender, String> {
    let ids = || findable_by_id().map(|c| c.id).collect::<Vec<_>>().join(", ");
    by_id(id).ok_or_else(|| format!("--contenders: no {id:?} in {}", ids()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use harness::servers::{FLOORS, IO_URING, Launch};

    const LISTED: &str = "sleeper=sleep 30 {port}";

    #[test]
    fn the_catalogue_and_the_listed_commands_are_offered_by_name() {
        let all = Offers::new("all", &[LISTED.to_string()]).unwrap();
        assert_eq!(all.find("io_uring").unwrap(), IO_URING);
        assert_eq!(all.find("bare_uring").unwrap(), FLOORS[2]);
        let sleeper = all.find("sleeper").unwrap();
        assert_eq!(sleeper.launch, Launch::Command("sleep 30 {port}"));
        assert!(!all.catalogue().contains(&sleeper));
        assert!(all.catalogue().contains(&IO_URING));
        let some = Offers::new(" io_uring, tokio_codec ", &[]).unwrap();
        assert_eq!(some.names(), "io_uring, tokio_codec");
        assert_eq!(Offers::new("none", &[]).unwrap().names(), "nothing");
    }

    #[test]
    fn anything_else_is_refused_by_name() {
        let offers = Offers::new("none", &[LISTED.to_string()]).unwrap();
        for unknown in ["sh", "io_uring", "sleeper ", "", "sleep 30 {port}"] {
            let error = offers.find(unknown).unwrap_err();
            assert!(error.contains("unknown contender"), "{error}");
            assert!(error.contains("this agent starts only sleeper"), "{error}");
        }
        assert!(Offers::new("nginx", &[]).unwrap_err().contains("no \"nginx\""));
        let twice = Offers::new("all", &["io_uring=x {port}".to_string()]).unwrap_err();
        assert!(twice.contains("catalogue contender's name"), "{twice}");
        let no_port = Offers::new("none", &["x=sleep 30".to_string()]).unwrap_err();
        assert!(no_port.starts_with("--allow takes"), "{no_port}");
    }
}
