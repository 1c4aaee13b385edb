//! Calls admitted through node:http and waiting for their bodies, by ticket. `begin` admits a
//! call and gives the JS glue a ticket; the glue reads the body and hands it to `invoke` with
//! the ticket, or releases the ticket; a caller that hangs up meanwhile is told to the call
//! through the ticket's hang-up, which lasts until the call ends.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Mutex;
use tokio::sync::oneshot;

/// A call waiting for its body (`T`: the admitted call), and where its hang-up arrives.
pub struct Ticket<T> {
    pub call: T,
    pub hung_up: oneshot::Receiver<()>,
}

/// The tickets out.
pub struct Tickets<T> {
    waiting: Mutex<HashMap<u32, Ticket<T>>>,
    hang_ups: Mutex<HashMap<u32, oneshot::Sender<()>>>,
    next: AtomicU32,
}

impl<T> Default for Tickets<T> {
    fn default() -> Self {
        Tickets {
            waiting: Mutex::new(HashMap::new()),
            hang_ups: Mutex::new(HashMap::new()),
            next: AtomicU32::new(1),
        }
    }
}

impl<T> Tickets<T> {
    /// A new ticket for `call`.
    pub fn issue(&self, call: T) -> u32 {
        let ticket = self.next.fetch_add(1, Ordering::Relaxed);
        let (hang_up, hung_up) = oneshot::channel();
        if let Ok(mut waiting) = self.waiting.lock() {
            waiting.insert(ticket, Ticket { call, hung_up });
        }
        if let Ok(mut hang_ups) = self.hang_ups.lock() {
            hang_ups.insert(ticket, hang_up);
        }
        ticket
    }

    /// Runs `update` on the call still waiting under `ticket`, if any.
    pub fn update(&self, ticket: u32, update: impl FnOnce(&mut T)) {
        if let Ok(mut waiting) = self.waiting.lock() {
            if let Some(waiting) = waiting.get_mut(&ticket) {
                update(&mut waiting.call);
            }
        }
    }

    /// The caller of `ticket`'s call went away: its hang-up fires (once).
    pub fn hang_up(&self, ticket: u32) {
        let hang_up = self
            .hang_ups
            .lock()
            .ok()
            .and_then(|mut hang_ups| hang_ups.remove(&ticket));
        if let Some(hang_up) = hang_up {
            // The call may have ended already; then there is nothing to cancel.
            let _ = hang_up.send(());
        }
    }

    /// Takes the call to run; its hang-up stays until [`Tickets::end`]. None when it was
    /// taken or ended already.
    pub fn take(&self, ticket: u32) -> Option<Ticket<T>> {
        self.waiting.lock().ok()?.remove(&ticket)
    }

    /// Forgets a ticket and its hang-up: the call ended (or will not run).
    pub fn end(&self, ticket: u32) {
        if let Ok(mut hang_ups) = self.hang_ups.lock() {
            hang_ups.remove(&ticket);
        }
        if let Ok(mut waiting) = self.waiting.lock() {
            waiting.remove(&ticket);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ticket_is_taken_once_and_hears_its_hang_up_until_it_ends() {
        let tickets = Tickets::default();
        let first = tickets.issue(10);
        let second = tickets.issue(20);
        assert_ne!(first, second);
        tickets.update(first, |call| *call += 1);
        let Some(mut taken) = tickets.take(first) else {
            panic!("the ticket waits");
        };
        assert_eq!(taken.call, 11);
        assert!(tickets.take(first).is_none(), "taken once");
        tickets.hang_up(first);
        assert_eq!(taken.hung_up.try_recv(), Ok(()));
        // Ended before its hang-up: nothing fires, and the call is gone.
        let Some(mut ended) = tickets.take(second) else {
            panic!("the ticket waits");
        };
        tickets.end(second);
        tickets.hang_up(second);
        assert!(ended.hung_up.try_recv().is_err());
        let released = tickets.issue(30);
        tickets.end(released);
        assert!(tickets.take(released).is_none());
    }
}
