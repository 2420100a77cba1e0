//! Serving `/files/{name}` (`--files-dir`), one concept a file: the answer in progress
//! and the memory the kernel writes during it (`transfer`; what each completion means in
//! its child `completion.rs`), what a connection keeps
//! between two files (`spare`), the submission entries that name that memory (`entries`),
//! the descriptors outside the ring (`fd`), and the zero-copy path's syscalls
//! (`sendfile`). How a connection drives them is `conn/files.rs`; the rules for the
//! memory: `DESIGN.md`, rule 7, and its section "Files".

pub mod entries;
pub mod fd;
pub mod sendfile;
pub mod spare;
pub mod transfer;
