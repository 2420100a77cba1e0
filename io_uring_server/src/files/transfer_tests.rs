//! The transfer's steps without a kernel: completions are played by hand.

use std::os::fd::IntoRawFd;
use std::os::unix::fs::OpenOptionsExt;

use super::*;
use crate::files::fd::FilesRoot;
use http_core::files::{FILE_CHUNK, FileName, SENDFILE_MIN};
use http_core::response::Persistence;

fn transfer(head_only: bool) -> FileTransfer {
    transfer_in(ROOT, head_only)
}

/// A root whose file system reads without blocking: files stay O_NONBLOCK.
const ROOT: FilesRoot = FilesRoot {
    fd: 3,
    mount: 0,
    nowait_reads: true,
};

fn transfer_in(root: FilesRoot, head_only: bool) -> FileTransfer {
    let request = FileRequest {
        name: FileName::from_path("/files/a").unwrap(),
        head_only,
        persistence: Persistence::KeepAlive,
    };
    FileTransfer::new(request, root, (FileScratch::new(), Vec::new()), false)
}

/// Plays a successful OPENAT2: the result is a real descriptor, which the transfer owns.
fn opened(transfer: &mut FileTransfer) {
    let fd = std::fs::File::open("/dev/null").unwrap().into_raw_fd();
    assert_eq!(transfer.completed(fd), Progress::Continue);
    assert_eq!(transfer.step(), Step::Stat);
}

/// Plays a stat that found a regular file of `len` bytes (or a directory).
fn stat(transfer: &mut FileTransfer, regular: bool, len: u64) -> Progress {
    let (_, statx) = transfer.stat_args();
    statx.stx_mode = if regular { libc::S_IFREG } else { libc::S_IFDIR } as u16;
    statx.stx_size = len;
    transfer.completed(0)
}

#[test]
fn open_errors_map_to_their_answer() {
    let mut transfer = transfer(false);
    assert_eq!(transfer.open_args().1.to_bytes_with_nul(), b"a\0");
    assert_eq!(transfer.wants(false, false), Some(FileOp::Open));
    let missing = transfer.completed(-libc::ELOOP);
    assert_eq!(missing, Progress::Error(FileAnswer::Missing));
    let mut transfer = self::transfer(false);
    assert_eq!(
        transfer.completed(-libc::EACCES),
        Progress::Error(FileAnswer::Failed)
    );
}

#[test]
fn only_a_regular_file_is_found() {
    let mut transfer = transfer(false);
    opened(&mut transfer);
    assert_eq!(
        stat(&mut transfer, false, 10),
        Progress::Error(FileAnswer::Missing)
    );
}

#[test]
fn head_only_and_empty_files_end_with_the_head() {
    let mut transfer = transfer(true);
    opened(&mut transfer);
    assert_eq!(
        stat(&mut transfer, true, 10),
        Progress::Head { len: 10, done: true }
    );
    let mut transfer = self::transfer(false);
    opened(&mut transfer);
    assert_eq!(
        stat(&mut transfer, true, 0),
        Progress::Head { len: 0, done: true }
    );
}

#[test]
fn a_large_file_is_read_chunk_by_chunk_at_its_offset() {
    let len = FILE_CHUNK as u64 * 2 + 100;
    let mut transfer = transfer(false);
    opened(&mut transfer);
    assert_eq!(
        stat(&mut transfer, true, len),
        Progress::Head { len, done: false }
    );
    assert_eq!(
        transfer.wants(true, false),
        None,
        "no read while the output is backed up"
    );
    assert_eq!(transfer.wants(false, false), Some(FileOp::Read));
    let (_, room, offset) = transfer.read_args();
    assert_eq!((room.len(), offset), (FILE_CHUNK, 0));
    assert_eq!(transfer.completed(1000), Progress::Chunk { n: 1000, done: false });
    // The output keeps the buffer: no read until it comes back.
    let buffer = transfer.take_buffer();
    assert_eq!(transfer.wants(false, false), None);
    assert!(!transfer.is_its_buffer(&[0; 10]));
    assert!(transfer.is_its_buffer(&buffer));
    transfer.keep_buffer(buffer);
    let (_, room, offset) = transfer.read_args();
    assert_eq!(
        (room.len(), offset),
        (FILE_CHUNK, 1000),
        "a short read resumes after it"
    );
    let chunk = Progress::Chunk {
        n: FILE_CHUNK,
        done: false,
    };
    assert_eq!(transfer.completed(FILE_CHUNK as i32), chunk);
    let (_, room, offset) = transfer.read_args();
    let last = FILE_CHUNK - 900;
    assert_eq!(
        (room.len(), offset),
        (last, 1000 + FILE_CHUNK as u64),
        "never past the length"
    );
    assert_eq!(
        transfer.completed(last as i32),
        Progress::Chunk { n: last, done: true }
    );
}

#[test]
fn a_file_that_ends_early_breaks_the_response() {
    let mut transfer = transfer(false);
    opened(&mut transfer);
    stat(&mut transfer, true, 5000);
    let (_, room, _) = transfer.read_args();
    assert_eq!(room.len(), 5000, "a small file gets a buffer of its size");
    assert_eq!(transfer.completed(0), Progress::Broken);
    let mut transfer = self::transfer(false);
    opened(&mut transfer);
    stat(&mut transfer, true, 5000);
    assert_eq!(transfer.completed(-libc::EIO), Progress::Broken);
}

