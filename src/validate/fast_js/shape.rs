//! Whether a compiled program can be written for the fast path at all: no same-value cycle,
//! no default reachable from a subschema whose failure is not the value's.

use crate::validate::program::{Keyword, NodeId, ObjectSchema, Program, SchemaNode};

/// What must hold of the whole program for the fast path to answer as the full validator does.
pub(super) struct Shape<'p> {
    program: &'p Program,
}

impl<'p> Shape<'p> {
    pub(super) fn of(program: &'p Program) -> Shape<'p> {
        Shape { program }
    }

    /// No cycle of subschemas applied to the same value (a schema that recurses on one value
    /// forever makes Ajv's code overflow the stack, an answer the full validator gives), and no
    /// defaults reachable from a subschema whose failure is not the value's (`anyOf`, `not`, …):
    /// the fast path stops a subschema at its first failure, Ajv fills the defaults after it.
    pub(super) fn fits(&self) -> bool {
        !self.has_same_value_cycle() && !self.soft_reaches_defaults()
    }

    fn obj(&self, id: NodeId) -> Option<&'p ObjectSchema> {
        match self.program.nodes.get(id) {
            Some(SchemaNode::Object(obj)) => Some(obj),
            _ => None,
        }
    }

    /// The subschemas a node applies to its own value.
    fn same_value(&self, id: NodeId) -> Vec<NodeId> {
        let mut found = Vec::new();
        for keyword in self.obj(id).into_iter().flat_map(keywords) {
            match keyword {
                Keyword::Ref { target, .. } => found.push(*target),
                Keyword::Not { node, .. } => found.push(*node),
                Keyword::AnyOf { nodes, .. }
                | Keyword::OneOf { nodes, .. }
                | Keyword::AllOf { nodes, .. } => found.extend(nodes),
                Keyword::If {
                    cond,
                    then,
                    otherwise,
                    ..
                } => {
                    found.push(*cond);
                    found.extend(then.iter().chain(otherwise).map(|(n, _)| *n));
                }
                Keyword::DependentSchemas { deps } => found.extend(deps.iter().map(|d| d.1)),
                _ => {}
            }
        }
        found
    }

    /// Every subschema a node applies, with whether its failure is the node's own.
    fn children(&self, id: NodeId) -> Vec<(NodeId, bool)> {
        let mut found = Vec::new();
        for keyword in self.obj(id).into_iter().flat_map(keywords) {
            match keyword {
                Keyword::Not { node, .. } => found.push((*node, false)),
                Keyword::AnyOf { nodes, .. } | Keyword::OneOf { nodes, .. } => {
                    found.extend(nodes.iter().map(|n| (*n, false)))
                }
                Keyword::If {
                    cond,
                    then,
                    otherwise,
                    ..
                } => {
                    found.push((*cond, false));
                    found.extend(then.iter().chain(otherwise).map(|(n, _)| (*n, true)));
                }
                Keyword::Contains { node, .. } => found.extend(node.map(|n| (n, false))),
                Keyword::Ref { target, .. } => found.push((*target, true)),
                Keyword::AllOf { nodes, .. } => found.extend(nodes.iter().map(|n| (*n, true))),
                Keyword::DependentSchemas { deps } => {
                    found.extend(deps.iter().map(|d| (d.1, true)))
                }
                Keyword::PrefixItems { nodes } => {
                    found.extend(nodes.iter().flatten().map(|n| (*n, true)))
                }
                Keyword::Items { node, .. } | Keyword::AdditionalProperties { node, .. } => {
                    found.extend(node.map(|n| (n, true)))
                }
                Keyword::PropertyNames { node, .. } => found.push((*node, true)),
                Keyword::Properties { props } => {
                    found.extend(props.iter().filter_map(|p| p.1).map(|n| (n, true)))
                }
                Keyword::PatternProperties { patterns, .. } => {
                    found.extend(patterns.iter().filter_map(|p| p.1).map(|n| (n, true)))
                }
                _ => {}
            }
        }
        found
    }

    fn has_same_value_cycle(&self) -> bool {
        // Depth-first with colours: 1 on the path, 2 done.
        let mut colour = vec![0u8; self.program.nodes.len()];
        for start in 0..colour.len() {
            if colour[start] != 0 {
                continue;
            }
            let mut stack = vec![(start, self.same_value(start), 0usize)];
            colour[start] = 1;
            while let Some((node, next, at)) = stack.last_mut() {
                if let Some(&child) = next.get(*at) {
                    *at += 1;
                    match colour.get(child) {
                        Some(1) => return true,
                        Some(0) => {
                            colour[child] = 1;
                            let grand = self.same_value(child);
                            stack.push((child, grand, 0));
                        }
                        _ => {}
                    }
                } else {
                    colour[*node] = 2;
                    stack.pop();
                }
            }
        }
        false
    }

    fn soft_reaches_defaults(&self) -> bool {
        let count = self.program.nodes.len();
        // Nodes from which a default can be filled: a fixed point over the children.
        let mut fills: Vec<bool> = (0..count)
            .map(|id| self.obj(id).is_some_and(|o| !o.defaults.is_empty()))
            .collect();
        let children: Vec<Vec<(NodeId, bool)>> = (0..count).map(|id| self.children(id)).collect();
        let mut changed = true;
        while changed {
            changed = false;
            for id in 0..count {
                if !fills[id]
                    && children[id]
                        .iter()
                        .any(|(c, _)| fills.get(*c) == Some(&true))
                {
                    fills[id] = true;
                    changed = true;
                }
            }
        }
        children
            .iter()
            .flatten()
            .any(|(child, hard)| !hard && fills.get(*child) == Some(&true))
    }
}

fn keywords(obj: &ObjectSchema) -> impl Iterator<Item = &Keyword> {
    obj.groups.iter().flat_map(|g| g.keywords.iter())
}
