//! Ajv's `mergeEvaluated` and its kin at compile time: what each location has evaluated so far,
//! and the ops (statements of its generated code) that keep the run-time variables.

use super::{Compiler, EvaluatedSoFar};
use crate::validate::evaluated::{
    EvaluatedItems, EvaluatedOp, EvaluatedProps, StaticItems, StaticProps,
};
use crate::validate::program::NodeId;

impl<'s> Compiler<'s> {
    pub(super) fn current(&mut self) -> Option<&mut EvaluatedSoFar> {
        self.eval.last_mut()
    }

    pub(super) fn new_var(&mut self) -> usize {
        self.frame_vars += 1;
        self.frame_vars - 1
    }

    /// Ajv's `mergeEvaluated.props(gen, from, to, toName)`: the new state, with the code it
    /// generates in `ops`.
    pub(super) fn merge_props(
        &mut self,
        from: EvaluatedProps,
        to: EvaluatedProps,
        to_name: bool,
        ops: &mut Vec<EvaluatedOp>,
    ) -> EvaluatedProps {
        let static_value = |state: &EvaluatedProps| match state {
            EvaluatedProps::True => Some(StaticProps::True),
            EvaluatedProps::Keys(keys) => Some(StaticProps::Keys(keys.clone())),
            _ => None,
        };
        let result = match (&from, &to) {
            (_, EvaluatedProps::Undefined) => from.clone(),
            (EvaluatedProps::Var(f), EvaluatedProps::Var(t)) => {
                ops.push(EvaluatedOp::PropsMergeVar { from: *f, to: *t });
                to.clone()
            }
            (_, EvaluatedProps::Var(t)) => {
                if let Some(value) = static_value(&from) {
                    ops.push(EvaluatedOp::PropsMergeStatic {
                        to: *t,
                        from: value,
                    });
                }
                to.clone()
            }
            (EvaluatedProps::Var(f), _) => {
                if let Some(value) = static_value(&to) {
                    ops.push(EvaluatedOp::PropsMergeStatic {
                        to: *f,
                        from: value,
                    });
                }
                from.clone()
            }
            (EvaluatedProps::True, _) => EvaluatedProps::True,
            (EvaluatedProps::Keys(f), EvaluatedProps::Keys(t)) => {
                let mut keys = f.clone();
                for key in t {
                    if !keys.contains(key) {
                        keys.push(key.clone());
                    }
                }
                EvaluatedProps::Keys(keys)
            }
            (_, other) => other.clone(),
        };
        if to_name && !matches!(result, EvaluatedProps::Var(_)) {
            let var = self.new_var();
            let value = match &result {
                EvaluatedProps::True => StaticProps::True,
                EvaluatedProps::Keys(keys) => StaticProps::Keys(keys.clone()),
                _ => StaticProps::Keys(Vec::new()),
            };
            ops.push(EvaluatedOp::PropsInit { var, value });
            return EvaluatedProps::Var(var);
        }
        result
    }

    /// Ajv's `mergeEvaluated.items(gen, from, to, toName)`.
    pub(super) fn merge_items(
        &mut self,
        from: EvaluatedItems,
        to: EvaluatedItems,
        to_name: bool,
        ops: &mut Vec<EvaluatedOp>,
    ) -> EvaluatedItems {
        let static_value = |state: EvaluatedItems| match state {
            EvaluatedItems::True => Some(StaticItems::True),
            EvaluatedItems::Num(n) => Some(StaticItems::Num(n)),
            _ => None,
        };
        let result = match (from, to) {
            (_, EvaluatedItems::Undefined) => from,
            (EvaluatedItems::Var(f), EvaluatedItems::Var(t)) => {
                ops.push(EvaluatedOp::ItemsMergeVar { from: f, to: t });
                to
            }
            (_, EvaluatedItems::Var(t)) => {
                if let Some(value) = static_value(from) {
                    ops.push(EvaluatedOp::ItemsMergeStatic { to: t, from: value });
                }
                to
            }
            (EvaluatedItems::Var(f), _) => {
                if let Some(value) = static_value(to) {
                    ops.push(EvaluatedOp::ItemsMergeStatic { to: f, from: value });
                }
                from
            }
            (EvaluatedItems::True, _) => EvaluatedItems::True,
            (EvaluatedItems::Num(a), EvaluatedItems::Num(b)) => EvaluatedItems::Num(a.max(b)),
            (_, other) => other,
        };
        if to_name && !matches!(result, EvaluatedItems::Var(_)) {
            let var = self.new_var();
            let value = match result {
                EvaluatedItems::True => StaticItems::True,
                EvaluatedItems::Num(n) => StaticItems::Num(n),
                _ => StaticItems::Num(0.0),
            };
            // Ajv's `resultToName` for items is `var items = <value>` (undefined stays undefined).
            if !matches!(result, EvaluatedItems::Undefined) {
                ops.push(EvaluatedOp::ItemsInit { var, value });
            }
            return EvaluatedItems::Var(var);
        }
        result
    }

