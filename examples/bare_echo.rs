//! The bench's ceiling (`npm run bench service`): the least an HTTP/1.1 service on this stack
//! can do per call. A hyper 1 server on the tokio runtime the pack service runs on
//! (`runtime::build`: multi-threaded, a worker per core but one), TCP_NODELAY on, that reads
//! each request's whole body and answers it back as `application/json`.
//!
//! `cargo run --release --example bare_echo [-- --host 127.0.0.1 --port 0]`; once bound it writes
//! `{"kind":"listening","port":N}` on stderr, as the pack service processes do.

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::header::{HeaderValue, CONTENT_TYPE};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use std::convert::Infallible;
use tokio::net::TcpListener;

async fn echo(req: Request<Incoming>) -> Result<Response<Full<Bytes>>, Infallible> {
    let body = match req.into_body().collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(_) => Bytes::new(),
    };
    let mut response = Response::new(Full::new(body));
    response.headers_mut().insert(
        CONTENT_TYPE,
        HeaderValue::from_static("application/json; charset=utf-8"),
    );
    Ok(response)
}

fn flag(args: &[String], name: &str) -> Option<String> {
    let at = args.iter().position(|a| a == name)?;
    args.get(at + 1).cloned()
}

fn main() -> std::io::Result<()> {
    kindgi_handler_runtime_native::runtime::build()?.block_on(serve_until_killed())
}

async fn serve_until_killed() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let host = flag(&args, "--host").unwrap_or_else(|| "127.0.0.1".into());
    let port: u16 = flag(&args, "--port")
        .map_or(Ok(0), |p| p.parse())
        .map_err(|e| {
            std::io::Error::new(std::io::ErrorKind::InvalidInput, format!("--port: {e}"))
        })?;
    let listener = TcpListener::bind((host.as_str(), port)).await?;
    eprintln!(
        "{{\"kind\":\"listening\",\"port\":{}}}",
        listener.local_addr()?.port()
    );
    loop {
        // A failed accept (the peer reset first) ends that connection only.
        let Ok((stream, _)) = listener.accept().await else {
            continue;
        };
        let _ = stream.set_nodelay(true);
        tokio::spawn(async move {
            // A client's reset ends its connection only.
            let _ = http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service_fn(echo))
                .await;
        });
    }
}
