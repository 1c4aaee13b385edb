//! Worker threads that run a pack service's code (`KINDGI_PACK_SERVICE_WORKERS`).
//!
//! The service, its HTTP side, admission and records live once in the process; each worker
//! thread attaches its own dispatcher to it and settles its calls through its own object, since
//! a JS object belongs to the thread that made it. The main thread shares the service under a
//! number (`shareWithThreads`), which the worker gets through `workerData`.

use crate::binding::errors::{JsError, NativeError, NativeErrorCode};
use crate::binding::native_logs::NativeLogs;
use crate::binding::pack_service::{Dispatch, PrewarmTargetJs, ServiceParts};
use napi_derive::napi;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, Weak};

/// The services shared with worker threads, by the number they attach with.
static SHARED: Mutex<Option<HashMap<u32, Weak<ServiceParts>>>> = Mutex::new(None);

static NEXT_SHARED: AtomicU32 = AtomicU32::new(1);

/// Shares `parts` with worker threads: the number they attach with.
pub(crate) fn share(parts: &Arc<ServiceParts>) -> u32 {
    let number = NEXT_SHARED.fetch_add(1, Ordering::Relaxed);
    let mut shared = match SHARED.lock() {
        Ok(shared) => shared,
        Err(poisoned) => poisoned.into_inner(),
    };
    let shared = shared.get_or_insert_with(HashMap::new);
    // A service collected since is gone for good.
    shared.retain(|_, parts| parts.strong_count() > 0);
    shared.insert(number, Arc::downgrade(parts));
    number
}

fn shared(number: u32) -> Option<Arc<ServiceParts>> {
    let shared = match SHARED.lock() {
        Ok(shared) => shared,
        Err(poisoned) => poisoned.into_inner(),
    };
    shared.as_ref()?.get(&number)?.upgrade()
}

/// A worker thread's part of a pack service: its calls are settled here.
#[napi]
pub struct NativePackServiceThread {
    parts: Arc<ServiceParts>,
    thread: usize,
}

#[napi(
    js_name = "attachPackServiceThread",
    ts_args_type = "shared: number, dispatch: (id: number, position: number, request: string, defaults: string, bindings: string, target: string) => void"
)]
pub fn attach_pack_service_thread(
    shared_number: u32,
    dispatch: Dispatch,
) -> Result<NativePackServiceThread, JsError> {
    let refused = |why: &str| -> JsError {
        NativeError::new(
            NativeErrorCode::InvalidArgument,
            format!("Cannot attach to pack service {shared_number}: {why}"),
        )
        .into()
    };
    let parts = shared(shared_number).ok_or_else(|| refused("no such service is shared"))?;
    let thread = parts
        .join_thread(dispatch)
        .ok_or_else(|| refused("it has stopped"))?;
    Ok(NativePackServiceThread { parts, thread })
}

#[napi]
impl NativePackServiceThread {
    /// This thread's index among the service's JS threads (0 is the main thread).
    #[napi(getter)]
    pub fn thread(&self) -> u32 {
        u32::try_from(self.thread).unwrap_or(u32::MAX)
    }

    /// As `NativePackService.settle`.
    #[napi]
    pub fn settle(
        &self,
        id: u32,
        response: String,
        outcome: String,
        honoured_abort: bool,
        failure: Option<String>,
    ) -> bool {
        self.parts
            .settle(id, response, outcome, honoured_abort, failure)
    }

    /// As `NativePackService.settleOutput`.
    #[napi]
    pub fn settle_output(
        &self,
        id: u32,
        marked: String,
        response: Option<String>,
        unwritable: Option<String>,
    ) -> bool {
        self.parts.settle_output(id, marked, response, unwritable)
    }

    /// As `NativePackService.escape`.
    #[napi]
    pub fn escape(&self, id: u32, message: String) -> bool {
        self.parts.escape(id, message)
    }

    /// As `NativePackService.forget`.
    #[napi]
    pub fn forget(&self, id: u32) {
        self.parts.forget(id);
    }

    #[napi]
    pub fn prewarm_targets(&self) -> Vec<PrewarmTargetJs> {
        self.parts.prewarm_targets()
    }

    /// One warm-up call through this thread's dispatcher.
    #[napi]
    pub fn warm_up(&self, request: String) -> bool {
        self.parts.warm_up(self.thread, request)
    }
}

/// The native logs of shared service `shared`, written from a worker thread (for its
/// `ctx.log`): none when the service was made without them, or is gone.
#[napi(js_name = "sharedPackServiceLogs")]
pub fn shared_pack_service_logs(shared_number: u32) -> Option<NativeLogs> {
    let parts = shared(shared_number)?;
    parts.logs().cloned().map(NativeLogs::on_worker_thread)
}
