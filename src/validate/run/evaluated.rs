//! The evaluated-properties and evaluated-items variables of the compiled functions running,
//! and the ops that set and merge them (the statements of Ajv's generated code).

use super::Run;
use crate::validate::evaluated::{EvaluatedOp, StaticItems, StaticProps};
use std::collections::HashSet;

/// A run-time evaluated-properties variable (`props` in Ajv's generated code).
#[derive(Debug, Clone, Default, PartialEq)]
pub enum PropsVariable {
    #[default]
    Undefined,
    True,
    Set(HashSet<String>),
}

/// A run-time evaluated-items variable: `undefined`, `true` or a count.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub enum ItemsVariable {
    #[default]
    Undefined,
    True,
    Num(f64),
}

impl ItemsVariable {
    /// JavaScript's `a > b` with a number `a` (this) and `b` a variable's value.
    pub fn greater_than_items(self, other: ItemsVariable) -> bool {
        match (self, other) {
            (ItemsVariable::Num(a), ItemsVariable::Num(b)) => a > b,
            (ItemsVariable::Num(a), ItemsVariable::True) => a > 1.0,
            _ => false,
        }
    }
}

pub fn props_value(value: &StaticProps) -> PropsVariable {
    match value {
        StaticProps::True => PropsVariable::True,
        StaticProps::Keys(keys) => PropsVariable::Set(keys.iter().cloned().collect()),
    }
}

fn items_value(value: StaticItems) -> ItemsVariable {
    match value {
        StaticItems::True => ItemsVariable::True,
        StaticItems::Num(n) => ItemsVariable::Num(n),
    }
}

/// `if (to !== true) { to = to || {}; Object.assign(to, from) }` (`from === true` makes it true).
fn merge_props(to: &mut PropsVariable, from: &PropsVariable) {
    match (to as &PropsVariable, from) {
        (PropsVariable::True, _) | (_, PropsVariable::Undefined) => {}
        (_, PropsVariable::True) => *to = PropsVariable::True,
        (PropsVariable::Undefined, PropsVariable::Set(keys)) => {
            *to = PropsVariable::Set(keys.clone())
        }
        (PropsVariable::Set(_), PropsVariable::Set(keys)) => {
            if let PropsVariable::Set(set) = to {
                set.extend(keys.iter().cloned());
            }
        }
    }
}

/// `if (to !== true) to = from === true ? true : to > from ? to : from`.
fn merge_items(to: &mut ItemsVariable, from: ItemsVariable) {
    if *to == ItemsVariable::True {
        return;
    }
    *to = match from {
        ItemsVariable::True => ItemsVariable::True,
        ItemsVariable::Undefined => *to,
        ItemsVariable::Num(f) => match *to {
            ItemsVariable::Num(t) if t > f => ItemsVariable::Num(t),
            _ => ItemsVariable::Num(f),
        },
    };
}

/// The variables of one running compiled function.
#[derive(Debug, Default)]
pub struct FrameVariables {
    pub props: Vec<PropsVariable>,
    pub items: Vec<ItemsVariable>,
}

impl<'p> Run<'p> {
    /// Runs evaluated-tracking ops in the current function's frame.
    pub(super) fn exec(&mut self, ops: &[EvaluatedOp]) {
        let last_call = &self.last_call;
        let Some(frame) = self.frames.last_mut() else {
            return;
        };
        for op in ops {
            match op {
                EvaluatedOp::PropsInit { var, value } => {
                    if let Some(slot) = frame.props.get_mut(*var) {
                        *slot = props_value(value);
                    }
                }
                EvaluatedOp::PropsMergeStatic { to, from } => {
                    if let Some(slot) = frame.props.get_mut(*to) {
                        merge_props(slot, &props_value(from));
                    }
                }
                EvaluatedOp::PropsMergeVar { from, to } => {
                    let source = frame.props.get(*from).cloned().unwrap_or_default();
                    if source != PropsVariable::Undefined {
                        if let Some(slot) = frame.props.get_mut(*to) {
                            merge_props(slot, &source);
                        }
                    }
                }
                EvaluatedOp::PropsFromCall { var } => {
                    if let Some(slot) = frame.props.get_mut(*var) {
                        *slot = last_call.0.clone();
                    }
                }
                EvaluatedOp::ItemsInit { var, value } => {
                    if let Some(slot) = frame.items.get_mut(*var) {
                        *slot = items_value(*value);
                    }
                }
                EvaluatedOp::ItemsMergeStatic { to, from } => {
                    if let Some(slot) = frame.items.get_mut(*to) {
                        merge_items(slot, items_value(*from));
                    }
                }
                EvaluatedOp::ItemsMergeVar { from, to } => {
                    let source = frame.items.get(*from).copied().unwrap_or_default();
                    if source != ItemsVariable::Undefined {
                        if let Some(slot) = frame.items.get_mut(*to) {
                            merge_items(slot, source);
                        }
                    }
                }
                EvaluatedOp::ItemsFromCall { var } => {
                    if let Some(slot) = frame.items.get_mut(*var) {
                        *slot = last_call.1;
                    }
                }
            }
        }
    }

    pub(super) fn frame_props(&self, var: usize) -> PropsVariable {
        self.frames
            .last()
            .and_then(|f| f.props.get(var).cloned())
            .unwrap_or_default()
    }

    pub(super) fn frame_items(&self, var: usize) -> ItemsVariable {
        self.frames
            .last()
            .and_then(|f| f.items.get(var).copied())
            .unwrap_or_default()
    }
}
