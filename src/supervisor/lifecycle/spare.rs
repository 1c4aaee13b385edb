//! The spare: with `spare`, each boot leaves the next child spawned with the same launch and
//! held; a start launched alike releases it instead of spawning anew.

use super::{Lifecycle, Starting};
use crate::supervisor::child::{spawn, ChildSpec, Spawned};
use std::sync::Arc;

/// The next child, spawned ahead with the launch of the boot before it and held (it has
/// loaded what it can and waits for a line on stdin). A start whose launch is alike releases
/// it; any other start, a stop and a close kill it; one that exits on its own is dropped
/// without a word.
pub(super) struct Spare {
    /// Which ask made it (`State::spares`).
    pub(super) id: u64,
    pub(super) spec: ChildSpec,
    pub(super) child: Spawned,
}

impl Lifecycle {
    /// The child for `spec`: the spare, released, when it was made alike and still holds;
    /// otherwise a new one (and any spare is killed meanwhile).
    pub(super) async fn spawn_child(
        &self,
        spec: &ChildSpec,
        fresh: bool,
    ) -> Result<Spawned, Vec<String>> {
        let spare = self
            .with_state(|state| {
                if fresh {
                    state.spares += 1;
                }
                state.spare.take()
            })
            .flatten();
        let spawned = || spawn(spec, false, self.lines(), Arc::clone(&self.options.backlog));
        let Some(mut spare) = spare else {
            return spawned().await;
        };
        let heeds_hold = spare.child.heeds_hold();
        if !fresh && heeds_hold && spare.spec.launches_alike(spec) && spare.child.release().await {
            return Ok(spare.child);
        }
        if !heeds_hold {
            self.with_state(|state| state.spares_refused = true);
        }
        let ((), spawned) = tokio::join!(spare.child.kill(), spawned());
        spawned
    }

    /// Spawns the spare for a boot that launched `spec`, in the background; it replaces the
    /// spare held before, if any.
    pub(super) fn prepare_spare(self: &Arc<Self>, spec: ChildSpec) {
        if !self.options.spare {
            return;
        }
        let lifecycle = Arc::clone(self);
        tokio::spawn(async move {
            // Counted under the lock `begin_close` takes, as a start is: `close` waits for it.
            let asked = lifecycle
                .with_state(|state| {
                    if lifecycle.is_closing() || state.stopped || state.spares_refused {
                        return None;
                    }
                    state.spares += 1;
                    Some((state.spares, Starting::new(&lifecycle.starting)))
                })
                .flatten();
            let Some((id, making)) = asked else {
                return;
            };
            let backlog = Arc::clone(&lifecycle.options.backlog);
            let Ok(child) = spawn(&spec, true, lifecycle.lines(), backlog).await else {
                return;
            };
            let gone = child.gone();
            let spare = Spare { id, spec, child };
            let unwanted = match lifecycle.state.lock() {
                Ok(mut state)
                    if !lifecycle.is_closing() && !state.stopped && state.spares == id =>
                {
                    state.spare.replace(spare)
                }
                _ => Some(spare),
            };
            if let Some(unwanted) = unwanted {
                unwanted.child.kill().await;
            }
            drop(making);
            let closing = lifecycle.closing.subscribe();
            tokio::select! {
                () = gone => {}
                () = async move {
                    let mut closing = closing;
                    let _ = closing.wait_for(|closing| *closing).await;
                } => {}
            }
            // Still held: it died (dropped without a word) or the supervisor closes.
            let held = lifecycle
                .with_state(|state| match &state.spare {
                    Some(spare) if spare.id == id => state
                        .spare
                        .take()
                        .map(|spare| (spare, Starting::new(&lifecycle.starting))),
                    _ => None,
                })
                .flatten();
            if let Some((spare, _killing)) = held {
                spare.child.kill().await;
            }
        });
    }
}
