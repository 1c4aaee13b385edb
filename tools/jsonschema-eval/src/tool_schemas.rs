//! The schemas and values timed: `bench/validate.mjs`'s small tool input and 100 KB input, and a
//! realistic tool schema (nested objects, enums, formats, defaults).

use serde_json::{json, Value};

/// A schema and a value it accepts.
pub struct SpeedCase {
    pub label: String,
    pub schema: Value,
    pub value: Value,
}

/// `smallSchema` and `smallInput` of `bench/validate.mjs`.
fn small() -> SpeedCase {
    SpeedCase {
        label: "small tool input (61 B)".into(),
        schema: json!({
            "type": "object",
            "required": ["query"],
            "additionalProperties": false,
            "properties": {
                "query": {"type": "string", "minLength": 1, "maxLength": 500},
                "limit": {"type": "integer", "minimum": 1, "maximum": 100, "default": 10},
                "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 20}
            }
        }),
        value: json!({"query": "backpay for March", "tags": ["payroll", "urgent"]}),
    }
}

/// `bigSchema` and `bigInput()` of `bench/validate.mjs`: records with a `uuid` and an `email`
/// each, until the JSON text reaches 100,000 bytes.
fn big() -> SpeedCase {
    let record = json!({
        "type": "object",
        "required": ["id", "name", "email", "score"],
        "properties": {
            "id": {"type": "string", "format": "uuid"},
            "name": {"type": "string", "minLength": 1},
            "email": {"type": "string", "format": "email"},
            "score": {"type": "number", "minimum": 0, "maximum": 100},
            "tags": {"type": "array", "items": {"type": "string"}},
            "active": {"type": "boolean", "default": true}
        }
    });
    let schema = json!({"type": "object", "required": ["records"], "properties": {"records": {"type": "array", "items": record}}});
    let mut records = Vec::new();
    let mut text_len = 2; // "[]"
    let mut i = 0u64;
    while records.is_empty() || text_len < 100_000 {
        let item = json!({
            "id": format!("123e4567-e89b-42d3-a456-{i:012x}"),
            "name": format!("Person {i}"),
            "email": format!("person{i}@example.com"),
            "score": (i * 7) % 100,
            "tags": ["a", "b"]
        });
        text_len += item.to_string().len() + usize::from(!records.is_empty());
        records.push(item);
        i += 1;
    }
    let value = json!({ "records": records });
    let label = format!("{} KB input, {} records", value.to_string().len() / 1000, i);
    SpeedCase {
        label,
        schema,
        value,
    }
}

/// A calendar tool's input: nested objects, enums, formats, a pattern and defaults.
fn realistic() -> SpeedCase {
    let schema = json!({
        "type": "object",
        "additionalProperties": false,
        "required": ["title", "start", "attendees"],
        "properties": {
            "requestId": {"type": "string", "format": "uuid"},
            "title": {"type": "string", "minLength": 1, "maxLength": 200},
            "description": {"type": "string", "maxLength": 5000},
            "start": {"type": "string", "format": "date-time"},
            "end": {"type": "string", "format": "date-time"},
            "timeZone": {"type": "string", "enum": ["UTC", "Europe/Berlin", "Europe/London", "America/New_York", "America/Los_Angeles", "Asia/Tokyo"]},
            "visibility": {"type": "string", "enum": ["default", "public", "private"], "default": "default"},
            "location": {
                "type": "object",
                "additionalProperties": false,
                "properties": {
                    "name": {"type": "string"},
                    "url": {"type": "string", "format": "uri"},
                    "address": {
                        "type": "object",
                        "required": ["city", "country"],
                        "properties": {
                            "street": {"type": "string"},
                            "city": {"type": "string", "minLength": 1},
                            "postalCode": {"type": "string", "pattern": "^[0-9]{5}$"},
                            "country": {"type": "string", "enum": ["DE", "FR", "GB", "US", "JP"]}
                        }
                    }
                }
            },
            "attendees": {
                "type": "array",
                "minItems": 1,
                "maxItems": 50,
                "items": {
                    "type": "object",
                    "additionalProperties": false,
                    "required": ["email"],
                    "properties": {
                        "email": {"type": "string", "format": "email"},
                        "name": {"type": "string"},
                        "role": {"type": "string", "enum": ["required", "optional", "chair"], "default": "required"},
                        "status": {"type": "string", "enum": ["needs-action", "accepted", "declined", "tentative"], "default": "needs-action"}
                    }
                }
            },
            "reminders": {
                "type": "array",
                "maxItems": 5,
                "items": {
                    "type": "object",
                    "required": ["method", "minutesBefore"],
                    "properties": {
                        "method": {"type": "string", "enum": ["email", "popup"]},
                        "minutesBefore": {"type": "integer", "minimum": 0, "maximum": 40320}
                    }
                }
            },
            "recurrence": {
                "type": "object",
                "required": ["frequency"],
                "properties": {
                    "frequency": {"type": "string", "enum": ["daily", "weekly", "monthly", "yearly"]},
                    "interval": {"type": "integer", "minimum": 1, "default": 1},
                    "until": {"type": "string", "format": "date"},
                    "byDay": {"type": "array", "uniqueItems": true, "items": {"type": "string", "enum": ["MO", "TU", "WE", "TH", "FR", "SA", "SU"]}}
                }
            }
        }
    });
    let attendees: Vec<Value> = (0..8)
        .map(|i| json!({"email": format!("guest{i}@example.org"), "name": format!("Guest {i}"), "role": if i == 0 { "chair" } else { "required" }, "status": "accepted"}))
        .collect();
    let value = json!({
        "requestId": "3f2b8c1e-9d4a-4e6b-8a7c-1d2e3f4a5b6c",
        "title": "Quarterly planning",
        "description": "Agenda: roadmap, hiring, budget.",
        "start": "2026-03-02T09:00:00Z",
        "end": "2026-03-02T11:30:00+01:00",
        "timeZone": "Europe/Berlin",
        "visibility": "private",
        "location": {"name": "HQ", "url": "https://example.com/rooms/4", "address": {"street": "Main St 1", "city": "Berlin", "postalCode": "10115", "country": "DE"}},
        "attendees": attendees,
        "reminders": [{"method": "email", "minutesBefore": 1440}, {"method": "popup", "minutesBefore": 10}],
        "recurrence": {"frequency": "weekly", "interval": 2, "until": "2026-12-31", "byDay": ["MO", "TH"]}
    });
    let label = format!("realistic tool input ({} B)", value.to_string().len());
    SpeedCase {
        label,
        schema,
        value,
    }
}

/// `case` with every `format` keyword taken out of its schema: what the crate's speed is
/// without the format checks (the value stays valid).
fn without_formats(case: SpeedCase) -> SpeedCase {
    fn strip(schema: &mut Value) {
        match schema {
            Value::Object(map) => {
                map.shift_remove("format");
                map.values_mut().for_each(strip);
            }
            Value::Array(items) => items.iter_mut().for_each(strip),
            _ => {}
        }
    }
    let mut schema = case.schema;
    strip(&mut schema);
    SpeedCase {
        label: format!("{}, formats taken out", case.label),
        schema,
        value: case.value,
    }
}

pub fn speed_cases() -> Vec<SpeedCase> {
    vec![
        small(),
        big(),
        without_formats(big()),
        realistic(),
        without_formats(realistic()),
    ]
}
