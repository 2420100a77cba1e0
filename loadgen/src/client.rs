//! What one client does until the run ends: hold one keep-alive connection and send on
//! it (a batch of `depth` pipelined requests at a time in the closed loop, one request per
//! slot of its schedule in the open loop; in the file mode each request names a file the
//! connection's seeded picker chose), or with churn make a new connection per
//! request, or per few requests (`churn.rs`): connect, send, read and validate each
//! answer, close, start over. Over TLS each new connection makes its handshake first
//! (counted in the `Tally`), and one the client closes says `close_notify`.
//! Every answer is recorded in the thread's `Tally`. A failed keep-alive connection ends
//! the client and fails the run; a failed churn connection is counted by kind and the
//! client goes on with the next one (any failure still fails the run).

use std::borrow::Cow;
use std::cell::RefCell;
use std::net::IpAddr;
use std::sync::atomic::Ordering;

use tokio::io::AsyncWriteExt;
use tokio::time::Instant;

use crate::churn::{self, Churn};
use crate::config::Config;
use crate::errors::{ErrorKind, Failure};
use crate::files;
use crate::pace::{Limits, Pacer};
use crate::read::{Inbox, read_response, within};
use crate::tally::Tally;
use crate::tls::{self, Stream};

/// Client `index`: one keep-alive connection for the whole run, or with churn one
/// connection after another from the run's `start`. Returns the keep-alive connection
/// once its schedule is done, for the thread to close when all its clients are: closed
/// at once, it would spend the client's CPU (a TLS connection's most) while the other
/// connections' last answers, whose latency is still measured, are arriving.
pub(crate) async fn client(
    config: &Config,
    limits: &Limits,
    sources: &[IpAddr],
    (index, start): (usize, Instant),
    tally: &RefCell<Tally>,
) -> Option<Stream> {
    let mut pacer = match Pacer::new(config.rate, config.connections, index) {
        Ok(pacer) => pacer,
        Err(e) => {
            limits.failed.store(true, Ordering::Relaxed);
            let failure = Failure::new(ErrorKind::Connect, format!("the thread's timerfd clock: {e}"));
            tally.borrow_mut().fail(failure);
            return None;
        }
    };
    if config.churn.is_some() {
        pacer.begin(start);
        connections(config, limits, pacer, (sources, index), tally).await;
        return None;
    }
    match within(limits.patience(), exchange(config, limits, (pacer, index), tally)).await {
        Ok(stream) => Some(stream),
        Err(failure) => {
            limits.failed.store(true, Ordering::Relaxed);
            tally.borrow_mut().fail(failure);
            None
        }
    }
}

async fn exchange(
    config: &Config,
    limits: &Limits,
    (mut pacer, index): (Pacer, usize),
    tally: &RefCell<Tally>,
) -> Result<Stream, Failure> {
    let mut stream = connect(config, None, limits.patience(), tally).await?;
    pacer.begin(Instant::now());
    // A single request is sent from the config's own bytes, never copied per connection
    // (an upload's request is tens of MiB); a pipelined batch or a file's request is built.
    let mut batch: Cow<[u8]> = match config.depth {
        1 => Cow::Borrowed(&config.request),
        depth => Cow::Owned(config.request.repeat(depth)),
    };
    let mut picker = config.files.as_ref().map(|files| files.picker(index));
    let mut picked: Vec<usize> = Vec::with_capacity(config.depth);
    let mut inbox = Inbox::default();
    loop {
        let Some(sending) = pacer.next(limits.deadline).await else {
            return Ok(stream);
        };
        if !limits.take(config.depth, sending.intended) {
            return Ok(stream);
        }
        if let (Some(files), Some(picker)) = (&config.files, &mut picker) {
            let batch = batch.to_mut();
            batch.clear();
            picked.clear();
            for _ in 0..config.depth {
                let index = picker.next_index();
                files::render(&config.request, &files.set, index, batch);
                picked.push(index);
            }
        }
        // The flush sends what TLS still holds after taking the bytes (nothing on TCP).
        let written = match stream.write_all(&batch).await {
            Ok(()) => stream.flush().await,
            Err(e) => Err(e),
        };
        written.map_err(|e| Failure::new(ErrorKind::Write, format!("write: {e}")))?;
        for answer in 0..config.depth {
            let file = picked.get(answer).copied();
            let read = read_response(&mut stream, &mut inbox, (config, file));
            match config.busy_poll {
                true => crate::spin::spinning(read).await?,
                false => read.await?,
            }
            tally.borrow_mut().record(sending, limits);
        }
    }
}

