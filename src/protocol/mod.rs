//! Pack protocol v2: the error codes, the transport headers, error messages, and the request
//! and response checks of the TypeScript `parsePackRequest` / `parsePackResponse`, in their
//! order and with their messages.

mod message;
mod parse;

pub use message::{PackErrorCode, PackErrorMessage};
pub use parse::{
    parse_pack_request, parse_pack_response, MessageSource, RequestKind, ResponseKind, Shape,
};

/// Wire version of every v2 message.
pub const PACK_PROTOCOL_VERSION: u32 = 2;

/// HTTP headers of the v2 transport, as `(PACK_HEADERS key, header name)`. `Authorization` is
/// deliberately unused: platforms like Cloud Run carry their own identity token there.
pub const PACK_HEADERS: [(&str, &str); 9] = [
    ("protocol", "kindgi-protocol"),
    ("token", "kindgi-pack-token"),
    ("timeoutMs", "kindgi-timeout-ms"),
    ("runId", "kindgi-run-id"),
    ("requestId", "kindgi-request-id"),
    ("artifactVersion", "kindgi-artifact-version"),
    ("durationMs", "kindgi-duration-ms"),
    ("traceparent", "traceparent"),
    // Protocol 2.7.0: the tenant a call is for.
    ("tenantId", "kindgi-tenant-id"),
];
