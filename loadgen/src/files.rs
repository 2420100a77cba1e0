//! The file mode (`--files-set`): every request asks for one file of a set of the study
//! corpus (`http_core::files::CORPUS`), picked uniformly at random by a seeded generator
//! per connection (so a run with the same seed and connections asks for the same files in
//! the same order on each connection), and every answer's body is checked byte for byte
//! against `CorpusSet::contents(index)`: a body from the wrong file (its stamp, the name,
//! differs), or the wrong place in it, fails the run.

use std::sync::Arc;

use http_core::files::{CORPUS, CorpusSet, STAMP_LEN};

/// The pattern under `CorpusSet::pattern_at` repeats every this many bytes
/// (`http_core::routes::pattern_byte`), so file `index`'s bytes after its stamp are one
/// shared reference read from `index % PERIOD`. [`Files::new`] checks that this holds.
const PERIOD: usize = 26;

/// Which files a run asks for.
#[derive(Debug, Clone)]
pub struct Files {
    pub set: CorpusSet,
    /// The generator's seed; each connection draws its own sequence from it.
    pub seed: u64,
    /// `PERIOD` + the set's size bytes of the pattern, built once per run.
    reference: Arc<Vec<u8>>,
    /// Every file's stamp, built once per run (a stamp is formatted from the file's name).
    stamps: Arc<Vec<[u8; STAMP_LEN]>>,
}

impl Files {
    /// Files of `set`, drawn from `seed`.
    pub fn new(set: CorpusSet, seed: u64) -> Files {
        let reference: Vec<u8> = (0..set.size + PERIOD)
            .map(|k| CorpusSet::pattern_at(0, k))
            .collect();
        let shifted = |index: usize, offset: usize| reference[index % PERIOD + offset];
        let samples = (0..2 * PERIOD).flat_map(|index| [0, 1, set.size - 1].map(|offset| (index, offset)));
        for (index, offset) in samples {
            assert_eq!(
                shifted(index, offset),
                CorpusSet::pattern_at(index, offset),
                "the corpus pattern no longer repeats every {PERIOD} bytes"
            );
        }
        Files {
            set,
            seed,
            reference: Arc::new(reference),
            stamps: Arc::new((0..set.count).map(|index| set.stamp(index)).collect()),
        }
    }

    /// Files of the corpus set labelled `label` (`4k`, `64k`, `1m`).
    pub fn by_label(label: &str, seed: u64) -> Result<Files, String> {
        let set = CORPUS.iter().find(|set| set.label == label).ok_or_else(|| {
            let labels: Vec<&str> = CORPUS.iter().map(|set| set.label).collect();
            format!("no corpus set {label:?} (there are {})", labels.join(", "))
        })?;
        Ok(Files::new(*set, seed))
    }

    /// The body file `index` must have.
    pub fn body(&self, index: usize) -> Vec<u8> {
        self.set.contents(index)
    }

    /// File `index`'s bytes as two borrowed pieces, one after the other: its stamp, then
    /// the shared reference past it (nothing is built or copied per answer).
    pub fn pieces(&self, index: usize) -> [&[u8]; 2] {
        let pattern = &self.reference[index % PERIOD..][..self.set.size];
        [&self.stamps[index], &pattern[STAMP_LEN..]]
    }

    /// Checks an answer's body for file `index`, byte for byte: its stamp, then the
    /// shared reference (no copy of the file is built per answer).
    pub fn check(&self, index: usize, body: &[u8]) -> Result<(), String> {
        let [stamp, pattern] = self.pieces(index);
        let (head, tail) = body.split_at(body.len().min(STAMP_LEN));
        if body.len() == self.set.size && head == stamp && tail == pattern {
            return Ok(());
        }
        let at = body.iter().zip(self.body(index)).position(|(a, b)| *a != b);
        Err(self.difference(index, body.len(), at))
    }

    /// What a body of `got` bytes for file `index` whose first difference is `at` fails with.
    pub fn difference(&self, index: usize, got: usize, at: Option<usize>) -> String {
        format!(
            "body of {} differs from the file's {} bytes (got {got}; first difference at {at:?})",
            self.set.name(index),
            self.set.size,
        )
    }

