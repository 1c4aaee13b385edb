//! The validation vocabulary: checks on the value itself, no subschema.

use super::schema::schema_type_names;
use super::{Compiler, SchemaContext};
use crate::js::for_in_keys;
use crate::validate::error::CompileError;
use crate::validate::program::Keyword;
use crate::validate::program::{Comparison, DataType};
use crate::validate::value;
use serde_json::{Map, Value};

impl<'s> Compiler<'s> {
    /// The validation vocabulary: limits, `const`, `enum`, `pattern`, `required`, `uniqueItems`, …
    pub(super) fn validation_keyword(
        &mut self,
        map: &'s Map<String, Value>,
        name: &str,
        ctx: &SchemaContext,
    ) -> Result<Option<Keyword>, CompileError> {
        let path = format!("{}/{name}", ctx.path);
        let value = &map[name];
        Ok(Some(match name {
            "const" => Keyword::Const {
                path,
                value: value.clone(),
            },
            "enum" => {
                let Value::Array(values) = value else {
                    return Err(CompileError::error("enum value must be \"array\""));
                };
                if values.is_empty() {
                    return Err(CompileError::error("enum must have non-empty array"));
                }
                Keyword::Enum {
                    path,
                    values: values.clone(),
                    json: value.clone(),
                }
            }
            "maximum" | "minimum" | "exclusiveMaximum" | "exclusiveMinimum" => {
                let cmp = match name {
                    "maximum" => Comparison::Max,
                    "minimum" => Comparison::Min,
                    "exclusiveMaximum" => Comparison::ExclusiveMax,
                    _ => Comparison::ExclusiveMin,
                };
                Keyword::NumberLimit {
                    path,
                    cmp,
                    limit: self.limit(map, name, false)?,
                }
            }
            "multipleOf" => Keyword::MultipleOf {
                path,
                limit: self.limit(map, name, false)?,
            },
            "maxLength" => Keyword::MaxLength {
                path,
                limit: self.limit(map, name, true)?,
            },
            "minLength" => Keyword::MinLength {
                path,
                limit: self.limit(map, name, true)?,
            },
            "pattern" => {
                let Some(source) = value.as_str() else {
                    return Err(CompileError::error("pattern value must be \"string\""));
                };
                Keyword::Pattern {
                    path,
                    pattern: self.pattern(source)?,
                }
            }
            "maxItems" => Keyword::MaxItems {
                path,
                limit: self.limit(map, name, true)?,
            },
            "minItems" => Keyword::MinItems {
                path,
                limit: self.limit(map, name, true)?,
            },
            "uniqueItems" => {
                if value != &Value::Bool(true) {
                    return Ok(None);
                }
                let item_types = map
                    .get("items")
                    .and_then(|items| items.get("type"))
                    .and_then(schema_type_names);
                let scalar_types = item_types.and_then(|names| {
                    let types: Option<Vec<DataType>> =
                        names.iter().map(|n| DataType::parse(n)).collect();
                    types.filter(|t| {
                        !t.is_empty()
                            && !t
                                .iter()
                                .any(|t| matches!(t, DataType::Object | DataType::Array))
                    })
                });
                Keyword::UniqueItems { path, scalar_types }
            }
            "maxContains" | "minContains" => {
                if !map.contains_key("contains") {
                    return Err(CompileError::strict(format!(
                        "\"{name}\" without \"contains\" is ignored"
                    )));
                }
                return Ok(None);
            }
            "maxProperties" => Keyword::MaxProperties {
                path,
                limit: self.limit(map, name, true)?,
            },
            "minProperties" => Keyword::MinProperties {
                path,
                limit: self.limit(map, name, true)?,
            },
            "required" => {
                let Value::Array(items) = value else {
                    return Err(CompileError::error("required value must be \"array\""));
                };
                let names: Vec<String> = items
                    .iter()
                    .filter_map(|v| v.as_str().map(str::to_owned))
                    .collect();
                let properties = map.get("properties").and_then(Value::as_object);
                for key in &names {
                    // Ajv reads `properties[key]`: an own key, or one `Object.prototype` answers.
                    let declared = properties.is_some_and(|p| value::has_property(p, key));
                    if !declared && !ctx.defined.borrow().contains(key) {
                        return Err(CompileError::strict(format!(
                            "required property \"{key}\" is not defined at \"{}{}\" (strictRequired)",
                            ctx.env_base, ctx.path
                        )));
                    }
                }
                if names.is_empty() {
                    return Ok(None);
                }
                Keyword::Required { path, names }
            }
            "dependentRequired" => {
                let Value::Object(deps) = value else {
                    return Err(CompileError::error(
                        "dependentRequired value must be \"object\"",
                    ));
                };
                let deps = for_in_keys(deps)
                    .into_iter()
                    .filter(|k| *k != "__proto__")
                    .filter_map(|k| {
                        let names: Vec<String> = deps[k]
                            .as_array()?
                            .iter()
                            .filter_map(|v| v.as_str().map(str::to_owned))
                            .collect();
                        (!names.is_empty()).then(|| (k.clone(), names))
                    })
                    .collect();
                Keyword::DependentRequired { path, deps }
            }
            _ => return Ok(None),
        }))
    }
}
