//! The bench's load generator (`npm run bench service`): N keep-alive HTTP/1.1 connections to
//! one address, each with one request in flight at a time, for a warm-up and then a measured
//! window; every latency in the window is recorded. The same bytes go to every target, so the
//! client's cost is the same for each; on one tokio thread by default, so it takes at most one
//! core from the server it measures.
//!
//! ```sh
//! cargo run --release --example load -- --addr 127.0.0.1:8080 --request req.http \
//!   [--connections 32] [--warmup 1] [--seconds 3] [--threads 1]
//! ```
//!
//! `--request` is a file holding one whole request (head and body) as it goes on the wire; it
//! must keep the connection alive. The answers must carry `content-length` (no chunked bodies).
//! Prints one JSON line: `connections`, `seconds`, `requests` (completed inside the window),
//! `rps`, `p50Us`, `p90Us`, `p99Us`, `maxUs`, `non200` (answers with another status, counted in
//! `requests` as well) and `errors` (failed connects, resets, timeouts, unreadable answers:
//! the connection is opened again).

use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// The longest one request may take before it counts as an error.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);

struct Options {
    addr: String,
    request: Arc<[u8]>,
    connections: usize,
    warmup: Duration,
    seconds: Duration,
    threads: usize,
}

#[derive(Default)]
struct Tally {
    latencies_ns: Vec<u64>,
    non200: u64,
    errors: u64,
}

fn usage(problem: &str) -> ! {
    eprintln!("load: {problem}\nusage: load --addr HOST:PORT --request FILE [--connections N] [--warmup S] [--seconds S] [--threads N]");
    std::process::exit(2);
}

fn options() -> Options {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let flag = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|at| args.get(at + 1).cloned())
    };
    let number = |name: &str, default: f64| match flag(name) {
        None => default,
        Some(text) => match text.parse::<f64>() {
            Ok(n) if n.is_finite() && n >= 0.0 => n,
            _ => usage(&format!("{name} must be a number, got {text}")),
        },
    };
    let addr = flag("--addr").unwrap_or_else(|| usage("--addr is required"));
    let path = flag("--request").unwrap_or_else(|| usage("--request is required"));
    let request = std::fs::read(&path).unwrap_or_else(|e| usage(&format!("{path}: {e}")));
    let connections = number("--connections", 32.0) as usize;
    let threads = number("--threads", 1.0) as usize;
    if connections == 0 || threads == 0 {
        usage("--connections and --threads must be at least 1");
    }
    Options {
        addr,
        request: request.into(),
        connections,
        warmup: Duration::from_secs_f64(number("--warmup", 1.0)),
        seconds: Duration::from_secs_f64(number("--seconds", 3.0).max(0.1)),
        threads,
    }
}

/// The status and the length of a whole answer at the front of `buf`, once its head is there.
fn answer_size(buf: &[u8]) -> Result<Option<(u16, usize)>, &'static str> {
    let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") else {
        return Ok(None);
    };
    let head = std::str::from_utf8(&buf[..end]).map_err(|_| "answer head is not UTF-8")?;
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .and_then(|line| line.split(' ').nth(1))
        .and_then(|code| code.parse().ok())
        .ok_or("no status line")?;
    let length = lines
        .filter_map(|line| line.split_once(':'))
        .find(|(name, _)| name.trim().eq_ignore_ascii_case("content-length"))
        .and_then(|(_, value)| value.trim().parse::<usize>().ok())
        .ok_or("no content-length")?;
    Ok(Some((status, end + 4 + length)))
}

/// Sends one request and reads its answer; the status.
async fn exchange(
    stream: &mut TcpStream,
    request: &[u8],
    buf: &mut Vec<u8>,
) -> Result<u16, String> {
    stream.write_all(request).await.map_err(|e| e.to_string())?;
    buf.clear();
    loop {
        if let Some((status, size)) = answer_size(buf)? {
            while buf.len() < size {
                if stream.read_buf(buf).await.map_err(|e| e.to_string())? == 0 {
                    return Err("closed mid-answer".into());
                }
            }
            return Ok(status);
        }
        if stream.read_buf(buf).await.map_err(|e| e.to_string())? == 0 {
            return Err("closed before an answer".into());
        }
    }
}

async fn connection(addr: Arc<str>, request: Arc<[u8]>, from: Instant, until: Instant) -> Tally {
    let mut tally = Tally::default();
    let mut buf = Vec::with_capacity(256 * 1024);
    'connect: while Instant::now() < until {
        let mut stream = match TcpStream::connect(&*addr).await {
            Ok(stream) => stream,
            Err(_) => {
                tally.errors += 1;
                tokio::time::sleep(Duration::from_millis(10)).await;
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        loop {
            let start = Instant::now();
            if start >= until {
                break 'connect;
            }
            let answer =
                tokio::time::timeout(REQUEST_TIMEOUT, exchange(&mut stream, &request, &mut buf))
                    .await;
            let done = Instant::now();
            match answer {
                Ok(Ok(status)) => {
                    // Only calls wholly inside the measured window count.
                    if start >= from && done <= until {
                        tally.latencies_ns.push((done - start).as_nanos() as u64);
                        if status != 200 {
                            tally.non200 += 1;
                        }
                    }
                }
                _ => {
                    tally.errors += 1;
                    continue 'connect;
                }
            }
        }
    }
    tally
}

/// The nearest-rank percentile of sorted values.
fn percentile(sorted: &[u64], p: f64) -> u64 {
    if sorted.is_empty() {
        return 0;
    }
    let rank = (p * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

fn main() {
    let options = options();
    let runtime = if options.threads == 1 {
        tokio::runtime::Builder::new_current_thread()
    } else {
        let mut builder = tokio::runtime::Builder::new_multi_thread();
        builder.worker_threads(options.threads);
        builder
    }
    .enable_all()
    .build()
    .unwrap_or_else(|e| usage(&format!("no runtime: {e}")));
    let tally = runtime.block_on(async {
        let from = Instant::now() + options.warmup;
        let until = from + options.seconds;
        let addr: Arc<str> = options.addr.as_str().into();
        let tasks: Vec<_> = (0..options.connections)
            .map(|_| {
                tokio::spawn(connection(
                    Arc::clone(&addr),
                    Arc::clone(&options.request),
                    from,
                    until,
                ))
            })
            .collect();
        let mut all = Tally::default();
        for task in tasks {
            if let Ok(one) = task.await {
                all.latencies_ns.extend(one.latencies_ns);
                all.non200 += one.non200;
                all.errors += one.errors;
            }
        }
        all
    });
    let mut sorted = tally.latencies_ns;
    sorted.sort_unstable();
    let us = |ns: u64| ns as f64 / 1000.0;
    let seconds = options.seconds.as_secs_f64();
    println!(
        "{{\"connections\":{},\"seconds\":{},\"requests\":{},\"rps\":{:.1},\"p50Us\":{:.1},\"p90Us\":{:.1},\"p99Us\":{:.1},\"maxUs\":{:.1},\"non200\":{},\"errors\":{}}}",
        options.connections,
        seconds,
        sorted.len(),
        sorted.len() as f64 / seconds,
        us(percentile(&sorted, 0.50)),
        us(percentile(&sorted, 0.90)),
        us(percentile(&sorted, 0.99)),
        us(sorted.last().copied().unwrap_or(0)),
        tally.non200,
        tally.errors,
    );
}
