//! The validation vocabulary: checks on the value itself.

use super::is_type;
use super::{Data, Run};
use crate::js::number_to_string;
use crate::validate::instance::Instance;
use crate::validate::issue::params;
use crate::validate::program::Keyword;
use crate::validate::program::{DataType, Limit};
use crate::validate::value;
use serde_json::Value;
use std::collections::HashMap;

/// The key Ajv's `uniqueItems` gives a scalar item (JSON's text of `true`, `false`, `null`;
/// a number's `String(n)`; a string itself).
fn scalar_key<J: Instance>(item: &J) -> String {
    if let Some(s) = item.as_str() {
        return s.to_owned();
    }
    if let Some(x) = item.as_f64() {
        return number_to_string(x);
    }
    match item.as_bool() {
        Some(b) => b.to_string(),
        None => "null".into(),
    }
}

fn limit_json(limit: &Limit) -> Value {
    limit.json.clone()
}

/// One of the count keywords (`maxLength` / `minLength`, `maxItems` / `minItems`,
/// `maxProperties` / `minProperties`): which side it bounds, and the words of its message.
struct Bound {
    max: bool,
    keyword: &'static str,
    /// What is counted: `characters`, `items`, `properties`.
    noun: &'static str,
}

impl Bound {
    fn of(max: bool, (upper, lower): (&'static str, &'static str), noun: &'static str) -> Bound {
        Bound {
            max,
            keyword: if max { upper } else { lower },
            noun,
        }
    }
}

impl<'p> Run<'p> {
    /// Limits, `const`, `enum`, `pattern`, `required`, `uniqueItems`, `dependentRequired`.
    pub(super) fn validation_keyword<J: Instance>(
        &mut self,
        keyword: &Keyword,
        data: Data<'_, J>,
        inst: &str,
        name: Option<&str>,
    ) {
        match keyword {
            Keyword::Const { path, value } => {
                // Ajv compares an object or array with fast-deep-equal, anything else with `===`.
                let equal = match data.json() {
                    None => false,
                    Some(d) if value.is_object() || value.is_array() => self.equal_to(d, value),
                    Some(d) => d.equals(value),
                };
                if !equal {
                    self.error(
                        inst,
                        path,
                        "const",
                        params([("allowedValue", value.clone())]),
                        "must be equal to constant".into(),
                        name,
                    );
                }
            }
            Keyword::Enum { path, values, json } => {
                let found = data.json().is_some_and(|d| {
                    values.iter().any(|v| {
                        if v.is_object() || v.is_array() {
                            self.equal_to(d, v)
                        } else {
                            d.equals(v)
                        }
                    })
                });
                if !found {
                    self.error(
                        inst,
                        path,
                        "enum",
                        params([("allowedValues", json.clone())]),
                        "must be equal to one of the allowed values".into(),
                        name,
                    );
                }
            }
            Keyword::NumberLimit { path, cmp, limit } => {
                let Some(x) = data.json().and_then(J::as_f64) else {
                    return;
                };
                let ordering = x.partial_cmp(&limit.value);
                if !ordering.is_some_and(|o| cmp.passes(o)) {
                    self.error(
                        inst,
                        path,
                        cmp.keyword(false),
                        params([
                            ("comparison", Value::from(cmp.ok_str())),
                            ("limit", limit_json(limit)),
                        ]),
                        format!("must be {} {}", cmp.ok_str(), limit.text),
                        name,
                    );
                }
            }
            Keyword::MultipleOf { path, limit } => {
                let Some(x) = data.json().and_then(J::as_f64) else {
                    return;
                };
                if !value::is_multiple_of(x, limit.value) {
                    self.error(
                        inst,
                        path,
                        "multipleOf",
                        params([("multipleOf", limit_json(limit))]),
                        format!("must be multiple of {}", limit.text),
                        name,
                    );
                }
            }
            Keyword::MaxLength { path, limit } | Keyword::MinLength { path, limit } => {
                let Some(s) = data.json().and_then(J::as_str) else {
                    return;
                };
                let max = matches!(keyword, Keyword::MaxLength { .. });
                let bound = Bound::of(max, ("maxLength", "minLength"), "characters");
                self.count_within(value::ucs2_length(s), limit, bound, inst, path, name);
            }
            Keyword::Pattern { path, pattern } => {
                let Some(s) = data.json().and_then(J::as_str) else {
                    return;
                };
                if !pattern.test(s) {
                    self.error(
                        inst,
                        path,
                        "pattern",
                        params([("pattern", Value::from(pattern.source.as_str()))]),
                        format!("must match pattern \"{}\"", pattern.source),
                        name,
                    );
                }
            }
            Keyword::MaxItems { path, limit } | Keyword::MinItems { path, limit } => {
                let Some(items) = data.json().and_then(J::items) else {
                    return;
                };
                let max = matches!(keyword, Keyword::MaxItems { .. });
                let bound = Bound::of(max, ("maxItems", "minItems"), "items");
                self.count_within(items.len(), limit, bound, inst, path, name);
            }
            Keyword::MaxProperties { path, limit } | Keyword::MinProperties { path, limit } => {
                let Some(len) = data.json().and_then(J::members_len) else {
                    return;
                };
                let max = matches!(keyword, Keyword::MaxProperties { .. });
                let bound = Bound::of(max, ("maxProperties", "minProperties"), "properties");
                self.count_within(len, limit, bound, inst, path, name);
            }
            Keyword::UniqueItems { path, scalar_types } => {
                let Some(items) = data.json().and_then(J::items) else {
                    return;
                };
                if let Some((i, j)) = self.duplicate(items, scalar_types.as_deref()) {
                    self.error(
                        inst,
                        path,
                        "uniqueItems",
                        params([("i", Value::from(i)), ("j", Value::from(j))]),
                        format!(
                            "must NOT have duplicate items (items ## {j} and {i} are identical)"
                        ),
                        name,
                    );
                }
            }
            Keyword::Required { path, names } => {
                let Some(object) = data.json().filter(|d| d.is_object()) else {
                    return;
                };
                let missing: Vec<&String> = names.iter().filter(|n| !self.has(object, n)).collect();
                for missing in missing {
                    self.error(
                        inst,
                        path,
                        "required",
                        params([("missingProperty", Value::from(missing.as_str()))]),
                        format!("must have required property '{missing}'"),
                        name,
                    );
                }
            }
            Keyword::DependentRequired { path, deps } => {
                let Some(object) = data.json().filter(|d| d.is_object()) else {
                    return;
                };
                for (property, names) in deps {
                    if !self.has(object, property) {
                        continue;
                    }
                    let missing: Vec<&String> =
                        names.iter().filter(|n| !self.has(object, n)).collect();
                    for missing in missing {
                        let noun = if names.len() == 1 {
                            "property"
                        } else {
                            "properties"
                        };
                        let list = names.join(", ");
                        self.error(
                            inst,
                            path,
                            "dependentRequired",
                            params([
                                ("property", Value::from(property.as_str())),
                                ("missingProperty", Value::from(missing.as_str())),
                                ("depsCount", Value::from(names.len())),
                                ("deps", Value::from(list.as_str())),
                            ]),
                            format!("must have {noun} {list} when property {property} is present"),
                            name,
                        );
                    }
                }
            }
            _ => {}
        }
    }

