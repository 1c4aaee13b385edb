//! Noticing that a caller hung up while its request is being answered.
//!
//! hyper reads a connection for its end only when it holds none of the connection's bytes.
//! After a pipelined request, or one stray byte after a body, it stops reading while the call
//! runs, so a caller that leaves then goes unnoticed: the call keeps its slot until its
//! deadline and its handler is never aborted. Node's server reads on, sees the end and
//! cancels the call. A duplicate of the socket, registered with the reactor on its own, tells
//! when the peer's side has ended (`EPOLLRDHUP`) without reading what hyper has yet to read.

use tokio::net::TcpStream;

/// Watches one connection for its peer's end. Made when the connection is accepted; it
/// registers with the reactor the first time a request waits on it.
pub struct PeerWatch {
    #[cfg(unix)]
    watch: unix::Watch,
}

impl PeerWatch {
    pub fn new(stream: &TcpStream) -> PeerWatch {
        #[cfg(not(unix))]
        let _ = stream;
        PeerWatch {
            #[cfg(unix)]
            watch: unix::Watch::new(stream),
        }
    }

    /// Resolves once the peer has closed its side of the connection or the connection broke.
    /// Never resolves where the watch cannot be set up (then hyper's own reading is all).
    pub async fn hung_up(&self) {
        #[cfg(unix)]
        self.watch.hung_up().await;
        #[cfg(not(unix))]
        std::future::pending::<()>().await;
    }
}

#[cfg(unix)]
mod unix {
    use std::os::fd::{AsFd, OwnedFd};
    use std::sync::{Mutex, OnceLock};
    use tokio::io::unix::AsyncFd;
    use tokio::io::Interest;
    use tokio::net::TcpStream;

    pub struct Watch {
        /// The duplicate, until it is registered.
        duplicate: Mutex<Option<OwnedFd>>,
        registered: OnceLock<Option<AsyncFd<OwnedFd>>>,
    }

    impl Watch {
        pub fn new(stream: &TcpStream) -> Watch {
            Watch {
                duplicate: Mutex::new(stream.as_fd().try_clone_to_owned().ok()),
                registered: OnceLock::new(),
            }
        }

        fn registration(&self) -> Option<&AsyncFd<OwnedFd>> {
            self.registered
                .get_or_init(|| {
                    let duplicate = self.duplicate.lock().ok()?.take()?;
                    // SAFETY: an `OwnedFd` is an open descriptor that stays open, naming the
                    // same socket, until the `AsyncFd` owning it drops it.
                    unsafe { AsyncFd::register_with_interest(duplicate, Interest::READABLE) }.ok()
                })
                .as_ref()
        }

        pub async fn hung_up(&self) {
            let Some(socket) = self.registration() else {
                return std::future::pending().await;
            };
            loop {
                let Ok(mut guard) = socket.readable().await else {
                    return std::future::pending().await;
                };
                if guard.ready().is_read_closed() {
                    return;
                }
                // Bytes hyper will read later (a pipelined request): wait for the next event.
                guard.clear_ready();
            }
        }
    }
}
