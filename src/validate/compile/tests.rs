//! Compilation on its own: the refusals (Ajv's error for each, taken from Ajv 8.17 configured as
//! the TypeScript package configures it), what a schema compiles to, and where references and
//! anchors lead.

use super::compile;
use crate::validate::evaluated::Frame;
use crate::validate::program::{Keyword, NodeId, Program, SchemaNode, Side};
use crate::validate::resources::collect_resources;
use crate::validate::schema_check::check_schema;
use serde_json::{json, Value};

/// What `Validator::compile` does: Ajv's checks, then the code generator's walk.
fn compiled(schema: &Value, side: Side) -> Result<Program, String> {
    check_schema(schema)
        .and_then(|()| compile(schema, side))
        .map_err(|error| error.to_string())
}

fn program(schema: Value, side: Side) -> Program {
    compiled(&schema, side).unwrap_or_else(|error| panic!("{schema} does not compile: {error}"))
}

/// A keyword's variant name (`Ref`, `AnyOf`, …).
fn variant(keyword: &Keyword) -> String {
    let debug = format!("{keyword:?}");
    debug
        .split(|c: char| !c.is_alphanumeric())
        .next()
        .unwrap_or_default()
        .to_owned()
}

/// A schema node as text: `path type-first? [group: keywords…; …]`, `true` or `false`.
fn shape(program: &Program, id: NodeId) -> String {
    match &program.nodes[id] {
        SchemaNode::True => "true".into(),
        SchemaNode::False(path) => format!("false at {path}"),
        SchemaNode::Pending => "pending".into(),
        SchemaNode::Object(object) => {
            let groups: Vec<String> = object
                .groups
                .iter()
                .map(|code| {
                    let keywords: Vec<String> = code.keywords.iter().map(variant).collect();
                    let type_error = if code.type_error { "!" } else { "" };
                    format!("{:?}{type_error}: {}", code.group, keywords.join(" "))
                })
                .collect();
            let first = if object.type_first { " type-first" } else { "" };
            format!("{}{first} [{}]", object.path, groups.join("; "))
        }
    }
}

fn root_keywords(program: &Program) -> &[Keyword] {
    match &program.nodes[program.root] {
        SchemaNode::Object(object) => object
            .groups
            .first()
            .map_or(&[][..], |code| &code.keywords[..]),
        other => panic!("the root is {other:?}"),
    }
}

/// The first reference of the root and whether it is inlined.
fn root_ref(program: &Program) -> (NodeId, bool) {
    root_keywords(program)
        .iter()
        .find_map(|keyword| match keyword {
            Keyword::Ref { target, inline, .. } => Some((*target, *inline)),
            _ => None,
        })
        .expect("the root holds a $ref")
}

