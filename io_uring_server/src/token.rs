//! The layout of `user_data`, which tells the event loop what a completion is for.
//!
//! ```text
//!  63      56 55                 32 31                              0
//! +----------+---------------------+--------------------------------+
//! |   kind   |  generation (24 b)  |          slot (32 b)           |
//! +----------+---------------------+--------------------------------+
//! ```
//! `slot` indexes the connection slab and `generation` counts reuses of that slot, so a
//! completion that arrives for an earlier occupant of a slot is recognised and dropped.
//! Operations that belong to no connection (accept, timer, wake-up) use slot 0.

/// What an operation was.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Kind {
    Accept = 1,
    Recv = 2,
    Send = 3,
    Shutdown = 4,
    Close = 5,
    Cancel = 6,
    Timer = 7,
    Wake = 8,
    /// A cancel of a global operation (accept, timer); its completion needs no handling.
    Control = 9,
    /// A step of a `/files/{name}` answer: OPENAT, STATX, READ or POLL_ADD, one at a time
    /// (the stat is a syscall where the root reads without waiting, sendfile always).
    File = 10,
    /// A cancel of a connection's file operation.
    FileCancel = 11,
}

const GENERATION_BITS: u32 = 24;
const GENERATION_MASK: u32 = (1 << GENERATION_BITS) - 1;

/// A connection: its slab slot and the generation of the slot's current occupant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConnId {
    pub slot: u32,
    pub generation: u32,
}

impl ConnId {
    pub fn new(slot: u32, generation: u32) -> ConnId {
        ConnId {
            slot,
            generation: generation & GENERATION_MASK,
        }
    }

    /// The token of an operation of `kind` on this connection.
    pub fn token(self, kind: Kind) -> Token {
        Token { kind, conn: self }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Token {
    pub kind: Kind,
    pub conn: ConnId,
}

impl Token {
    /// A token for an operation that belongs to no connection.
    pub fn global(kind: Kind) -> Token {
        ConnId::new(0, 0).token(kind)
    }

    pub fn encode(self) -> u64 {
        (self.kind as u64) << 56 | u64::from(self.conn.generation) << 32 | u64::from(self.conn.slot)
    }

    pub fn decode(user_data: u64) -> Option<Token> {
        let kind = match user_data >> 56 {
            1 => Kind::Accept,
            2 => Kind::Recv,
            3 => Kind::Send,
            4 => Kind::Shutdown,
            5 => Kind::Close,
            6 => Kind::Cancel,
            7 => Kind::Timer,
            8 => Kind::Wake,
            9 => Kind::Control,
            10 => Kind::File,
            11 => Kind::FileCancel,
            _ => return None,
        };
        let generation = (user_data >> 32) as u32;
        Some(ConnId::new(user_data as u32, generation).token(kind))
    }
}

/// The generation that follows `generation`, wrapping within its 24 bits.
pub fn next_generation(generation: u32) -> u32 {
    (generation + 1) & GENERATION_MASK
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_round_trip_for_every_kind() {
        for kind in [
            Kind::Accept,
            Kind::Recv,
            Kind::Send,
            Kind::Shutdown,
            Kind::Close,
            Kind::Cancel,
            Kind::Timer,
            Kind::Wake,
            Kind::Control,
            Kind::File,
            Kind::FileCancel,
        ] {
            let token = ConnId::new(u32::MAX, GENERATION_MASK).token(kind);
            assert_eq!(Token::decode(token.encode()), Some(token));
        }
        assert_eq!(Token::decode(0), None);
    }

    #[test]
    fn generation_wraps_inside_its_field() {
        assert_eq!(next_generation(GENERATION_MASK), 0);
        assert_eq!(ConnId::new(3, GENERATION_MASK + 5).generation, 4);
    }
}
