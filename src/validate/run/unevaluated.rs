//! The unevaluated vocabulary: `unevaluatedItems` and `unevaluatedProperties`.

use super::evaluated::{ItemsVariable, PropsVariable};
use super::{Data, Run};
use crate::js::number_to_string;
use crate::validate::evaluated::{EvaluatedItems, EvaluatedProps};
use crate::validate::instance::Instance;
use crate::validate::issue::params;
use crate::validate::program::Keyword;
use serde_json::{Map, Value};

impl<'p> Run<'p> {
    /// What no other keyword evaluated.
    pub(super) fn unevaluated_keyword<J: Instance>(
        &mut self,
        keyword: &Keyword,
        data: Data<'_, J>,
        inst: &mut String,
        name: Option<&str>,
    ) {
        match keyword {
            Keyword::UnevaluatedItems {
                path,
                node,
                is_false,
                state,
            } => {
                let Some(items) = data.items_mut() else {
                    return;
                };
                // Ajv's `const items = it.items || 0`, read at run time when it is a variable.
                let evaluated = match *state {
                    EvaluatedItems::True => return,
                    EvaluatedItems::Undefined => ItemsVariable::Num(0.0),
                    EvaluatedItems::Num(n) => ItemsVariable::Num(n),
                    EvaluatedItems::Var(var) => self.frame_items(var),
                };
                let len = items.len();
                if *is_false {
                    if ItemsVariable::Num(len as f64).greater_than_items(evaluated) {
                        let (limit, text) = match evaluated {
                            ItemsVariable::Num(n) => {
                                (Some(Value::from(n as u64)), number_to_string(n))
                            }
                            ItemsVariable::True => (Some(Value::Bool(true)), "true".into()),
                            ItemsVariable::Undefined => (None, "undefined".into()),
                        };
                        let mut p = Map::new();
                        if let Some(limit) = limit {
                            p.insert("limit".into(), limit);
                        }
                        self.error(
                            inst,
                            path,
                            "unevaluatedItems",
                            p,
                            format!("must NOT have more than {text} items"),
                            name,
                        );
                    }
                } else if let Some(node) = node {
                    let from = match evaluated {
                        ItemsVariable::Num(n) if (len as f64) > n => Some(n.max(0.0) as usize),
                        ItemsVariable::True if len > 1 => Some(1),
                        _ => None,
                    };
                    if let Some(from) = from {
                        for (i, item) in items.iter_mut().enumerate().skip(from) {
                            if self.throws(Some(item)) {
                                return;
                            }
                            self.item(*node, Data::Json(item), inst, i);
                        }
                    }
                }
            }
            Keyword::UnevaluatedProperties {
                path,
                node,
                is_false,
                state,
            } => {
                let Some(object) = data.object_mut() else {
                    return;
                };
                let evaluated = match state {
                    EvaluatedProps::True => return,
                    EvaluatedProps::Undefined => PropsVariable::Undefined,
                    EvaluatedProps::Keys(keys) => {
                        PropsVariable::Set(keys.iter().cloned().collect())
                    }
                    EvaluatedProps::Var(var) => self.frame_props(*var),
                };
                let keys: Vec<String> = object
                    .for_in_keys()
                    .into_iter()
                    .filter(|k| match &evaluated {
                        PropsVariable::True => false,
                        PropsVariable::Undefined => true,
                        PropsVariable::Set(set) => !set.contains(*k),
                    })
                    .map(str::to_owned)
                    .collect();
                for key in keys {
                    if *is_false {
                        self.error(
                            inst,
                            path,
                            "unevaluatedProperties",
                            params([("unevaluatedProperty", Value::from(key.as_str()))]),
                            "must NOT have unevaluated properties".into(),
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
            _ => {}
        }
    }
}
