//! Opening a listening socket as Node's `server.listen(port, host)` does, so the service and
//! the supervisor's front bind where the TypeScript ones would and fail in the same words.
//!
//! - The host is looked up and the first address is used.
//! - An IPv6 socket also takes IPv4 (libuv clears `IPV6_V6ONLY` whatever the system default).
//! - With no host, `::` is tried first and `0.0.0.0` only if the IPv6 socket cannot be made or
//!   bound (no IPv6 on the machine). libuv keeps a `bind` that fails with EADDRINUSE for
//!   `listen` to report, so a port taken on either family fails as `:::PORT`, as in Node.
//! - A failure reads as Node's error: `listen EADDRINUSE: address already in use 127.0.0.1:8080`,
//!   the address as the caller wrote it when it is an IP literal (`fe80::1%lo`), and no
//!   `:port` when the port is 0.

use crate::js::uv_error;
use socket2::{Domain, Socket, Type};
use std::io;
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
        return listen_anywhere(port);
    };
    let first = tokio::net::lookup_host((host, port))
        .await
        .ok()
        .and_then(|mut found| found.next());
    match first {
        Some(address) => {
            // Node names an IP literal as written (`dns.lookup` hands it back unchanged) and
            // a looked-up address as the resolver gives it.
            let shown = if is_ip_literal(host) {
                host.to_owned()
            } else {
                address.ip().to_string()
            };
            bound(address)
                .and_then(listening)
                .map_err(|error| refused(&shown, port, &error))
        }
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

/// Every interface, as Node's `setupListenHandle` does it: `::` (taking IPv4 too), and
/// `0.0.0.0` only when the IPv6 socket cannot be made or bound. A bind that fails with
/// EADDRINUSE is no reason to fall back: libuv keeps that error for `listen` (its
/// `delayed_error`), so Node reports it for `::`.
fn listen_anywhere(port: u16) -> Result<TcpListener, ListenError> {
    const ANY_V6: &str = "::";
    match bound(SocketAddr::new(IpAddr::V6(Ipv6Addr::UNSPECIFIED), port)) {
        Ok(socket) => listening(socket).map_err(|error| refused(ANY_V6, port, &error)),
        Err(error) if error.kind() == io::ErrorKind::AddrInUse => {
            Err(refused(ANY_V6, port, &error))
        }
        Err(_) => bound(SocketAddr::new(IpAddr::V4(Ipv4Addr::UNSPECIFIED), port))
            .and_then(listening)
            .map_err(|error| refused("0.0.0.0", port, &error)),
    }
}

/// A socket bound to `address`, made as libuv's `uv_tcp_bind` makes it.
fn bound(address: SocketAddr) -> io::Result<Socket> {
    let socket = Socket::new(Domain::for_address(address), Type::STREAM, None)?;
    #[cfg(unix)]
    socket.set_reuse_address(true)?;
    if address.is_ipv6() {
        socket.set_only_v6(false)?;
    }
    socket.bind(&address.into())?;
    Ok(socket)
}

fn listening(socket: Socket) -> io::Result<TcpListener> {
    socket.listen(BACKLOG)?;
    socket.set_nonblocking(true)?;
    TcpListener::from_std(socket.into())
}

/// Whether Node's `net.isIP` takes `host` as an address: IPv4 dotted quads, IPv6 with an
/// optional zone (`fe80::1%lo`), which Rust's parser does not take.
fn is_ip_literal(host: &str) -> bool {
    if host.parse::<IpAddr>().is_ok() {
        return true;
    }
    match host.split_once('%') {
        Some((ip, zone)) => !zone.is_empty() && ip.parse::<Ipv6Addr>().is_ok(),
        None => false,
    }
}

/// Node's error for a failed `listen` on `address` (`UVExceptionWithHostPort`: the port is
/// left out of the message when it is 0).
fn refused(address: &str, port: u16, error: &io::Error) -> ListenError {
    let at = if port > 0 {
        format!("{address}:{port}")
    } else {
        address.to_owned()
    };
    let known = error
        .raw_os_error()
        .and_then(|errno| uv_error(errno).map(|(code, words)| (errno, code, words)));
    match known {
        Some((errno, code, words)) => ListenError {
            code: code.into(),
            errno: Some(-errno),
            syscall: "listen",
            message: format!("listen {code}: {words} {at}"),
            address: address.to_owned(),
            port,
        },
        None => ListenError {
            code: "ELISTEN".into(),
            errno: error.raw_os_error().map(|e| -e),
            syscall: "listen",
            message: format!("listen: {error} {at}"),
            address: address.to_owned(),
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

    /// Holds a port for the test's length with a listener on `address`.
    fn hold(address: SocketAddr, only_v6: bool) -> Option<(Socket, u16)> {
        let socket = Socket::new(Domain::for_address(address), Type::STREAM, None).ok()?;
        if only_v6 {
            socket.set_only_v6(true).ok()?;
        }
        socket.bind(&address.into()).ok()?;
        socket.listen(1).ok()?;
        let port = socket.local_addr().ok()?.as_socket()?.port();
        Some((socket, port))
    }

    #[cfg(unix)]
    #[tokio::test]
    async fn every_interface_fails_for_a_taken_port_without_falling_back() {
        let any_v6 = SocketAddr::new(IpAddr::V6(Ipv6Addr::UNSPECIFIED), 0);
        let any_v4 = SocketAddr::new(IpAddr::V4(Ipv4Addr::UNSPECIFIED), 0);
        // Taken on IPv6 only, then on IPv4 only: Node's `::` fails either way (EADDRINUSE is
        // no reason to try IPv4) and says `:::PORT`.
        let Some((_v6, port)) = hold(any_v6, true) else {
            return; // No IPv6 on this machine: Node would use IPv4 alone.
        };
        let busy = listen(None, port).await.expect_err("taken on IPv6");
        assert_eq!(
            busy.message,
            format!("listen EADDRINUSE: address already in use :::{port}")
        );
        assert_eq!((busy.address.as_str(), busy.port), ("::", port));
        let (_v4, port) = hold(any_v4, false).expect("an IPv4 port");
        let busy = listen(None, port).await.expect_err("taken on IPv4");
        assert_eq!(
            busy.message,
            format!("listen EADDRINUSE: address already in use :::{port}")
        );
    }

    #[cfg(unix)]
    #[tokio::test]
    async fn addresses_are_named_as_node_names_them() {
        // An address on no interface of this machine. Port 0 is left out of the words.
        let away = listen(Some("10.255.255.1"), 0).await.expect_err("not ours");
        assert_eq!(
            away.message,
            "listen EADDRNOTAVAIL: address not available 10.255.255.1"
        );
        assert_eq!((away.address.as_str(), away.port), ("10.255.255.1", 0));
        // An IP literal is named as written, zone and all.
        let spelled = listen(Some("0:0:0:0:0:0:0:2"), 8089)
            .await
            .expect_err("not ours");
        assert_eq!(
            spelled.message,
            "listen EADDRNOTAVAIL: address not available 0:0:0:0:0:0:0:2:8089"
        );
        #[cfg(target_os = "linux")]
        {
            let scoped = listen(Some("fe80::1%lo"), 8089)
                .await
                .expect_err("not ours");
            assert_eq!(
                scoped.message,
                "listen EADDRNOTAVAIL: address not available fe80::1%lo:8089"
            );
            assert_eq!(scoped.address, "fe80::1%lo");
        }
    }

    #[test]
    fn ip_literals_as_node_reads_them() {
        for literal in [
            "127.0.0.1",
            "::",
            "0:0:0:0:0:0:0:1",
            "::ffff:1.2.3.4",
            "fe80::1%lo",
        ] {
            assert!(is_ip_literal(literal), "{literal}");
        }
        for name in ["localhost", "127.000.0.1", "1.2.3.4%lo", "fe80::1%", ""] {
            assert!(!is_ip_literal(name), "{name}");
        }
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
