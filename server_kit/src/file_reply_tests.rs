//! Tests of [`super`]: a file that ends early before or after its head, and the
//! answers tokio's files give (head and first chunk, 404s).

use super::*;
use crate::tokio_files::TokioFiles;
use http_core::response::Persistence;

/// Files that claim [`SHRUNK_LEN`] bytes but hold as many as their name says (the
/// `File` is that number): truncated while served.
struct Shrunk;
const SHRUNK_LEN: u64 = 2 * FILE_CHUNK as u64;

impl FileIo for Shrunk {
    type File = usize;

    async fn open(path: &Path) -> io::Result<usize> {
        Ok(path.file_name().unwrap().to_str().unwrap().parse().unwrap())
    }

    async fn metadata(_: &usize) -> io::Result<(bool, u64)> {
        Ok((true, SHRUNK_LEN))
    }

    fn let_reads_wait(_: &usize) -> io::Result<()> {
        Ok(())
    }

    async fn read(file: &mut usize, offset: u64, buffer: &mut Vec<u8>, len: usize) -> io::Result<usize> {
        let n = len.min(file.saturating_sub(offset as usize));
        buffer.resize(buffer.len() + n, 7);
        Ok(n)
    }
}

/// A socket that takes everything.
#[derive(Default)]
struct Sink {
    sent: usize,
}

impl Transport for Sink {
    type Files = Shrunk;

    async fn receive(&mut self, _: &mut Vec<u8>, _: usize) -> io::Result<usize> {
        Ok(0)
    }

    async fn send_all(&mut self, output: &mut Output) -> io::Result<()> {
        self.sent += output.len();
        Ok(())
    }

    async fn finish(&mut self) -> io::Result<()> {
        Ok(())
    }

    async fn discard(&mut self) -> io::Result<usize> {
        Ok(0)
    }
}

#[tokio::test]
async fn a_file_that_ends_early_after_its_head_fails_the_stream() {
    let name = (FILE_CHUNK + 10).to_string();
    let mut output = Output::default();
    let begun = begin::<Shrunk>(Some(Path::new("/")), &request(&name, false), &mut output, false).await;
    let rest = begun.rest.expect("the first chunk was there");
    let mut sink = Sink::default();
    let streamed = stream(&mut sink, rest, &mut Output::default(), &Activity::new()).await;
    assert_eq!(streamed.unwrap_err().kind(), io::ErrorKind::UnexpectedEof);
    assert_eq!(sink.sent, 0, "no part of a chunk the file did not fill is sent");
}

#[tokio::test]
async fn a_file_that_ends_before_its_head_went_out_is_a_500() {
    let mut output = Output::default();
    http_core::output::Sink::push(&mut output, b"EARLIER");
    let begun = begin::<Shrunk>(Some(Path::new("/")), &request("5", false), &mut output, false).await;
    assert!(begun.close && begun.rest.is_none());
    let text = String::from_utf8(output.to_vec()).unwrap();
    assert!(text.starts_with("EARLIERHTTP/1.1 500 "), "{text}");
    assert!(!text.contains(" 200 "), "{text}");
}

fn request(name: &str, head_only: bool) -> FileRequest {
    FileRequest {
        name: http_core::files::FileName::from_path(&format!("/files/{name}")).unwrap(),
        head_only,
        persistence: Persistence::KeepAlive,
    }
}

fn root_with(files: &[(&str, usize)]) -> std::path::PathBuf {
    // One directory per file set (its first name too): tests run at once and remove theirs.
    let first = files.first().map_or("", |(name, _)| name);
    let root = std::env::temp_dir().join(format!(
        "file-reply-{}-{}-{first}",
        std::process::id(),
        files.len()
    ));
    std::fs::create_dir_all(&root).unwrap();
    for (name, len) in files {
        let bytes: Vec<u8> = (0..*len).map(|i| (i % 251) as u8).collect();
        std::fs::write(root.join(name), bytes).unwrap();
    }
    root
}

#[tokio::test]
async fn appends_head_and_first_chunk_after_earlier_responses() {
    let root = root_with(&[("small", 1000), ("large", FILE_CHUNK + 10)]);
    let mut output = Output::default();
    http_core::output::Sink::push(&mut output, b"EARLIER");
    let begun = begin::<TokioFiles>(Some(&root), &request("small", false), &mut output, false).await;
    assert!(!begun.close && begun.rest.is_none());
    let bytes = output.to_vec();
    assert!(bytes.starts_with(b"EARLIERHTTP/1.1 200 OK\r\n"));
    assert!(bytes.ends_with(&[(999 % 251) as u8]));
    assert_eq!(
        bytes.len() - bytes.windows(4).position(|w| w == b"\r\n\r\n").unwrap() - 4,
        1000
    );

    let mut output = Output::default();
    let begun = begin::<TokioFiles>(Some(&root), &request("large", false), &mut output, false).await;
    let rest = begun.rest.expect("a file over one chunk is streamed");
    assert_eq!((rest.offset, rest.left), (FILE_CHUNK as u64, 10));

    let mut output = Output::default();
    let begun = begin::<TokioFiles>(Some(&root), &request("large", true), &mut output, false).await;
    assert!(begun.rest.is_none(), "HEAD reads nothing");
    assert!(
        output
            .to_vec()
            .ends_with(format!("Content-Length: {}\r\n\r\n", FILE_CHUNK + 10).as_bytes())
    );
    std::fs::remove_dir_all(root).unwrap();
}

#[tokio::test]
async fn missing_files_directories_and_no_root_are_404() {
    let root = root_with(&[]);
    std::fs::create_dir_all(root.join("dir")).unwrap();
    for (root, name) in [
        (Some(root.as_path()), "absent"),
        (Some(&root), "dir"),
        (None, "absent"),
    ] {
        let mut output = Output::default();
        let begun = begin::<TokioFiles>(root, &request(name, false), &mut output, false).await;
        assert!(!begun.close && begun.rest.is_none());
        assert!(output.to_vec().starts_with(b"HTTP/1.1 404 "), "{name}");
    }
    std::fs::remove_dir_all(root).unwrap();
}

#[tokio::test]
async fn with_sendfile_a_large_file_gets_its_head_only_and_a_small_one_its_bytes() {
    let large = http_core::files::SENDFILE_MIN as usize;
    let root = root_with(&[("sendfile-small", 1000), ("sendfile-large", large)]);
    let mut output = Output::default();
    let begun = begin::<TokioFiles>(Some(&root), &request("sendfile-large", false), &mut output, true).await;
    let rest = begun.rest.expect("the body is left to sendfile");
    assert!(rest.by_sendfile && rest.offset == 0 && rest.left == large as u64);
    let text = String::from_utf8(output.to_vec()).unwrap();
    assert!(text.ends_with("\r\n\r\n"), "the head alone: {text}");
    let mut output = Output::default();
    let begun = begin::<TokioFiles>(Some(&root), &request("sendfile-small", false), &mut output, true).await;
    assert!(begun.rest.is_none(), "a small file goes out whole with its head");
    assert!(output.len() > 1000);
}