#[test]
fn refusals_carry_ajvs_error() {
    let cases: Vec<(Value, Side, &str)> = vec![
        (json!(null), Side::Output, "TypeError: Cannot read properties of null (reading '$id')"),
        (json!(5), Side::Output, "Error: schema must be object or boolean"),
        (json!({"$id": 5}), Side::Output, "TypeError: id.replace is not a function"),
        (
            json!({"$schema": "http://json-schema.org/draft-07/schema#"}),
            Side::Output,
            "Error: no schema with key or ref \"http://json-schema.org/draft-07/schema#\"",
        ),
        (
            json!({"$id": "https://json-schema.org/draft/2020-12/schema"}),
            Side::Output,
            "Error: schema with key or id \"https://json-schema.org/draft/2020-12/schema\" already exists",
        ),
        (
            json!({"type": "string", "minLength": "2"}),
            Side::Output,
            "Error: schema is invalid: data/minLength must be integer",
        ),
        (
            json!({"type": "string", "pattern": "("}),
            Side::Output,
            "SyntaxError: Invalid regular expression: /(/u: Unterminated group",
        ),
        (
            json!({"type": "object", "properties": {"x": {"type": "string", "pattern": "a{2,1}"}}}),
            Side::Output,
            "SyntaxError: Invalid regular expression: /a{2,1}/u: numbers out of order in {} quantifier",
        ),
        (
            json!({"if": {"type": "string"}}),
            Side::Output,
            "Error: strict mode: \"if\" without \"then\" and \"else\" is ignored",
        ),
        (
            json!({"type": "array", "prefixItems": [{}]}),
            Side::Output,
            "Error: strict mode: \"prefixItems\" is 1-tuple, but minItems or maxItems/items are not specified or different at path \"#\"",
        ),
        (
            json!({"type": "array", "minContains": 1}),
            Side::Output,
            "Error: strict mode: \"minContains\" without \"contains\" is ignored",
        ),
        (
            json!({"type": "object", "properties": {"a": {}}, "patternProperties": {"^a": {}}}),
            Side::Output,
            "Error: strict mode: property a matches pattern ^a (use allowMatchingProperties)",
        ),
        (
            json!({"type": "string", "maximum": 1}),
            Side::Output,
            "Error: strict mode: missing type \"number\" for keyword \"maximum\" at \"#\" (strictTypes)",
        ),
        (
            json!({"type": "string", "allOf": [{"type": "number"}]}),
            Side::Output,
            "Error: strict mode: type \"number\" not allowed by context \"string\" at \"#/allOf/0\" (strictTypes)",
        ),
        (
            json!({"type": "string", "format": "nope"}),
            Side::Output,
            "Error: unknown format \"nope\" ignored in schema at path \"#\"",
        ),
        (
            json!({"type": "string", "formatMaximum": "2020-01-01"}),
            Side::Output,
            "Error: parent schema must have dependencies of formatMaximum: format",
        ),
        (
            json!({"type": "string", "format": "email", "formatMaximum": "a"}),
            Side::Output,
            "Error: \"formatMaximum\": format \"email\" does not define \"compare\" function",
        ),
        (
            json!({"id": "x"}),
            Side::Output,
            "Error: NOT SUPPORTED: keyword \"id\", use \"$id\" for schema ID",
        ),
        (
            json!({"type": "string", "enum": []}),
            Side::Output,
            "Error: enum must have non-empty array",
        ),
        (
            json!({"nullable": true}),
            Side::Output,
            "Error: \"nullable\" cannot be used without \"type\"",
        ),
        (
            json!({"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"}),
            Side::Output,
            "RangeError: Maximum call stack size exceeded",
        ),
        (
            json!({"$defs": {"a": {"$id": "x", "type": "string"}, "b": {"$id": "x", "type": "number"}}}),
            Side::Output,
            "Error: reference \"x\" resolves to more than one schema",
        ),
        (
            json!({"$ref": "other.json"}),
            Side::Output,
            "Error: can't resolve reference other.json from id #",
        ),
    ];
    for (schema, side, expected) in cases {
        match compiled(&schema, side) {
            Ok(_) => panic!("{schema} compiled; Ajv refuses it with {expected}"),
            Err(error) => assert_eq!(error, expected, "{schema}"),
        }
    }
    // What is refused on one side may compile on the other.
    let defaults = json!({"type": "object", "properties": {"a": {"default": 1}}});
    assert!(compiled(&defaults, Side::Input).is_ok());
    let root_default = json!({"type": "number", "default": 1});
    assert!(compiled(&root_default, Side::Output).is_ok());
    assert!(compiled(&root_default, Side::Input).is_err());
}

#[test]
fn keywords_compile_into_ajvs_groups_in_order() {
    let object = program(
        json!({
            "type": "object",
            "anyOf": [{"minProperties": 2}, {"maxProperties": 0}],
            "properties": {"a": {"type": "number", "minimum": 1}, "b": {}},
            "required": ["a"],
            "additionalProperties": false,
            "maxProperties": 3
        }),
        Side::Output,
    );
    assert_eq!(
        shape(&object, object.root),
        "# [Any: AnyOf; Object!: MaxProperties Required AdditionalProperties Properties]"
    );
    // One type whose group has keywords: its type error is reported in that group's place.
    let number = program(
        json!({"type": "number", "minimum": 2, "enum": [5]}),
        Side::Output,
    );
    assert_eq!(
        shape(&number, number.root),
        "# [Any: Enum; Number!: NumberLimit]"
    );
    // `integer` has no group of its own: the type is checked first.
    let integer = program(json!({"type": "integer", "minimum": 2}), Side::Output);
    assert_eq!(
        shape(&integer, integer.root),
        "# type-first [Number: NumberLimit]"
    );
    // `format` belongs to both the number and the string group; a number format runs in the first.
    let both = program(
        json!({"type": ["number", "string"], "format": "int32"}),
        Side::Output,
    );
    assert_eq!(
        shape(&both, both.root),
        "# type-first [Number: Format; String: ]"
    );
    let string = program(json!({"type": "string", "format": "date"}), Side::Output);
    // A string format leaves the number group empty (it is still entered, as Ajv's code is).
    assert_eq!(shape(&string, string.root), "# [Number: ; String!: Format]");
    // Always-valid subschemas compile to nothing to run.
    let trivial = program(json!({"not": {}}), Side::Output);
    let [Keyword::Not { node, .. }] = root_keywords(&trivial) else {
        panic!("{:?}", root_keywords(&trivial));
    };
    assert_eq!(shape(&trivial, *node), "true");
    assert_eq!(shape(&program(json!(false), Side::Output), 0), "false at #");
}

#[test]
fn defaults_are_compiled_on_the_input_side_only() {
    let schema =
        json!({"type": "object", "properties": {"b": {"default": [1]}, "a": {"default": 1}}});
    let defaults = |side| match &program(schema.clone(), side).nodes[0] {
        SchemaNode::Object(object) => object.defaults.clone(),
        other => panic!("{other:?}"),
    };
    assert_eq!(
        defaults(Side::Input),
        [("b".to_owned(), json!([1])), ("a".to_owned(), json!(1))]
    );
    assert!(defaults(Side::Output).is_empty());
}

