//! The `hyper` engine: hyper 1.x's HTTP/1 server, answering through http_core's header
//! rules and routes so that statuses and headers match the codec engine wherever hyper
//! lets them. Where hyper itself refuses a request before our service sees it, hyper's
//! answer stands; the conformance suite names those cases. Files (`/files/{name}`) are
//! served by [`crate::hyper_files`], uploads (`POST /upload`) by [`crate::hyper_upload`].

use std::convert::Infallible;
use std::path::Path;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use bytes::Bytes;
use http_body_util::{BodyExt, Either, Limited};
use http_core::headers;
use http_core::routes::{self, Body, RouteRequest};
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response, Version};
use hyper_util::rt::TokioIo;
use server_kit::{Activity, Settings};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

use crate::hyper_files::{self, AnswerBody};
use crate::hyper_reply::{build, refuse};
use crate::hyper_upload;

/// hyper parses up to this many headers in a stack array; a larger `max_headers` moves
/// them to the heap for every request, so below it our service enforces the limit.
const HYPER_STACK_HEADERS: usize = 100;

/// Serves one connection. hyper is configured as its users configure it (its defaults:
/// keep-alive on, lower-case header names, no pipeline flush), changing only what the
/// contract needs; each setting says why. Measured on 2 CPUs (server pinned to one,
/// loadgen's 256 connections on the other, six interleaved rounds, server CPU per
/// request from /proc/PID/stat): title-case headers, the [`Tracked`] wrapper,
/// http_core's header checks and `pipeline_flush(true)` each changed it by less than the
/// rounds' spread (per-round ratios 0.83-1.25 around medians of 0.97-1.03), closed and
/// 16-deep pipelined alike; the first three off together saved 7% closed (0.89-0.97 per
/// round) and nothing pipelined, and bare hyper (`floors/`) used 0.94-0.96 of this
/// engine's CPU. So only what the contract needs is kept, and what it needs stays.
pub async fn serve<S>(stream: S, settings: Settings)
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let activity = Activity::new();
    // The watchdog's eyes: the contract's two timeouts (a partly sent request silent for
    // the request timeout, an idle keep-alive connection for the idle timeout) need to
    // know when bytes last moved, which hyper does not say.
    let io = TokioIo::new(Tracked {
        stream,
        activity: activity.clone(),
    });
    let limits = settings.limits;
    let root = settings.files_dir.clone();
    let service = service_fn(move |request| respond(request, limits, root.clone()));
    let connection = http1::Builder::new()
        // Our watchdog applies both timeouts; hyper's own header timeout would also close
        // idle keep-alive connections after the (shorter) request timeout. With it off,
        // hyper needs no timer.
        .header_read_timeout(None)
        // pipeline_flush stays at hyper's default (off). It once lost the response before a
        // `Connection: close`; with hyper 1.12 that was not seen again (1,000 connections
        // pipelining 1-5 requests then a close, in one write or two; the conformance
        // suite passes with it), but it is marked experimental and saved no CPU here,
        // 16 deep pipelined included.
        // The contract's limits: hyper refuses a head over `max_head_bytes` itself, and
        // below its stack array of headers our service counts them (see `respond`).
        .max_headers(limits.max_headers.max(HYPER_STACK_HEADERS))
        .max_header_size(limits.max_head_bytes)
        .serve_connection(io, service);
    tokio::pin!(connection);
    tokio::select! {
        _ = connection.as_mut() => return,
        _ = activity.expired(settings.deadlines(), tokio::time::sleep) => return,
        _ = settings.shutdown.cancelled() => connection.as_mut().graceful_shutdown(),
    }
    let _ = connection.await;
}

async fn respond(
    request: Request<Incoming>,
    limits: http_core::Limits,
    root: Option<Arc<Path>>,
) -> Result<Response<AnswerBody>, Infallible> {
    let (parts, body) = request.into_parts();
    // hyper has parsed and framed the request; http_core's rules add what hyper leaves
    // to the application (one Host in HTTP/1.1, the header count under hyper's stack
    // array, the Content-Type to echo, whether to close), so both engines answer alike.
    let minor = u8::from(parts.version != Version::HTTP_10);
    if parts.headers.len() > limits.max_headers {
        return Ok(refuse(431).map(Either::Left));
    }
    let pairs = parts
        .headers
        .iter()
        .map(|(name, value)| (name.as_str(), value.as_bytes()));
    let target = parts.uri.path_and_query().map_or("/", |p| p.as_str());
    let method = parts.method.as_str();
    let info = match headers::inspect(minor, pairs, &routes::limits_for(&limits, method, target)) {
        Ok(info) => info,
        Err(error) => return Ok(refuse(error.status()).map(Either::Left)),
    };
    if routes::is_upload(method, target) {
        let answer = hyper_upload::respond(body, limits.max_upload_bytes, !info.keep_alive).await;
        return Ok(answer.map(Either::Left));
    }
    let body = match Limited::new(body, limits.max_body_bytes).collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(error) if error.is::<http_body_util::LengthLimitError>() => {
            return Ok(refuse(413).map(Either::Left));
        }
        Err(_) => return Ok(refuse(400).map(Either::Left)),
    };
    if let Some(name) = routes::requested_file(parts.method.as_str(), target) {
        let head_only = parts.method == hyper::Method::HEAD;
        let close = !info.keep_alive;
        return Ok(hyper_files::respond(name, head_only, root.as_deref(), close).await);
    }
    let reply = routes::route(&RouteRequest {
        method: parts.method.as_str(),
        target,
        content_type: info.content_type,
        body: &body,
    });
    let payload = match &reply.body {
        Body::Static(bytes) => Bytes::from_static(bytes),
        Body::Borrowed(bytes) => body.slice_ref(bytes),
        Body::Owned(bytes) => Bytes::copy_from_slice(bytes),
    };
    Ok(build(&reply, payload, !info.keep_alive).map(Either::Left))
}

/// The stream (TCP, or TLS over it), recording progress for the timeout watchdog: a read
/// means a request is arriving, a write means it was answered.
struct Tracked<S> {
    stream: S,
    activity: Arc<Activity>,
}

impl<S: AsyncRead + Unpin> AsyncRead for Tracked<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let result = Pin::new(&mut self.stream).poll_read(cx, buf);
        if buf.filled().len() > before {
            self.activity.read(buf.filled().len() - before);
        }
        result
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Tracked<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        data: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        let result = Pin::new(&mut self.stream).poll_write(cx, data);
        if let Poll::Ready(Ok(1..)) = result {
            self.activity.touch(false);
        }
        result
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        let result = Pin::new(&mut self.stream).poll_write_vectored(cx, bufs);
        if let Poll::Ready(Ok(1..)) = result {
            self.activity.touch(false);
        }
        result
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }
}
