//! The applicator vocabulary: subschemas on the value or its members.

use super::evaluated::PropsVariable;
use super::{Data, Run};
use crate::js::number_to_string;
use crate::validate::instance::Instance;
use crate::validate::issue::params;
use crate::validate::program::Keyword;
use crate::validate::value::{self, Lookup};
use serde_json::{Map, Value};

impl<'p> Run<'p> {
    /// `not`, the composites, `if`, the array and object applicators.
    pub(super) fn applicator_keyword<J: Instance>(
        &mut self,
        keyword: &Keyword,
        mut data: Data<'_, J>,
        inst: &mut String,
        name: Option<&str>,
    ) {
        match keyword {
            Keyword::Not { path, node } => {
                let before = self.errors.len();
                let valid = self.same(*node, data, inst, name);
                self.errors.truncate(before);
                if valid {
                    self.error(
                        inst,
                        path,
                        "not",
                        Map::new(),
                        "must NOT be valid".into(),
                        name,
                    );
                }
            }
            Keyword::AnyOf {
                path,
                nodes,
                merges,
            } => {
                let before = self.errors.len();
                let mut any = false;
                for (node, merge) in nodes.iter().zip(merges) {
                    if self.same(*node, data.reborrow(), inst, name) {
                        any = true;
                        self.exec(merge);
                    }
                }
                if any {
                    self.errors.truncate(before);
                } else {
                    self.error(
                        inst,
                        path,
                        "anyOf",
                        Map::new(),
                        "must match a schema in anyOf".into(),
                        name,
                    );
                }
            }
            Keyword::OneOf {
                path,
                nodes,
                merges,
            } => {
                let before = self.errors.len();
                let mut valid = false;
                let mut passing = Value::Null;
                for (i, (node, merge)) in nodes.iter().zip(merges).enumerate() {
                    let ok = self.same(*node, data.reborrow(), inst, name);
                    if i > 0 && ok && valid {
                        // Ajv's generated code nests the rest in the `else` of this check:
                        // once two schemas pass, the others are not even run.
                        valid = false;
                        passing = Value::Array(vec![passing, Value::from(i)]);
                        break;
                    } else if ok {
                        valid = true;
                        passing = Value::from(i);
                        self.exec(merge);
                    }
                }
                if valid {
                    self.errors.truncate(before);
                } else {
                    self.error(
                        inst,
                        path,
                        "oneOf",
                        params([("passingSchemas", passing)]),
                        "must match exactly one schema in oneOf".into(),
                        name,
                    );
                }
            }
            Keyword::AllOf { nodes, merges } => {
                for (node, merge) in nodes.iter().zip(merges) {
                    self.same(*node, data.reborrow(), inst, name);
                    self.exec(merge);
                }
            }
            Keyword::If {
                path,
                cond,
                cond_merge,
                then,
                otherwise,
            } => {
                let before = self.errors.len();
                let passed = self.same(*cond, data.reborrow(), inst, name);
                self.errors.truncate(before);
                self.exec(cond_merge);
                let (clause, keyword) = if passed {
                    (then, "then")
                } else {
                    (otherwise, "else")
                };
                if let Some((clause, merge)) = clause {
                    if self.same(*clause, data, inst, name) {
                        self.exec(merge);
                    } else {
                        self.error(
                            inst,
                            path,
                            "if",
                            params([("failingKeyword", Value::from(keyword))]),
                            format!("must match \"{keyword}\" schema"),
                            name,
                        );
                    }
                }
            }
            Keyword::PrefixItems { nodes } => {
                let Some(items) = data.items_mut() else {
                    return;
                };
                for (i, node) in nodes.iter().enumerate() {
                    let (Some(node), Some(item)) = (node, items.get_mut(i)) else {
                        continue;
                    };
                    if self.throws(Some(item)) {
                        return;
                    }
                    self.item(*node, Data::Json(item), inst, i);
                }
            }
            Keyword::Items {
                path,
                node,
                from,
                false_after_prefix,
            } => {
                let Some(items) = data.items_mut() else {
                    return;
                };
                match node {
                    Some(node) => {
                        for (i, item) in items.iter_mut().enumerate().skip(*from) {
                            if self.throws(Some(item)) {
                                return;
                            }
                            self.item(*node, Data::Json(item), inst, i);
                        }
                    }
                    None if *false_after_prefix && items.len() > *from => {
                        self.error(
                            inst,
                            path,
                            "items",
                            params([("limit", Value::from(*from))]),
                            format!("must NOT have more than {from} items"),
                            name,
                        );
                    }
                    None => {}
                }
            }
            Keyword::Contains {
                path,
                node,
                min,
                max,
                min_json,
                max_json,
            } => {
                let Some(items) = data.items_mut() else {
                    return;
                };
                let before = self.errors.len();
                let mut count = 0usize;
                let len = items.len();
                match node {
                    None => count = len,
                    Some(node) => {
                        for (i, item) in items.iter_mut().enumerate() {
                            if self.throws(Some(item)) {
                                return;
                            }
                            if self.item(*node, Data::Json(item), inst, i) {
                                count += 1;
                                if max.is_none() && count as f64 >= *min {
                                    break;
                                }
                                if max.is_some_and(|m| count as f64 > m) {
                                    break;
                                }
                            }
                        }
                    }
                }
                let ok = count as f64 >= *min && max.is_none_or(|m| count as f64 <= m);
                if ok {
                    self.errors.truncate(before);
                } else {
                    let (p, message) = match max_json {
                        None => (
                            params([("minContains", min_json.clone())]),
                            format!(
                                "must contain at least {} valid item(s)",
                                number_to_string(*min)
                            ),
                        ),
                        Some(max_value) => (
                            params([
                                ("minContains", min_json.clone()),
                                ("maxContains", max_value.clone()),
                            ]),
                            format!(
                                "must contain at least {} and no more than {} valid item(s)",
                                number_to_string(*min),
                                number_to_string(max.unwrap_or(0.0))
                            ),
                        ),
                    };
                    self.error(inst, path, "contains", p, message, name);
                }
            }
            Keyword::PropertyNames { path, node } => {
                let Some(object) = data.json().filter(|d| d.is_object()) else {
                    return;
                };
                let keys: Vec<String> = object
                    .for_in_keys()
                    .into_iter()
                    .map(str::to_owned)
                    .collect();
                for key in keys {
                    let mut key_value = J::from_key(&key);
                    let valid = self.same(*node, Data::Json(&mut key_value), inst, Some(&key));
                    if !valid {
                        self.error(
                            inst,
                            path,
                            "propertyNames",
                            params([("propertyName", Value::from(key.as_str()))]),
                            "property name must be valid".into(),
                            name,
                        );
                    }
                }
            }
            Keyword::AdditionalProperties {
                path,
                node,
                is_false,
                props,
                patterns,
            } => {
                let Some(object) = data.object_mut() else {
                    return;
                };
                if node.is_none() && !is_false {
                    return;
                }
                let declared = |key: &str| {
                    props.iter().any(|p| p == key) || patterns.iter().any(|p| p.test(key))
                };
                // The usual object has no other member: nothing to list or to visit.
                if object.keys().into_iter().all(declared) {
                    return;
                }
                let keys: Vec<String> = object
                    .for_in_keys()
                    .into_iter()
                    .map(str::to_owned)
                    .collect();
                for key in keys {
                    if declared(&key) {
                        continue;
                    }
                    if *is_false {
                        self.error(
                            inst,
                            path,
                            "additionalProperties",
                            params([("additionalProperty", Value::from(key.as_str()))]),
                            "must NOT have additional properties".into(),
                            name,
                        );
                    } else if let (Some(node), Some(value)) = (node, object.get_mut(&key)) {
                        if self.throws(Some(&*value)) {
                            return;
                        }
                        self.child(*node, Data::Json(value), inst, &key);
                    }
                }
            }
            Keyword::Properties { props } => {
                let Some(object) = data.object_mut() else {
                    return;
                };
                for (key, node, _) in props {
                    let Some(node) = node else { continue };
                    let found = object.get_mut(key);
                    if self.throws(found.as_deref()) {
                        return;
                    }
                    let marker = found.as_deref().map(J::marker);
                    match (value::lookup_marked(marker, key), found) {
                        (Lookup::Missing, _) => {}
                        (Lookup::Inherited, _) => {
                            self.child(*node, Data::<J>::NonJson, inst, key);
                        }
                        (Lookup::Own, Some(value)) => {
                            self.child(*node, Data::Json(value), inst, key);
                        }
                        (Lookup::Own, None) => {}
                    }
                }
            }
            Keyword::PatternProperties { patterns, mark } => {
                let Some(object) = data.object_mut() else {
                    return;
                };
                let keys: Vec<String> = object
                    .for_in_keys()
                    .into_iter()
                    .map(str::to_owned)
                    .collect();
                for (pattern, node) in patterns {
                    for key in &keys {
                        if !pattern.test(key) {
                            continue;
                        }
                        if let Some(var) = mark {
                            if let Some(PropsVariable::Set(set)) =
                                self.frames.last_mut().and_then(|f| f.props.get_mut(*var))
                            {
                                set.insert(key.clone());
                            }
                        }
                        if let (Some(node), Some(value)) = (node, object.get_mut(key)) {
                            if self.throws(Some(&*value)) {
                                return;
                            }
                            self.child(*node, Data::Json(value), inst, key);
                        }
                    }
                }
            }
            Keyword::DependentSchemas { deps } => {
                for (property, node, merge) in deps {
                    let present = matches!(data.json(), Some(object) if object.is_object() && self.has(object, property));
                    if present && self.same(*node, data.reborrow(), inst, name) {
                        self.exec(merge);
                    }
                }
            }
            _ => {}
        }
    }
}
