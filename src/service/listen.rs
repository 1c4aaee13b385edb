//! Opening a listening socket as Node's `server.listen(port, host)` does, so the service and
//! the supervisor's front bind where the TypeScript ones would and fail in the same words.
//!
//! - The host is looked up and the first address is used.
//! - An IPv6 socket also takes IPv4 (libuv clears `IPV6_V6ONLY` whatever the system default).
//! - With no host, `::` is tried first and `0.0.0.0` if that fails (no IPv6 on the machine).
//! - A failure reads as Node's error: `listen EADDRINUSE: address already in use 127.0.0.1:8080`.

use crate::js::uv_error;
use socket2::{Domain, Socket, Type};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use tokio::net::TcpListener;

/// Node's backlog for `server.listen`.
const BACKLOG: i32 = 511;

/// Why a listener could not be opened: the fields of Node's error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListenError {
    /// `EADDRINUSE`, `EACCES`, … (`ENOTFOUND` when the host does not resolve); `ELISTEN` when
    /// the system's error has no name here.
    pub code: String,
    /// Node's (negative) errno, when the system gave one.
    pub errno: Option<i32>,
    /// `listen`, or `getaddrinfo` when the host does not resolve.
    pub syscall: &'static str,
    /// The address tried (or the host that did not resolve).
    pub address: String,
    pub port: u16,
    pub message: String,
}

/// Binds `host:port` (port 0 picks a free one) as Node's `server.listen` does; `None` is
/// Node's default of every interface.
pub async fn listen(host: Option<&str>, port: u16) -> Result<TcpListener, ListenError> {
    let Some(host) = host else {
        let any_v6 = SocketAddr::new(IpAddr::V6(Ipv6Addr::UNSPECIFIED), port);
        let any_v4 = SocketAddr::new(IpAddr::V4(Ipv4Addr::UNSPECIFIED), port);
        return bind(any_v6).or_else(|_| bind(any_v4));
    };
    let first = tokio::net::lookup_host((host, port))
        .await
        .ok()
        .and_then(|mut found| found.next());
    match first {
        Some(address) => bind(address),
        None => Err(ListenError {
            code: "ENOTFOUND".into(),
            // libuv's UV_EAI_NONAME.
            errno: Some(-3008),
            syscall: "getaddrinfo",
            address: host.to_owned(),
            port,
            message: format!("getaddrinfo ENOTFOUND {host}"),
        }),
    }
}

fn bind(address: SocketAddr) -> Result<TcpListener, ListenError> {
    let opened = (|| {
        let socket = Socket::new(Domain::for_address(address), Type::STREAM, None)?;
        if address.is_ipv6() {
            socket.set_only_v6(false)?;
        }
        #[cfg(unix)]
        socket.set_reuse_address(true)?;
        socket.bind(&address.into())?;
        socket.listen(BACKLOG)?;
        socket.set_nonblocking(true)?;
        TcpListener::from_std(socket.into())
    })();
    opened.map_err(|error| refused(address, &error))
}

/// Node's error for a failed `listen` on `address`.
fn refused(address: SocketAddr, error: &std::io::Error) -> ListenError {
    let ip = address.ip().to_string();
    let port = address.port();
    let known = error
        .raw_os_error()
        .and_then(|errno| uv_error(errno).map(|(code, words)| (errno, code, words)));
    match known {
        Some((errno, code, words)) => ListenError {
            code: code.into(),
            errno: Some(-errno),
            syscall: "listen",
            message: format!("listen {code}: {words} {ip}:{port}"),
            address: ip,
            port,
        },
        None => ListenError {
            code: "ELISTEN".into(),
            errno: error.raw_os_error().map(|e| -e),
            syscall: "listen",
            message: format!("listen: {error} {ip}:{port}"),
            address: ip,
            port,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn binds_like_node_and_fails_in_its_words() {
        let taken = listen(Some("127.0.0.1"), 0).await.expect("a free port");
        let port = taken.local_addr().expect("bound").port();
        let busy = listen(Some("127.0.0.1"), port).await.expect_err("in use");
        assert_eq!(busy.code, "EADDRINUSE");
        assert_eq!(busy.syscall, "listen");
        assert_eq!(
            busy.message,
            format!("listen EADDRINUSE: address already in use 127.0.0.1:{port}")
        );
        assert_eq!((busy.address.as_str(), busy.port), ("127.0.0.1", port));
        #[cfg(target_os = "linux")]
        assert_eq!(busy.errno, Some(-98));

        let unknown = listen(Some("no-such-host.invalid"), 0)
            .await
            .expect_err("no host");
        assert_eq!(
            unknown.message,
            "getaddrinfo ENOTFOUND no-such-host.invalid"
        );
        assert_eq!(
            (unknown.code.as_str(), unknown.syscall),
            ("ENOTFOUND", "getaddrinfo")
        );
    }

    #[tokio::test]
    async fn every_interface_takes_ipv4_too() {
        let any = listen(None, 0).await.expect("every interface");
        let bound = any.local_addr().expect("bound");
        // IPv6 where the machine has it, and then IPv4 callers reach it as well.
        let v4 = SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), bound.port());
        let (connected, accepted) = tokio::join!(tokio::net::TcpStream::connect(v4), any.accept());
        assert!(connected.is_ok() && accepted.is_ok());
    }
}