#[test]
fn references_inline_or_call_as_ajv_does() {
    // A target without references is inlined, reported at the reference's path.
    let inline = program(
        json!({"$defs": {"s": {"type": "string"}}, "$ref": "#/$defs/s"}),
        Side::Output,
    );
    let (target, inlined) = root_ref(&inline);
    assert!(inlined);
    assert_eq!(shape(&inline, target), "#/$defs/s type-first []");
    // A recursive target is a function of its own, with a frame, and paths from `#` again.
    let recursive = program(
        json!({"$defs": {"n": {"type": "object", "properties": {"next": {"$ref": "#/$defs/n"}}}}, "$ref": "#/$defs/n"}),
        Side::Output,
    );
    let (target, inlined) = root_ref(&recursive);
    assert!(!inlined);
    let SchemaNode::Object(function) = &recursive.nodes[target] else {
        panic!("{:?}", recursive.nodes[target]);
    };
    assert_eq!(function.path, "#");
    assert!(matches!(function.frame, Some(Frame { .. })));
    // `#` from the root is a call of the root itself.
    let root = program(
        json!({"type": "object", "properties": {"a": {"$ref": "#"}}}),
        Side::Output,
    );
    let SchemaNode::Object(object) = &root.nodes[root.root] else {
        panic!("the root is an object schema");
    };
    let calls_root = object.groups.iter().flat_map(|g| &g.keywords).any(|k| {
        matches!(k, Keyword::Properties { props } if props.iter().any(|(_, node, _)| {
            node.is_some_and(|node| matches!(&root.nodes[node], SchemaNode::Object(o)
                if o.groups.iter().flat_map(|g| &g.keywords).any(|k| matches!(k,
                    Keyword::Ref { target, inline: false, .. } if *target == root.root))))
        }))
    });
    assert!(calls_root, "{:?}", root.nodes);
}

#[test]
fn ids_and_anchors_resolve_against_their_base() {
    // An anchor in `$defs`, named from the root (strict Ajv knows only `$dynamicAnchor`).
    let anchored = program(
        json!({"$defs": {"s": {"$dynamicAnchor": "str", "type": "string"}}, "$ref": "#str"}),
        Side::Output,
    );
    let (target, inlined) = root_ref(&anchored);
    assert!(!inlined, "a dynamic anchor makes its schema a function");
    assert_eq!(
        shape(&anchored, target),
        "# type-first [Any: DynamicAnchor]"
    );
    // A relative `$id` resolves against the root's, and an anchor against the resource it is in.
    let nested = program(
        json!({
            "$id": "https://example.com/x/root.json",
            "$defs": {
                "a": {"$id": "a.json", "type": "string"},
                "b": {"$id": "b/", "$defs": {"c": {"$dynamicAnchor": "c", "type": "number"}}}
            },
            "type": "object",
            "properties": {"a": {"$ref": "a.json"}, "c": {"$ref": "b/#c"}}
        }),
        Side::Output,
    );
    let SchemaNode::Object(root) = &nested.nodes[nested.root] else {
        panic!("the root is an object schema");
    };
    let targets: Vec<String> = root
        .groups
        .iter()
        .flat_map(|g| &g.keywords)
        .flat_map(|k| match k {
            Keyword::Properties { props } => props.iter().filter_map(|(_, n, _)| *n).collect(),
            _ => Vec::new(),
        })
        .map(|property| {
            let SchemaNode::Object(holder) = &nested.nodes[property] else {
                panic!("a property schema");
            };
            let Some(Keyword::Ref { target, .. }) = holder.groups[0].keywords.last() else {
                panic!("a reference");
            };
            shape(&nested, *target)
        })
        .collect();
    assert_eq!(
        targets,
        ["a.json type-first []", "# type-first [Any: DynamicAnchor]"]
    );
    // Every resource and anchor is known by its absolute URI.
    let document = json!({
        "$id": "https://example.com/x/root.json",
        "$defs": {"a": {"$id": "a.json"}, "b": {"$id": "b/", "$anchor": "top", "$defs": {"c": {"$dynamicAnchor": "c"}}}}
    });
    let resources = collect_resources(&document, &[]).expect("resources");
    let mut uris: Vec<&String> = resources.by_uri.keys().collect();
    uris.sort();
    assert_eq!(
        uris,
        [
            "https://example.com/x/a.json",
            "https://example.com/x/b/",
            "https://example.com/x/b/#c",
            "https://example.com/x/b/#top",
            "https://example.com/x/root.json"
        ]
    );
    assert_eq!(resources.root_base, "https://example.com/x/root.json");
}
