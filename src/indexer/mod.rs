//! The pack indexer's rules (`runIndexer`, `kindgi-index`): config files, discovery, index
//! entries, per-file errors and the written index. JavaScript imports the modules and reads
//! what only JavaScript can (functions, Zod schemas); everything decided from data is here.

pub mod assemble;
pub mod config;
pub mod discover;
pub mod entries;
pub mod error;
pub mod flow;
pub mod glob;
pub mod messages;
pub mod report;
pub mod request;

pub use error::{IndexerError, IndexerErrorCode};

/// The `v` of `index.json`.
pub const INDEX_ENVELOPE_VERSION: u32 = 1;
/// The version of the flow payload inside the index.
pub const KERNEL_PAYLOAD_VERSION: u32 = 1;

/// Check ids the runtime implements itself: a pack cannot ship its own under one of them.
pub const RESERVED_CHECK_IDS: [&str; 7] = [
    "must-cite",
    "never-call-tool",
    "max-tool-calls",
    "output-matches",
    "tool-order",
    "required-substring",
    "forbidden-substring",
];

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PrimitiveKind {
    Tool = 0,
    Guardrail = 1,
    Agent = 2,
    Flow = 3,
}

impl PrimitiveKind {
    pub const ALL: [PrimitiveKind; 4] = [
        PrimitiveKind::Tool,
        PrimitiveKind::Guardrail,
        PrimitiveKind::Agent,
        PrimitiveKind::Flow,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            PrimitiveKind::Tool => "tool",
            PrimitiveKind::Guardrail => "guardrail",
            PrimitiveKind::Agent => "agent",
            PrimitiveKind::Flow => "flow",
        }
    }

    pub fn parse(text: &str) -> Option<PrimitiveKind> {
        PrimitiveKind::ALL.into_iter().find(|k| k.as_str() == text)
    }

    /// The folder whose files must be of this kind, and the key of its discovery pattern.
    pub fn default_folder(self) -> &'static str {
        self.list_name()
    }

    /// The index's list of this kind.
    pub fn list_name(self) -> &'static str {
        match self {
            PrimitiveKind::Tool => "tools",
            PrimitiveKind::Guardrail => "guardrails",
            PrimitiveKind::Agent => "agents",
            PrimitiveKind::Flow => "flows",
        }
    }
}