/// A transfer in `root` with a real descriptor opened O_NONBLOCK, and a probe of it.
fn opened_nonblocking(root: FilesRoot) -> (FileTransfer, impl Fn(&FileTransfer) -> bool) {
    use rustix::fs::{OFlags, fcntl_getfl};
    let file = std::fs::File::options()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open("/dev/null")
        .unwrap();
    let mut transfer = transfer_in(root, false);
    assert_eq!(transfer.completed(file.into_raw_fd()), Progress::Continue);
    let nonblocking = |transfer: &FileTransfer| {
        let flags = fcntl_getfl(transfer.fd.as_ref().unwrap()).unwrap();
        flags.contains(OFlags::NONBLOCK)
    };
    (transfer, nonblocking)
}

#[test]
fn a_regular_file_stays_non_blocking_only_where_its_reads_cannot_block_the_ring() {
    let (mut transfer, nonblocking) = opened_nonblocking(ROOT);
    stat(&mut transfer, true, 10);
    assert!(
        nonblocking(&transfer),
        "a file system with no-wait reads: no fcntl"
    );
    let (mut transfer, nonblocking) = opened_nonblocking(ROOT);
    transfer.stat_args().1.stx_mnt_id = 5;
    stat(&mut transfer, true, 10);
    assert!(!nonblocking(&transfer), "a file on another mount than the root's");
    let elsewhere = FilesRoot {
        nowait_reads: false,
        ..ROOT
    };
    let (mut transfer, nonblocking) = opened_nonblocking(elsewhere);
    assert!(
        nonblocking(&transfer),
        "opened non-blocking (a FIFO must not block)"
    );
    stat(&mut transfer, true, 10);
    assert!(
        !nonblocking(&transfer),
        "elsewhere a regular file's reads go to a worker thread"
    );
}

#[test]
fn a_read_not_ready_is_submitted_again_once_on_a_blocking_descriptor() {
    let (mut transfer, nonblocking) = opened_nonblocking(ROOT);
    stat(&mut transfer, true, 5000);
    assert_eq!(transfer.completed(-libc::EAGAIN), Progress::Continue);
    assert!(
        !nonblocking(&transfer),
        "made blocking before the read is tried again"
    );
    assert_eq!(
        transfer.wants(false, false),
        Some(FileOp::Read),
        "the same read again"
    );
    let (_, room, offset) = transfer.read_args();
    assert_eq!((room.len(), offset), (5000, 0));
    assert_eq!(transfer.completed(-libc::EAGAIN), Progress::Broken, "not forever");

    let (mut transfer, _) = opened_nonblocking(ROOT);
    stat(&mut transfer, true, 5000);
    transfer.completed(-libc::EAGAIN);
    assert_eq!(transfer.completed(5000), Progress::Chunk { n: 5000, done: true });
}

#[test]
#[should_panic(expected = "one read buffer")]
fn a_second_read_buffer_is_refused() {
    let mut transfer = transfer(false);
    opened(&mut transfer);
    stat(&mut transfer, true, 10);
    transfer.keep_buffer(vec![0; 10]);
}

/// A transfer that may sendfile, opened on a real file of `len` bytes just written (so in
/// the page cache), and stat'ed.
fn cached_file_transfer(tag: &str, len: u64) -> (FileTransfer, Progress) {
    cached_file_transfer_in(ROOT, tag, len)
}

/// [`cached_file_transfer`] under `root`.
fn cached_file_transfer_in(root: FilesRoot, tag: &str, len: u64) -> (FileTransfer, Progress) {
    let path = std::env::temp_dir().join(format!("iouring-sendfile-{tag}-{}", std::process::id()));
    std::fs::write(&path, vec![7u8; len as usize]).unwrap();
    let fd = std::fs::File::open(&path).unwrap().into_raw_fd();
    std::fs::remove_file(&path).unwrap();
    let request = FileRequest {
        name: FileName::from_path("/files/a").unwrap(),
        head_only: false,
        persistence: Persistence::KeepAlive,
    };
    let mut transfer = FileTransfer::new(request, root, (FileScratch::new(), Vec::new()), true);
    assert_eq!(transfer.completed(fd), Progress::Continue);
    let progress = stat(&mut transfer, true, len);
    (transfer, progress)
}

