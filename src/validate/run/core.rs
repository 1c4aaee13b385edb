//! The core vocabulary: references and dynamic anchors.

use super::{Data, Run};
use crate::validate::instance::Instance;
use crate::validate::program::Keyword;

impl<'p> Run<'p> {
    /// `$ref`, `$dynamicAnchor`, `$dynamicRef`.
    pub(super) fn core_keyword<J: Instance>(
        &mut self,
        keyword: &Keyword,
        data: Data<'_, J>,
        inst: &mut String,
        name: Option<&str>,
    ) {
        match keyword {
            Keyword::Ref {
                target,
                inline,
                merge,
            } => {
                let valid = self.same(*target, data, inst, name);
                if *inline || valid {
                    self.exec(merge);
                }
            }
            Keyword::DynamicAnchor {
                name: anchor,
                target,
            } => {
                self.dynamic.entry(anchor.clone()).or_insert(*target);
            }
            Keyword::DynamicRef {
                anchor,
                dynamic,
                fallback,
                merge_dynamic,
                merge,
            } => {
                let anchored = if *dynamic {
                    self.dynamic.get(anchor).copied()
                } else {
                    None
                };
                let (target, ops) = match anchored {
                    Some(target) => (target, merge_dynamic),
                    None => (*fallback, merge),
                };
                if self.same(target, data, inst, name) {
                    self.exec(ops);
                }
            }
            _ => {}
        }
    }
}
