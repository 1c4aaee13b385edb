//! Promises for the async methods of `#[napi]` objects, run by futures that own what they use.
//!
//! napi-rs runs an `async fn(&self)` method on a tokio worker with a reference to the object,
//! and the object is freed when its environment ends (a worker thread's `terminate()` or exit),
//! whether or not the future is done: the future then reads freed memory. A method that clones
//! the object's shared parts on the JS thread and hands them to [`promise`] has nothing to lose.

use napi::bindgen_prelude::{PromiseRaw, ToNapiValue};
use napi::Env;
use std::future::Future;

/// A promise of `future`'s output, which runs on the runtime napi-rs keeps for the addon.
pub fn promise<'env, T, F>(env: &'env Env, future: F) -> napi::Result<PromiseRaw<'env, T>>
where
    T: ToNapiValue + Send + 'static,
    F: Future<Output = T> + Send + 'static,
{
    env.spawn_future(async move { Ok(future.await) })
}
