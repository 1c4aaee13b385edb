//! Test helpers shared by the HTTP integration tests: a raw HTTP/1.1 exchange on loopback
//! and a polling wait.
#![allow(dead_code)]

pub mod random;

use std::net::SocketAddr;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

#[derive(Debug)]
pub struct Answered {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Answered {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// Sends raw request bytes on a new connection and reads one response.
pub async fn exchange(addr: SocketAddr, request: &[u8]) -> Answered {
    let mut stream = TcpStream::connect(addr).await.expect("connect");
    stream.write_all(request).await.expect("send");
    read_response(&mut stream).await
}

pub async fn read_response(stream: &mut TcpStream) -> Answered {
    let mut raw = Vec::new();
    let mut chunk = [0u8; 8192];
    loop {
        if let Some(end) = raw.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&raw[..end]).into_owned();
            let mut lines = head.split("\r\n");
            let status = lines
                .next()
                .and_then(|l| l.split(' ').nth(1))
                .and_then(|s| s.parse().ok())
                .expect("a status line");
            let headers: Vec<(String, String)> = lines
                .filter_map(|l| l.split_once(':'))
                .map(|(n, v)| (n.to_ascii_lowercase(), v.trim().to_owned()))
                .collect();
            let length: usize = headers
                .iter()
                .find(|(n, _)| n == "content-length")
                .and_then(|(_, v)| v.parse().ok())
                .expect("a content-length");
            while raw.len() < end + 4 + length {
                let n = stream.read(&mut chunk).await.expect("read body");
                assert!(n > 0, "connection closed mid-body");
                raw.extend_from_slice(&chunk[..n]);
            }
            let body = String::from_utf8_lossy(&raw[end + 4..end + 4 + length]).into_owned();
            return Answered {
                status,
                headers,
                body,
            };
        }
        let n = stream.read(&mut chunk).await.expect("read head");
        assert!(n > 0, "connection closed before a response");
        raw.extend_from_slice(&chunk[..n]);
    }
}

/// Polls `condition` for up to 10 s (loaded CI machines are slow); fails the test after that.
pub async fn wait_until(condition: impl Fn() -> bool) {
    for _ in 0..2000 {
        if condition() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    panic!("the condition did not hold within 10 s");
}
