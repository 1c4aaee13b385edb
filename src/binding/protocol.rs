//! `parsePackRequest` / `parsePackResponse` over JavaScript values, in place, and the protocol's
//! constants.

use super::errors::{from_napi, JsError, NativeError, NativeErrorCode};
use crate::protocol::{
    parse_pack_request, parse_pack_response, MessageSource, PackErrorCode, PackErrorMessage,
    PACK_HEADERS,
};
use napi::bindgen_prelude::{Env, Function, JsObjectValue, Object, Unknown};
use napi::{JsValue, ValueType};
use napi_derive::napi;

/// A message as JavaScript holds it. Looking into it reads properties the way the TypeScript
/// checks do (`m.tool.id`), so getters and prototypes behave alike.
struct JsMessage<'e> {
    env: &'e Env,
    root: Unknown<'e>,
}

impl<'e> JsMessage<'e> {
    fn lookup(&self, path: &[&str]) -> napi::Result<Option<Unknown<'e>>> {
        let mut current = self.root;
        for key in path {
            if current.get_type()? != ValueType::Object {
                return Ok(None);
            }
            // SAFETY: the type check above says this is an object.
            let object: Object<'e> = unsafe { current.cast()? };
            current = object.get_named_property(key)?;
        }
        Ok(Some(current))
    }
}

impl MessageSource for JsMessage<'_> {
    type Error = napi::Error;

    fn shape(&self, path: &[&str]) -> napi::Result<crate::protocol::Shape> {
        use crate::protocol::Shape;
        let Some(value) = self.lookup(path)? else {
            return Ok(Shape::Undefined);
        };
        Ok(match value.get_type()? {
            ValueType::Undefined => Shape::Undefined,
            ValueType::Null => Shape::Null,
            ValueType::Boolean => Shape::Bool,
            // SAFETY (both casts): the value's type was just read.
            ValueType::Number => Shape::Number(unsafe { value.cast::<f64>()? }),
            ValueType::String => Shape::String(unsafe { value.cast::<String>()? }),
            ValueType::Object if value.is_array()? => Shape::Array,
            ValueType::Object => Shape::Object,
            _ => Shape::Other,
        })
    }

    fn render(&self, path: &[&str]) -> napi::Result<String> {
        let Some(value) = self.lookup(path)? else {
            return Ok("undefined".to_owned());
        };
        let json: Object = self.env.get_global()?.get_named_property("JSON")?;
        let stringify: Function<Unknown, Unknown> = json.get_named_property("stringify")?;
        let text = stringify.call(value)?;
        if text.get_type()? == ValueType::String {
            // SAFETY: checked to be a string.
            Ok(unsafe { text.cast::<String>()? })
        } else {
            Ok("undefined".to_owned())
        }
    }
}

/// The refusal of a message, as the JS layer turns it into `packError(code, message)`.
#[napi(object)]
pub struct ParseRefusal {
    pub code: String,
    pub message: String,
}

fn refusal(
    outcome: napi::Result<Result<impl Sized, PackErrorMessage>>,
) -> Result<Option<ParseRefusal>, JsError> {
    match outcome {
        Ok(Ok(_)) => Ok(None),
        Ok(Err(error)) => Ok(Some(ParseRefusal {
            code: error.code.as_str().to_owned(),
            message: error.message,
        })),
        // JSON.stringify threw while rendering `v` or `kind` (a BigInt): a value JSON cannot hold.
        Err(error)
            if error.status == napi::Status::PendingException
                || error.status == napi::Status::GenericFailure =>
        {
            Err(NativeError::new(
                NativeErrorCode::InvalidJsonValue,
                format!(
                    "The message holds a value JSON cannot hold: {}",
                    error.reason
                ),
            )
            .into())
        }
        Err(error) => Err(from_napi(error)),
    }
}

/// `null` when the value is a v2 request, else why not.
#[napi(js_name = "checkPackRequest")]
pub fn check_pack_request(env: &Env, value: Unknown) -> Result<Option<ParseRefusal>, JsError> {
    refusal(parse_pack_request(&JsMessage { env, root: value }))
}

/// `null` when the value is a v2 response, else why not.
#[napi(js_name = "checkPackResponse")]
pub fn check_pack_response(env: &Env, value: Unknown) -> Result<Option<ParseRefusal>, JsError> {
    refusal(parse_pack_response(&JsMessage { env, root: value }))
}

#[napi(js_name = "packErrorCodes")]
pub fn pack_error_codes() -> Vec<&'static str> {
    PackErrorCode::ALL.iter().map(|c| c.as_str()).collect()
}

/// `[key, header]` pairs of `PACK_HEADERS`.
#[napi(js_name = "packHeaders")]
pub fn pack_headers() -> Vec<Vec<&'static str>> {
    PACK_HEADERS
        .iter()
        .map(|(key, header)| vec![*key, *header])
        .collect()
}