/// `config` with its request as churn sends it: with `Connection: close` added after the
/// request line when the server closes.
pub(crate) fn prepare(mut config: Config) -> Config {
    if config.churn == Some(Churn::ServerCloses) {
        config.request = churn::closing(&config.request);
    }
    config
}

/// Client `index`'s connections, one after another, until the run ends; `sources` are the
/// addresses to bind to in turn (starting at the client's own offset). Each connection
/// carries [`Config::requests_per_connection`] requests, one per slot of the schedule
/// (the first one's latency includes the connect), and is then closed.
async fn connections(
    config: &Config,
    limits: &Limits,
    mut pacer: Pacer,
    (sources, index): (&[IpAddr], usize),
    tally: &RefCell<Tally>,
) {
    let mut source = (!sources.is_empty()).then(|| index % sources.len());
    let mut open: Option<Open> = None;
    while let Some(sending) = pacer.next(limits.deadline).await {
        if !limits.take(1, sending.intended) {
            return;
        }
        let patience = limits.patience();
        let connection = match open.take() {
            Some(connection) => Ok(connection),
            None => {
                let from = source.map(|i| sources[i]);
                source = source.map(|i| (i + 1) % sources.len());
                connect(config, from, patience, tally).await.map(Open::new)
            }
        };
        let answered = match connection {
            Ok(connection) => within(patience, one_request(config, connection, patience)).await,
            Err(failure) => Err(failure),
        };
        match answered {
            Ok(kept) => {
                tally.borrow_mut().record(sending, limits);
                open = kept;
            }
            Err(failure) => tally.borrow_mut().fail(failure),
        }
    }
}

/// A new connection to the target (bound to `from` if given), after its TLS handshake
/// where it speaks TLS (counted in `tally`); given up at `patience`.
async fn connect(
    config: &Config,
    from: Option<IpAddr>,
    patience: Instant,
    tally: &RefCell<Tally>,
) -> Result<Stream, Failure> {
    let tcp = churn::connect_by(config.addr, from, patience).await?;
    let Some(tls) = &config.tls else {
        return Ok(Stream::Left(tcp));
    };
    let late = || {
        Failure::new(
            ErrorKind::Timeout,
            "TLS handshake: none within 5 s after the run's end",
        )
    };
    let (stream, negotiated) = tokio::time::timeout_at(patience, tls.handshake(tcp))
        .await
        .map_err(|_| late())??;
    tally.borrow_mut().handshook(negotiated);
    Ok(stream)
}

/// A churn connection between its requests: what it has read past the last answer, and
/// how many it has carried.
struct Open {
    stream: Stream,
    inbox: Inbox,
    carried: usize,
}

impl Open {
    fn new(stream: Stream) -> Open {
        Open {
            stream,
            inbox: Inbox::default(),
            carried: 0,
        }
    }
}

/// Send one request on `connection`, read and validate the answer; the connection back
/// while it has requests left to carry, else closed (by the server first where it closes;
/// over TLS, with `close_notify` where the client closes).
async fn one_request(
    config: &Config,
    mut connection: Open,
    patience: Instant,
) -> Result<Option<Open>, Failure> {
    let stream = &mut connection.stream;
    let written = match stream.write_all(&config.request).await {
        Ok(()) => stream.flush().await,
        Err(e) => Err(e),
    };
    written.map_err(|e| Failure::new(ErrorKind::Write, format!("write: {e}")))?;
    let (stream, inbox) = (&mut connection.stream, &mut connection.inbox);
    read_response(stream, inbox, (config, None)).await?;
    connection.carried += 1;
    if config.churn == Some(Churn::ServerCloses) {
        return match inbox.bytes_before_the_end(stream).await? {
            0 => Ok(None),
            n => Err(Failure::new(
                ErrorKind::Body,
                format!("{n} bytes after an answer to `Connection: close`"),
            )),
        };
    }
    if connection.carried < config.requests_per_connection {
        return Ok(Some(connection));
    }
    tls::close(connection.stream, patience).await;
    Ok(None)
}
