//! SIGTERM for the pack service process (`service::termination`), armed by
//! `lib/pack-service-main.js`.

use crate::binding::errors::{JsError, NativeError, NativeErrorCode};
use crate::binding::native_logs::NativeLogs;
use crate::binding::owned_future::promise;
use crate::binding::pack_service::NativePackService;
use crate::service::sigterm::{on_sigterm, ThisProcess};
use crate::service::termination::Termination;
use napi::bindgen_prelude::PromiseRaw;
use napi::Env;
use napi_derive::napi;
use std::sync::Arc;
use std::time::Duration;

#[napi]
pub struct NativeTermination {
    inner: Arc<Termination>,
}

/// Hears SIGTERM on a thread of its own from now on: before `serve`, it ends the process as
/// the signal does; after, it drains for up to `budgetMs` and writes `draining` and `stopped`
/// to `logs`. Call it after JavaScript listens for SIGTERM, so its handler chains Node's.
#[napi(js_name = "watchTermination")]
pub fn watch_termination(logs: &NativeLogs, budget_ms: f64) -> Result<NativeTermination, JsError> {
    let budget = Duration::from_millis(budget_ms.max(0.0) as u64);
    let inner = Arc::new(Termination::new(
        budget,
        logs.lifecycle_logger(),
        Arc::new(ThisProcess),
    ));
    let heard = Arc::clone(&inner);
    on_sigterm(move || heard.signalled())
        .map_err(|message| NativeError::new(NativeErrorCode::ListenFailed, message))?;
    Ok(NativeTermination { inner })
}

#[napi]
impl NativeTermination {
    /// The service listens: SIGTERM drains it from now on.
    #[napi]
    pub fn serve(&self, service: &NativePackService) -> Result<(), JsError> {
        let runtime = napi::bindgen_prelude::within_runtime_if_available(|| {
            tokio::runtime::Handle::try_current().ok()
        })
        .ok_or_else(|| NativeError::new(NativeErrorCode::ListenFailed, "No runtime to drain on"))?;
        self.inner.serve(
            Arc::clone(service.core()),
            Arc::clone(service.listening()),
            runtime,
        );
        Ok(())
    }

    /// Resolves once SIGTERM's drain wrote `stopped`; the promise's future owns a clone of
    /// `inner` (see `owned_future`).
    #[napi(ts_return_type = "Promise<void>")]
    pub fn stopped<'env>(&self, env: &'env Env) -> napi::Result<PromiseRaw<'env, ()>> {
        let inner = Arc::clone(&self.inner);
        promise(env, async move { inner.stopped().await })
    }
}