    /// The pair Ajv's `uniqueItems` reports, `(i, j)`. With scalar item types known it walks down
    /// from the end keeping the last index of each value (so `j > i`); otherwise it compares each
    /// item with every earlier one, from the end (so `j < i`).
    fn duplicate<J: Instance>(
        &mut self,
        items: &[J],
        scalar_types: Option<&[DataType]>,
    ) -> Option<(usize, usize)> {
        match scalar_types {
            _ if items.len() < 2 => None,
            Some(types) => {
                let mut seen: HashMap<String, usize> = HashMap::new();
                for i in (0..items.len()).rev() {
                    let item = &items[i];
                    if self.throws(Some(item)) {
                        return None;
                    }
                    if !types.iter().any(|t| is_type(Some(item), *t)) {
                        continue;
                    }
                    let mut key = scalar_key(item);
                    if types.len() > 1 && item.as_str().is_some() {
                        key.push('_');
                    }
                    if let Some(&j) = seen.get(&key) {
                        return Some((i, j));
                    }
                    seen.insert(key, i);
                }
                None
            }
            None => {
                for i in (1..items.len()).rev() {
                    for j in (0..i).rev() {
                        let (a, b) = (&items[i], &items[j]);
                        if self.throws(Some(a)) || self.throws(Some(b)) {
                            return None;
                        }
                        if self.equal_items(a, b) {
                            return Some((i, j));
                        }
                    }
                }
                None
            }
        }
    }

    /// A count against its limit, with Ajv's issue (`must NOT have more than 3 items`).
    fn count_within(
        &mut self,
        count: usize,
        limit: &Limit,
        bound: Bound,
        inst: &str,
        path: &str,
        name: Option<&str>,
    ) {
        let count = count as f64;
        let fails = if bound.max {
            count > limit.value
        } else {
            count < limit.value
        };
        if fails {
            let comparison = if bound.max { "more" } else { "fewer" };
            self.error(
                inst,
                path,
                bound.keyword,
                params([("limit", limit_json(limit))]),
                format!(
                    "must NOT have {comparison} than {} {}",
                    limit.text, bound.noun
                ),
                name,
            );
        }
    }
}
