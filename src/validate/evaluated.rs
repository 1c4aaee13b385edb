//! What Ajv's generated code knows of the properties and items a schema has evaluated (for
//! `unevaluatedProperties` and `unevaluatedItems`): at compile time a state, at run time the
//! variables of a compiled function and the ops that set them.

/// Which properties a schema has evaluated, as Ajv's code generator knows it (`it.props`): not
/// yet any, all, a static set, or a variable of the generated function that holds them at run
/// time. Ajv's `unevaluatedProperties` answers depend on exactly where it switches to a variable.
#[derive(Debug, Clone, PartialEq)]
pub enum EvaluatedProps {
    Undefined,
    True,
    Keys(Vec<String>),
    Var(usize),
}

/// `it.items`: the same for items (a count instead of a set).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum EvaluatedItems {
    Undefined,
    True,
    Num(f64),
    Var(usize),
}

/// A static value a variable is set to or merged with.
#[derive(Debug, Clone, PartialEq)]
pub enum StaticProps {
    True,
    Keys(Vec<String>),
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum StaticItems {
    True,
    Num(f64),
}

/// The run-time bookkeeping Ajv's generated code does for evaluated properties and items: each
/// op is one of its statements, run where the generated code runs it.
#[derive(Debug, Clone, PartialEq)]
pub enum EvaluatedOp {
    /// `var props = true` / `var props = {}; props.a = true; …`
    PropsInit {
        var: usize,
        value: StaticProps,
    },
    /// `if (to !== true) { to = to || {}; to.a = true; … }` (or `to = true`).
    PropsMergeStatic {
        to: usize,
        from: StaticProps,
    },
    /// `if (to !== true && from !== undefined) { … Object.assign(to, from) }`
    PropsMergeVar {
        from: usize,
        to: usize,
    },
    /// `var props = validate.evaluated.props` after a call.
    PropsFromCall {
        var: usize,
    },
    ItemsInit {
        var: usize,
        value: StaticItems,
    },
    ItemsMergeStatic {
        to: usize,
        from: StaticItems,
    },
    ItemsMergeVar {
        from: usize,
        to: usize,
    },
    ItemsFromCall {
        var: usize,
    },
}

/// A compiled function's frame: how many variables it declares, and what it reports as
/// evaluated (static, or the variables that hold it).
#[derive(Debug, Clone, PartialEq)]
pub struct Frame {
    pub vars: usize,
    pub props: EvaluatedProps,
    pub items: EvaluatedItems,
}
