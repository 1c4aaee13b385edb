//! A timer always due soon, so that no call's own timer is ever the nearest.
//!
//! tokio wakes its time driver (a write to its eventfd, and a parked worker woken for
//! nothing) whenever a timer is set earlier than the driver's next wake. With nothing else due
//! for minutes, every request's own timers (its headers, its body, its deadline, the relay's
//! answer limit) were: one wake per call. While a [`TimerFloor`] is held, a timer is due
//! within [`FLOOR`], nearer than any of theirs (figures in docs/design.md, *The tokio
//! runtime*).

use std::time::Duration;
use tokio::task::{AbortHandle, JoinHandle};

/// How soon the floor's timer is always due.
pub const FLOOR: Duration = Duration::from_secs(1);

/// The floor's task: a timer that is never far off, and nothing else.
pub async fn tick() {
    loop {
        tokio::time::sleep(FLOOR).await;
    }
}

/// Holds a [`tick`] task; dropping it ends the task.
#[derive(Debug)]
pub struct TimerFloor(AbortHandle);

impl TimerFloor {
    /// A floor on the current runtime.
    pub fn start() -> TimerFloor {
        TimerFloor::hold(tokio::spawn(tick()))
    }

    /// A floor whose [`tick`] task was spawned elsewhere (on another runtime's handle).
    pub fn hold(task: JoinHandle<()>) -> TimerFloor {
        TimerFloor(task.abort_handle())
    }
}

impl Drop for TimerFloor {
    fn drop(&mut self) {
        self.0.abort();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_task_ends_with_its_floor() {
        let floor = TimerFloor::start();
        let task = floor.0.clone();
        tokio::task::yield_now().await;
        assert!(!task.is_finished(), "the floor keeps its timer while held");
        drop(floor);
        for _ in 0..100 {
            if task.is_finished() {
                return;
            }
            tokio::task::yield_now().await;
        }
        panic!("the floor's task outlived it");
    }
}