    /// The sequence of file indexes connection `connection` asks for.
    pub fn picker(&self, connection: usize) -> Picker {
        Picker {
            count: self.set.count as u64,
            state: splitmix(self.seed ^ splitmix(connection as u64)),
        }
    }
}

/// A connection's seeded, uniform choice of files (splitmix64, then Lemire's
/// multiply-shift onto the set: a bias of at most `count / 2^64`).
#[derive(Debug, Clone)]
pub struct Picker {
    count: u64,
    state: u64,
}

impl Picker {
    pub fn next_index(&mut self) -> usize {
        self.state = self.state.wrapping_add(GOLDEN);
        let random = splitmix(self.state);
        ((random as u128 * self.count as u128) >> 64) as usize
    }
}

const GOLDEN: u64 = 0x9e37_79b9_7f4a_7c15;

/// splitmix64's output function.
fn splitmix(x: u64) -> u64 {
    let mut z = x.wrapping_add(GOLDEN);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Appends `base` (a rendered `GET` of the set's directory, e.g. `GET /files/ HTTP/1.1`)
/// with file `index`'s name after its path.
pub fn render(base: &[u8], set: &CorpusSet, index: usize, out: &mut Vec<u8>) {
    let at = base.windows(6).position(|w| w == b" HTTP/").unwrap_or(base.len());
    out.extend_from_slice(&base[..at]);
    out.extend_from_slice(set.name(index).as_bytes());
    out.extend_from_slice(&base[at..]);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_byte_of_every_file_is_the_corpus_byte() {
        for set in CORPUS {
            let files = Files::new(set, 1);
            for index in [0, 1, 25, 26, 27, set.count - 1] {
                let body = files.body(index);
                assert_eq!(body, set.contents(index));
                assert_eq!(files.check(index, &body), Ok(()));
            }
        }
    }

    #[test]
    fn a_wrong_body_fails_and_says_where() {
        let files = Files::by_label("4k", 1).unwrap();
        let mut body = files.body(7);
        body[100] ^= 1;
        let error = files.check(7, &body).unwrap_err();
        assert!(
            error.contains("4k-00007") && error.contains("Some(100)"),
            "{error}"
        );
        assert!(files.check(8, &files.body(7)).is_err(), "the neighbour's bytes");
        assert!(
            files.check(33, &files.body(7)).is_err(),
            "the same pattern, another file"
        );
        assert!(files.check(7, &files.body(7)[1..]).is_err(), "one byte short");
        assert!(Files::by_label("2k", 1).unwrap_err().contains("4k, 64k, 1m"));
    }

    #[test]
    fn picks_are_seeded_uniform_and_per_connection() {
        let files = Files::by_label("1m", 42).unwrap();
        let draw = |connection| {
            let mut picker = files.picker(connection);
            (0..10_000).map(|_| picker.next_index()).collect::<Vec<_>>()
        };
        assert_eq!(draw(0), draw(0), "reproducible");
        assert_ne!(draw(0), draw(1), "each connection its own sequence");
        let mut seen = [0usize; 100];
        for index in draw(3) {
            seen[index] += 1;
        }
        // 100 per file expected; a uniform draw stays well within 50..150 for each.
        assert!(seen.iter().all(|&n| (50..150).contains(&n)), "{seen:?}");
        let other = Files::by_label("1m", 43).unwrap();
        let mut picker = other.picker(0);
        let seeded: Vec<usize> = (0..20).map(|_| picker.next_index()).collect();
        assert_ne!(seeded, draw(0)[..20], "another seed, another sequence");
    }

    #[test]
    fn the_name_goes_after_the_path() {
        let set = CORPUS[0];
        let mut out = Vec::new();
        render(b"GET /files/ HTTP/1.1\r\nHost: h\r\n\r\n", &set, 42, &mut out);
        assert_eq!(out, b"GET /files/4k-00042 HTTP/1.1\r\nHost: h\r\n\r\n");
    }
}