#[test]
fn a_large_cached_file_is_sent_by_sendfile_after_the_output_before_it() {
    let len = SENDFILE_MIN * 3;
    let (mut transfer, head) = cached_file_transfer("large", len);
    assert_eq!(head, Progress::Head { len, done: false });
    assert!(transfer.sends_body_next(), "the head's send may say more follows");
    assert_eq!(transfer.allocated(), 0, "no read buffer is grown");
    assert_eq!(transfer.wants(false, false), None, "not before the head is sent");
    assert_eq!(transfer.wants(false, true), Some(FileOp::Sendfile));
    let (_, offset, count) = transfer.sendfile_args();
    assert_eq!((offset, count), (0, len));

    assert_eq!(transfer.completed(-libc::EAGAIN), Progress::Continue);
    assert_eq!(
        transfer.wants(false, true),
        Some(FileOp::PollOut),
        "a full socket is waited for"
    );
    assert_eq!(transfer.completed(libc::POLLOUT as i32), Progress::Continue);
    assert_eq!(transfer.wants(false, true), Some(FileOp::Sendfile));

    assert_eq!(transfer.completed(1000), Progress::Continue, "a short count");
    assert_eq!(transfer.wants(false, true), Some(FileOp::PollOut));
    transfer.completed(libc::POLLOUT as i32);
    let (_, offset, count) = transfer.sendfile_args();
    assert_eq!((offset, count), (1000, len - 1000), "resumes after what was sent");
    assert_eq!(transfer.completed((len - 1000) as i32), Progress::Sent);
}

#[test]
fn sendfile_failures_break_the_response() {
    for (tag, result) in [("shrunk", 0), ("reset", -libc::ECONNRESET)] {
        let (mut transfer, _) = cached_file_transfer(tag, SENDFILE_MIN);
        assert_eq!(transfer.completed(result), Progress::Broken, "{tag}");
    }
    let (mut transfer, _) = cached_file_transfer("poll", SENDFILE_MIN);
    transfer.completed(-libc::EAGAIN);
    assert_eq!(transfer.completed(-libc::ECANCELED), Progress::Broken);
}

#[test]
fn a_file_sendfile_cannot_send_is_read_from_where_it_stopped() {
    for (tag, errno) in [("einval", libc::EINVAL), ("eopnotsupp", libc::EOPNOTSUPP)] {
        let len = SENDFILE_MIN * 5;
        let (mut transfer, _) = cached_file_transfer(tag, len);
        assert_eq!(transfer.completed(1000), Progress::Continue, "{tag}");
        transfer.completed(libc::POLLOUT as i32);
        assert_eq!(transfer.completed(-errno), Progress::Continue, "{tag}");
        assert!(
            matches!(transfer.step(), Step::Stream { len: l, read: 1000 } if l == len),
            "{tag}"
        );
        assert!(!transfer.sends_body_next(), "{tag}: the chunks follow the head");
        assert_eq!(transfer.wants(false, true), Some(FileOp::Read), "{tag}");
        let (_, room, offset) = transfer.read_args();
        assert_eq!((room.len(), offset), (FILE_CHUNK, 1000), "{tag}");
        let chunk = Progress::Chunk {
            n: FILE_CHUNK,
            done: false,
        };
        assert_eq!(transfer.completed(FILE_CHUNK as i32), chunk, "{tag}");
    }
}

#[test]
fn a_file_sendfile_refuses_at_once_is_read_whole() {
    let len = SENDFILE_MIN * 2;
    let (mut transfer, _) = cached_file_transfer("refused", len);
    assert_eq!(transfer.completed(-libc::EINVAL), Progress::Continue);
    let (_, room, offset) = transfer.read_args();
    assert_eq!(
        (room.len() as u64, offset),
        (len, 0),
        "the whole file, from its start"
    );
    let last = Progress::Chunk {
        n: len as usize,
        done: true,
    };
    assert_eq!(transfer.completed(len as i32), last);
}

#[test]
fn a_small_file_is_read_even_where_sendfile_may_be_used() {
    let (transfer, _) = cached_file_transfer("small", SENDFILE_MIN - 1);
    assert!(!transfer.sends_body_next());
    assert_eq!(transfer.wants(false, true), Some(FileOp::Read));
}

#[test]
fn only_bytes_sent_count_as_progress_while_the_socket_is_waited_for() {
    let (mut transfer, _) = cached_file_transfer("progress", SENDFILE_MIN);
    assert!(!transfer.progressed(-libc::EAGAIN));
    assert!(transfer.progressed(100));
    transfer.completed(-libc::EAGAIN);
    assert!(
        !transfer.progressed(libc::POLLOUT as i32),
        "a POLLOUT alone is no progress"
    );
}

#[test]
fn a_cached_file_where_reads_may_block_is_read_on_io_wq_never_sent_by_sendfile() {
    let elsewhere = FilesRoot {
        nowait_reads: false,
        ..ROOT
    };
    let len = SENDFILE_MIN * 2;
    let (premise, _) = cached_file_transfer("premise", len);
    assert!(premise.sends_body_next(), "where reads cannot wait, sendfile");
    let (transfer, head) = cached_file_transfer_in(elsewhere, "blocking-root", len);
    assert_eq!(head, Progress::Head { len, done: false });
    assert!(
        !transfer.sends_body_next(),
        "not by sendfile on the ring's thread"
    );
    assert_eq!(transfer.wants(false, true), Some(FileOp::Read));
    let other_mount = FilesRoot { mount: 5, ..ROOT };
    let (transfer, _) = cached_file_transfer_in(other_mount, "other-mount", len);
    assert_eq!(
        transfer.wants(false, true),
        Some(FileOp::Read),
        "a file on another mount than the root's"
    );
}
