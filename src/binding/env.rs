//! The pack env checks.

use super::errors::{from_napi, JsError};
use crate::env::{
    parse_pack_env_check, parse_pack_env_filter, resolve_pack_env, undeclared_pack_env, EnvConfig,
    NameList, PackEnvDeclaration, PLATFORM_ENV_NAMES, PLATFORM_ENV_PREFIXES,
};
use napi::bindgen_prelude::{Array, JsObjectValue, Object, Unknown};
use napi::{JsValue, ValueType};
use napi_derive::napi;

#[napi(object)]
pub struct EnvOutcome {
    /// The declaration, when there is one.
    pub required: Option<Vec<String>>,
    pub optional: Option<Vec<String>>,
    /// The problems, when the config was refused.
    pub message: Option<String>,
    /// A setting's value.
    pub value: Option<String>,
}

impl EnvOutcome {
    fn empty() -> Self {
        EnvOutcome {
            required: None,
            optional: None,
            message: None,
            value: None,
        }
    }

    fn refused(message: String) -> Self {
        EnvOutcome {
            message: Some(message),
            ..Self::empty()
        }
    }
}

/// Object.keys(object): own, enumerable, string keys in JavaScript's order.
fn own_keys(object: &Object) -> napi::Result<Vec<String>> {
    use napi::{KeyCollectionMode, KeyConversion, KeyFilter};
    let names: Object = object.get_all_property_names(
        KeyCollectionMode::OwnOnly,
        KeyFilter::Enumerable,
        KeyConversion::NumbersToStrings,
    )?;
    let mut keys = Vec::new();
    for i in 0..names.get_array_length()? {
        let key: Unknown = names.get_element(i)?;
        // Symbols are not among Object.keys.
        if key.get_type()? == ValueType::String {
            // SAFETY: checked to be a string.
            keys.push(unsafe { key.cast::<String>()? });
        }
    }
    Ok(keys)
}

fn name_list(value: Unknown) -> napi::Result<NameList> {
    match value.get_type()? {
        ValueType::Undefined => Ok(NameList::Absent),
        ValueType::Object if value.is_array()? => {
            // SAFETY: checked to be an array.
            let array: Array = unsafe { value.cast()? };
            let mut names = Vec::with_capacity(array.len() as usize);
            for i in 0..array.len() {
                let item: Unknown = array.get_element(i)?;
                if item.get_type()? != ValueType::String {
                    return Ok(NameList::NotNames);
                }
                // SAFETY: checked to be a string.
                names.push(unsafe { item.cast::<String>()? });
            }
            Ok(NameList::Names(names))
        }
        _ => Ok(NameList::NotNames),
    }
}

fn env_config(value: Unknown) -> napi::Result<EnvConfig> {
    match value.get_type()? {
        ValueType::Undefined => return Ok(EnvConfig::Absent),
        ValueType::Object if !value.is_array()? => {}
        _ => return Ok(EnvConfig::NotAnObject),
    }
    // SAFETY: checked to be a non-array object.
    let object: Object = unsafe { value.cast()? };
    let unknown_keys = own_keys(&object)?
        .into_iter()
        .filter(|k| k != "required" && k != "optional")
        .collect();
    Ok(EnvConfig::Object {
        unknown_keys,
        required: name_list(object.get_named_property("required")?)?,
        optional: name_list(object.get_named_property("optional")?)?,
    })
}

#[napi(js_name = "resolvePackEnv")]
pub fn resolve_pack_env_js(env: Unknown) -> Result<EnvOutcome, JsError> {
    let config = env_config(env).map_err(from_napi)?;
    Ok(match resolve_pack_env(&config) {
        Ok(Some(declaration)) => EnvOutcome {
            required: Some(declaration.required),
            optional: Some(declaration.optional),
            ..EnvOutcome::empty()
        },
        Ok(None) => EnvOutcome::empty(),
        Err(message) => EnvOutcome::refused(message),
    })
}

#[napi(js_name = "undeclaredPackEnv")]
pub fn undeclared_pack_env_js(
    required: Vec<String>,
    optional: Vec<String>,
    names: Vec<String>,
) -> Vec<String> {
    let declaration = PackEnvDeclaration { required, optional };
    undeclared_pack_env(Some(&declaration), names.iter().map(String::as_str))
}

fn setting(parsed: Result<&'static str, String>) -> EnvOutcome {
    match parsed {
        Ok(value) => EnvOutcome {
            value: Some(value.to_owned()),
            ..EnvOutcome::empty()
        },
        Err(message) => EnvOutcome::refused(message),
    }
}

#[napi(js_name = "parsePackEnvCheck")]
pub fn parse_pack_env_check_js(raw: Option<String>) -> EnvOutcome {
    setting(parse_pack_env_check(raw.as_deref()).map(|c| c.as_str()))
}

#[napi(js_name = "parsePackEnvFilter")]
pub fn parse_pack_env_filter_js(raw: Option<String>) -> EnvOutcome {
    setting(parse_pack_env_filter(raw.as_deref()).map(|f| f.as_str()))
}

#[napi(js_name = "platformEnvNames")]
pub fn platform_env_names() -> Vec<&'static str> {
    PLATFORM_ENV_NAMES.to_vec()
}

#[napi(js_name = "platformEnvPrefixes")]
pub fn platform_env_prefixes() -> Vec<&'static str> {
    PLATFORM_ENV_PREFIXES.to_vec()
}
