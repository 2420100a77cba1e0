//! `GET|HEAD /files/{name}` on the hyper engine, served as hyper users serve files: a
//! `tokio::fs::File` (opened as every server opens it, `server_kit::file_reply::open`), a
//! file of up to [`FILE_CHUNK`] read whole into the body, a larger one streamed one chunk
//! per frame ([`FileBody`]). The headers are the contract's: Server, Date (hyper's),
//! Content-Type `application/octet-stream` and Content-Length. A file that ends early
//! while streamed errors the body, and hyper closes the connection.

use std::io;
use std::path::Path;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

use bytes::{Bytes, BytesMut};
use http_body_util::{Either, Full};
use http_core::files::{FILE_CHUNK, FileAnswer, FileName};
use http_core::response::SERVER_NAME;
use http_core::routes::{OCTET_STREAM, plain_error};
use hyper::body::{Body, Frame, SizeHint};
use hyper::header::{CONNECTION, CONTENT_LENGTH, CONTENT_TYPE, HeaderValue, SERVER};
use hyper::{Response, StatusCode};
use server_kit::file_reply;
use server_kit::tokio_files::TokioFiles;
use tokio::fs::File;
use tokio::io::AsyncReadExt;

use crate::hyper_reply::{build, refuse};

/// A response body: bytes in memory, or a file streamed.
pub type AnswerBody = Either<Full<Bytes>, FileBody>;

/// The answer to a file request for `name` in `root`; `close` as the request's headers say.
pub async fn respond(
    name: FileName,
    head_only: bool,
    root: Option<&Path>,
    close: bool,
) -> Response<AnswerBody> {
    let (file, len) = match file_reply::open::<TokioFiles>(root, &name).await {
        Ok(found) => found,
        Err(FileAnswer::Missing) => {
            let reply = plain_error(404);
            let body = Bytes::copy_from_slice(reply.body.as_bytes());
            return build(&reply, body, close).map(Either::Left);
        }
        Err(_) => return refuse(500).map(Either::Left),
    };
    let body = if head_only {
        Either::Left(Full::default())
    } else if len <= FILE_CHUNK as u64 {
        match read_whole(file, len).await {
            Ok(bytes) => Either::Left(Full::new(bytes)),
            Err(_) => return refuse(500).map(Either::Left),
        }
    } else {
        Either::Right(FileBody::new(file, len))
    };
    let mut response = Response::new(body);
    *response.status_mut() = StatusCode::OK;
    let headers = response.headers_mut();
    headers.insert(SERVER, HeaderValue::from_static(SERVER_NAME));
    headers.insert(
        CONTENT_TYPE,
        HeaderValue::from_bytes(OCTET_STREAM).expect("a valid value"),
    );
    headers.insert(CONTENT_LENGTH, HeaderValue::from(len));
    if close {
        headers.insert(CONNECTION, HeaderValue::from_static("close"));
    }
    response
}

/// All `len` bytes of a small file; one that ends early is an error.
async fn read_whole(mut file: File, len: u64) -> io::Result<Bytes> {
    let mut bytes = Vec::with_capacity(len as usize);
    (&mut file).take(len).read_to_end(&mut bytes).await?;
    if bytes.len() as u64 != len {
        return Err(io::ErrorKind::UnexpectedEof.into());
    }
    Ok(Bytes::from(bytes))
}

/// A file larger than one chunk, read one [`FILE_CHUNK`] at most per frame.
pub struct FileBody {
    file: File,
    left: u64,
    buffer: BytesMut,
}

impl FileBody {
    fn new(file: File, len: u64) -> FileBody {
        FileBody {
            file,
            left: len,
            buffer: BytesMut::new(),
        }
    }
}

impl Body for FileBody {
    type Data = Bytes;
    type Error = io::Error;

    fn poll_frame(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<io::Result<Frame<Bytes>>>> {
        let this = self.get_mut();
        if this.left == 0 {
            return Poll::Ready(None);
        }
        let chunk = this.left.min(FILE_CHUNK as u64);
        this.buffer.reserve(chunk as usize);
        let mut limited = (&mut this.file).take(chunk);
        let read = ready!(tokio_util::io::poll_read_buf(
            Pin::new(&mut limited),
            cx,
            &mut this.buffer
        ));
        match read {
            // The file ended before its length: the response cannot be completed.
            Ok(0) => Poll::Ready(Some(Err(io::ErrorKind::UnexpectedEof.into()))),
            Ok(n) => {
                this.left -= n as u64;
                Poll::Ready(Some(Ok(Frame::data(this.buffer.split().freeze()))))
            }
            Err(error) => Poll::Ready(Some(Err(error))),
        }
    }

    fn is_end_stream(&self) -> bool {
        self.left == 0
    }

    fn size_hint(&self) -> SizeHint {
        SizeHint::with_exact(self.left)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use http_body_util::BodyExt;

    #[tokio::test]
    async fn a_file_that_ends_early_errors_the_body() {
        let path = std::env::temp_dir().join(format!("hyper-files-{}", std::process::id()));
        std::fs::write(&path, vec![7u8; FILE_CHUNK + 10]).unwrap();
        let file = File::open(&path).await.unwrap();
        // Its length when the head was sent: one more chunk than it now holds.
        let mut body = FileBody::new(file, 2 * FILE_CHUNK as u64 + 10);
        let mut received = 0;
        let error = loop {
            match body
                .frame()
                .await
                .expect("the body ends with an error, not early")
            {
                Ok(frame) => received += frame.into_data().unwrap().len(),
                Err(error) => break error,
            }
        };
        std::fs::remove_file(&path).unwrap();
        assert_eq!(received, FILE_CHUNK + 10);
        assert_eq!(error.kind(), io::ErrorKind::UnexpectedEof);
    }
}
