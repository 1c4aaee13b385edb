//! Counts of agreement and disagreement, grouped by cause, with a few examples each.

use std::collections::BTreeMap;

/// How many examples a group keeps.
const EXAMPLES: usize = 3;

/// Disagreements by group: a count and the first few examples.
#[derive(Debug, Default)]
pub struct Groups {
    by_name: BTreeMap<String, (usize, Vec<String>)>,
}

impl Groups {
    pub fn add(&mut self, group: String, example: impl FnOnce() -> String) {
        let entry = self.by_name.entry(group).or_default();
        entry.0 += 1;
        if entry.1.len() < EXAMPLES {
            entry.1.push(example());
        }
    }

    pub fn total(&self) -> usize {
        self.by_name.values().map(|(count, _)| count).sum()
    }

    /// Largest group first.
    pub fn print(&self, title: &str) {
        if self.by_name.is_empty() {
            return;
        }
        println!("    {title}: {}", self.total());
        let mut groups: Vec<_> = self.by_name.iter().collect();
        groups.sort_by(|a, b| b.1 .0.cmp(&a.1 .0).then(a.0.cmp(b.0)));
        for (name, (count, examples)) in groups {
            println!("      {count:>5}  {name}");
            for example in examples {
                println!("               e.g. {example}");
            }
        }
    }
}

/// Verdicts on values, where both sides compiled the schema.
#[derive(Debug, Default)]
pub struct Verdicts {
    pub compared: usize,
    pub agree: usize,
    /// Ajv's validation function threw: no verdict to compare.
    pub unjudged: usize,
    pub panics: usize,
    /// Valid here, invalid for Ajv: a fast path answering "valid" would be wrong.
    pub accepts: Groups,
    /// Invalid here, valid for Ajv: a fast path falling back on "invalid" stays right.
    pub rejects: Groups,
}

/// Compile outcomes.
#[derive(Debug, Default)]
pub struct Compiles {
    pub schemas: usize,
    pub both_compile: usize,
    pub both_refuse: usize,
    /// Ajv refuses, this one compiles: grouped by Ajv's reason.
    pub only_ajv_refuses: Groups,
    /// This one refuses, Ajv compiles: grouped by this one's reason.
    pub only_this_refuses: Groups,
}

impl Compiles {
    pub fn print(&self) {
        println!(
            "    schemas {}: both compile {}, both refuse {}, only Ajv refuses {}, only this refuses {}",
            self.schemas,
            self.both_compile,
            self.both_refuse,
            self.only_ajv_refuses.total(),
            self.only_this_refuses.total()
        );
        self.only_ajv_refuses
            .print("Ajv refuses, this compiles (Ajv's reason)");
        self.only_this_refuses
            .print("this refuses, Ajv compiles (its reason)");
    }
}

impl Verdicts {
    pub fn print(&self) {
        println!(
            "    values compared {}: agree {}, accepts what Ajv rejects {}, rejects what Ajv accepts {}, panics {}, unjudged {}",
            self.compared,
            self.agree,
            self.accepts.total(),
            self.rejects.total(),
            self.panics,
            self.unjudged
        );
        self.accepts
            .print("accepts what Ajv rejects (by the schema path of Ajv's issue)");
        self.rejects
            .print("rejects what Ajv accepts (by the schema path of its error)");
    }
}