    /// Ajv's `KeywordCxt.mergeEvaluated(schemaCxt, toName)` of subschema `node` into the
    /// current location; returns the generated code.
    pub(super) fn merge_evaluated(&mut self, node: NodeId, to_name: bool) -> Vec<EvaluatedOp> {
        let mut ops = Vec::new();
        let (from_props, from_items) = self
            .states
            .get(&node)
            .cloned()
            .unwrap_or((EvaluatedProps::Undefined, EvaluatedItems::Undefined));
        self.merge_state(from_props, from_items, to_name, &mut ops);
        ops
    }

    pub(super) fn merge_state(
        &mut self,
        from_props: EvaluatedProps,
        from_items: EvaluatedItems,
        to_name: bool,
        ops: &mut Vec<EvaluatedOp>,
    ) {
        let Some(current) = self.eval.last().cloned() else {
            return;
        };
        let mut props = current.props.clone();
        let mut items = current.items;
        if props != EvaluatedProps::True && from_props != EvaluatedProps::Undefined {
            props = self.merge_props(from_props, props, to_name, ops);
        }
        if items != EvaluatedItems::True && from_items != EvaluatedItems::Undefined {
            items = self.merge_items(from_items, items, to_name, ops);
        }
        if let Some(state) = self.current() {
            state.props = props;
            state.items = items;
        }
    }

    /// Ajv's `mergeValidEvaluated`: the merge, run only when the subschema passed.
    pub(super) fn merge_valid_evaluated(&mut self, node: NodeId) -> Vec<EvaluatedOp> {
        let both_true = self
            .eval
            .last()
            .is_some_and(|s| s.props == EvaluatedProps::True && s.items == EvaluatedItems::True);
        if both_true {
            return Vec::new();
        }
        self.merge_evaluated(node, true)
    }

    /// Ajv's `addEvaluatedFrom` after calling function `target` (in the success branch).
    pub(super) fn merge_from_call(&mut self, target: Option<NodeId>) -> Vec<EvaluatedOp> {
        let mut ops = Vec::new();
        let Some(current) = self.eval.last().cloned() else {
            return ops;
        };
        let known = target.and_then(|t| self.finished.get(&t).cloned());
        let mut props = current.props.clone();
        let mut items = current.items;
        if props != EvaluatedProps::True {
            match &known {
                Some(frame) if !matches!(frame.props, EvaluatedProps::Var(_)) => {
                    if frame.props != EvaluatedProps::Undefined {
                        props = self.merge_props(frame.props.clone(), props, false, &mut ops);
                    }
                }
                _ => {
                    let var = self.new_var();
                    ops.push(EvaluatedOp::PropsFromCall { var });
                    props = self.merge_props(EvaluatedProps::Var(var), props, true, &mut ops);
                }
            }
        }
        if items != EvaluatedItems::True {
            match &known {
                Some(frame) if !matches!(frame.items, EvaluatedItems::Var(_)) => {
                    if frame.items != EvaluatedItems::Undefined {
                        items = self.merge_items(frame.items, items, false, &mut ops);
                    }
                }
                _ => {
                    let var = self.new_var();
                    ops.push(EvaluatedOp::ItemsFromCall { var });
                    items = self.merge_items(EvaluatedItems::Var(var), items, true, &mut ops);
                }
            }
        }
        if let Some(state) = self.current() {
            state.props = props;
            state.items = items;
        }
        ops
    }

    pub(super) fn set_props(&mut self, props: EvaluatedProps) {
        if let Some(state) = self.current() {
            state.props = props;
        }
    }

    pub(super) fn set_items(&mut self, items: EvaluatedItems) {
        if let Some(state) = self.current() {
            state.items = items;
        }
    }

    pub(super) fn take_pending(&mut self) -> Vec<EvaluatedOp> {
        self.current()
            .map(|s| std::mem::take(&mut s.pending))
            .unwrap_or_default()
    }
}
