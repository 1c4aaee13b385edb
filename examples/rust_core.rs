//! The pack service's Rust core alone, for profiling: the fixture pack's index served by the
//! hyper server with a Rust runner that answers every tool call with its input, as the JS
//! `fixture.echo` does. What the JS round trip adds is the difference with the real process.
//!
//! `cargo run --release --example rust_core -- <index.json>`; writes `{"kind":"listening","port":N}`.

use kindgi_handler_runtime_native::env::PackEnvCheck;
use kindgi_handler_runtime_native::service::call::{
    Answer, Call, CallAbort, RunFuture, Runner, Settled, ToolOutput,
};
use kindgi_handler_runtime_native::service::catalog::Catalog;
use kindgi_handler_runtime_native::service::core::{PackService, ServiceOptions};
use kindgi_handler_runtime_native::service::server::serve;
use std::sync::Arc;
use tokio::net::TcpListener;

struct Echo;

impl Runner for Echo {
    fn run(&self, call: Call, _abort: CallAbort) -> RunFuture {
        Box::pin(async move {
            let marked = call.input_json();
            Settled {
                answer: Answer::Output(ToolOutput {
                    marked,
                    response: None,
                    unwritable: None,
                }),
                honoured_abort: false,
            }
        })
    }
}

fn main() -> std::io::Result<()> {
    kindgi_handler_runtime_native::runtime::build()?.block_on(serve_until_killed())
}

async fn serve_until_killed() -> std::io::Result<()> {
    let path = std::env::args().nth(1).unwrap_or_default();
    let text = std::fs::read_to_string(&path)?;
    let index: serde_json::Value = serde_json::from_str(&text).map_err(std::io::Error::other)?;
    let catalog = Catalog::from_index(&index)
        .map_err(|problems| std::io::Error::other(problems.join("\n")))?;
    let service = PackService::new(
        ServiceOptions {
            catalog,
            token: "bench-token".into(),
            tenant: None,
            max_concurrency: 64,
            max_body_bytes: 10 << 20,
            default_timeout_ms: 120_000,
            env_check: PackEnvCheck::Warn,
            missing_env: vec![],
            index_hash: None,
            records: None,
            share_call_bindings: false,
            js_threads: Default::default(),
            stall_limit: None,
        },
        Arc::new(Echo),
        None,
    );
    service.admission().set_warm(true);
    let listener = TcpListener::bind("127.0.0.1:0").await?;
    eprintln!(
        "{{\"kind\":\"listening\",\"port\":{}}}",
        listener.local_addr()?.port()
    );
    let _listening = serve(Arc::new(service), listener)?;
    std::future::pending::<()>().await;
    Ok(())
}
