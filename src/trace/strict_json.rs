//! Strict reading of hand-written JSON. serde's derived readers are looser than a file format
//! should be (serde_json's `Value` keeps the last of two equal keys, internally tagged enums
//! take a variant index for the tag, structs take arrays), so files are read here instead: a
//! parse that refuses a key given twice, then a field reader that takes each object's fields
//! by name and type and refuses the rest. Every error names the field by its path
//! (`faults[3].ppm`) in one line.

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};
use std::cell::RefCell;
use std::fmt;

/// What is wrong with a document, and where: `at` is the path of the object or value
/// (`faults[3]`, `expect.violations[0]`), empty for the whole document.
#[derive(Debug)]
pub enum JsonError {
    /// Not JSON at all.
    Syntax(serde_json::Error),
    /// An object gives the same key twice.
    Duplicate {
        /// The object's path.
        at: String,
        /// The key given twice.
        field: String,
        /// The line of the second one, 1-based, as the parser reports it.
        line: usize,
        /// Its column, 1-based, as the parser reports it.
        column: usize,
    },
    /// An object lacks a field it must have.
    Missing {
        /// The object's path.
        at: String,
        /// The field it lacks.
        field: &'static str,
    },
    /// An object has a field its reader does not know.
    Unknown {
        /// The object's path.
        at: String,
        /// The unknown field, the first in key order.
        field: String,
        /// The fields the reader asked for.
        known: Vec<&'static str>,
    },
    /// A value of the wrong type or out of its range.
    Expected {
        /// The value's path.
        at: String,
        /// What was wanted ("a non-negative integer", "a role").
        expected: String,
        /// The value given, as compact JSON cut short.
        got: String,
    },
}

impl fmt::Display for JsonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = |f: &mut fmt::Formatter<'_>, at: &str| {
            if at.is_empty() {
                Ok(())
            } else {
                write!(f, "{at}: ")
            }
        };
        match self {
            JsonError::Syntax(e) => write!(f, "{e}"),
            JsonError::Duplicate {
                at: path,
                field,
                line,
                column,
            } => {
                at(f, path)?;
                write!(
                    f,
                    "duplicate field `{field}` (line {line}, column {column})"
                )
            }
            JsonError::Missing { at: path, field } => {
                at(f, path)?;
                write!(f, "missing field `{field}`")
            }
            JsonError::Unknown {
                at: path,
                field,
                known,
            } => {
                at(f, path)?;
                write!(f, "unknown field `{field}` (known: {})", known.join(", "))
            }
            JsonError::Expected {
                at: path,
                expected,
                got,
            } => {
                at(f, path)?;
                write!(f, "expected {expected}, got {got}")
            }
        }
    }
}

/// Parses one JSON document like `serde_json::from_str::<Value>`, but refuses an object
/// that gives a key twice, at any depth.
pub fn parse(text: &str) -> Result<Value, JsonError> {
    let duplicate = RefCell::new(None);
    let mut de = serde_json::Deserializer::from_str(text);
    let seed = Strict {
        at: &Trail::Root,
        duplicate: &duplicate,
    };
    let parsed = seed.deserialize(&mut de).and_then(|value| {
        de.end()?;
        Ok(value)
    });
    parsed.map_err(|e| match duplicate.take() {
        Some((at, field)) => JsonError::Duplicate {
            at,
            field,
            line: e.line(),
            column: e.column(),
        },
        None => JsonError::Syntax(e),
    })
}

/// Where the parse is, built on the stack and rendered only for an error.
enum Trail<'a> {
    Root,
    Key(&'a Trail<'a>, &'a str),
    Index(&'a Trail<'a>, usize),
}

impl fmt::Display for Trail<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Trail::Root => Ok(()),
            Trail::Key(Trail::Root, key) => f.write_str(key),
            Trail::Key(parent, key) => write!(f, "{parent}.{key}"),
            Trail::Index(parent, index) => write!(f, "{parent}[{index}]"),
        }
    }
}

/// Builds a `Value`, recording the first duplicate key (its object's path and the key)
/// for `parse` to report, since serde_json's error keeps only a message.
#[derive(Clone, Copy)]
struct Strict<'a> {
    at: &'a Trail<'a>,
    duplicate: &'a RefCell<Option<(String, String)>>,
}

impl<'de> DeserializeSeed<'de> for Strict<'_> {
    type Value = Value;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Strict<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        loop {
            let at = Trail::Index(self.at, items.len());
            match seq.next_element_seed(Strict { at: &at, ..self })? {
                Some(item) => items.push(item),
                None => return Ok(Value::Array(items)),
            }
        }
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut object = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if object.contains_key(&key) {
                let message = format!("duplicate field `{key}`");
                *self.duplicate.borrow_mut() = Some((self.at.to_string(), key));
                return Err(de::Error::custom(message));
            }
            let at = Trail::Key(self.at, &key);
            let value = map.next_value_seed(Strict { at: &at, ..self })?;
            object.insert(key, value);
        }
        Ok(Value::Object(object))
    }
}

/// One value of the document and its path, read by type.
pub struct Field<'a> {
    at: String,
    value: &'a Value,
}

impl<'a> Field<'a> {
    /// The whole document.
    pub fn root(value: &'a Value) -> Field<'a> {
        Field {
            at: String::new(),
            value,
        }
    }

    fn expected(&self, expected: impl Into<String>) -> JsonError {
        JsonError::Expected {
            at: self.at.clone(),
            expected: expected.into(),
            got: excerpt(self.value),
        }
    }

    pub fn object(self) -> Result<&'a Map<String, Value>, JsonError> {
        self.value.as_object().ok_or_else(|| {
            self.expected(if self.at.is_empty() {
                "a JSON object"
            } else {
                "an object"
            })
        })
    }

    /// The object's fields, to be taken by name.
    pub fn fields(self) -> Result<Fields<'a>, JsonError> {
        let at = self.at.clone();
        Ok(Fields {
            map: self.object()?,
            at,
            taken: Vec::new(),
        })
    }

    /// The array's items, each with its path.
    pub fn items(self) -> Result<Vec<Field<'a>>, JsonError> {
        let items = self
            .value
            .as_array()
            .ok_or_else(|| self.expected("an array"))?;
        Ok(items
            .iter()
            .enumerate()
            .map(|(index, value)| Field {
                at: format!("{}[{index}]", self.at),
                value,
            })
            .collect())
    }

    pub fn string(self) -> Result<String, JsonError> {
        match self.value {
            Value::String(s) => Ok(s.clone()),
            _ => Err(self.expected("a string")),
        }
    }

    pub fn bool(self) -> Result<bool, JsonError> {
        self.value
            .as_bool()
            .ok_or_else(|| self.expected("true or false"))
    }

    pub fn u64(self) -> Result<u64, JsonError> {
        self.value
            .as_u64()
            .ok_or_else(|| self.expected("a non-negative integer"))
    }

    pub fn i64(self) -> Result<i64, JsonError> {
        self.value
            .as_i64()
            .ok_or_else(|| self.expected("an integer"))
    }

    pub fn f64(self) -> Result<f64, JsonError> {
        self.value.as_f64().ok_or_else(|| self.expected("a number"))
    }

    /// A string that names one entry of `table`; the error lists the names.
    /// A string that `parse` accepts; `what` says what it should have been.
    pub fn parsed<T>(self, what: &str, parse: impl Fn(&str) -> Option<T>) -> Result<T, JsonError> {
        self.value
            .as_str()
            .and_then(parse)
            .ok_or_else(|| self.expected(what))
    }

    pub fn one_of<T: Copy>(self, what: &str, table: &[(&str, T)]) -> Result<T, JsonError> {
        let found = self
            .value
            .as_str()
            .and_then(|s| table.iter().find(|(name, _)| *name == s));
        match found {
            Some((_, t)) => Ok(*t),
            None => {
                let names: Vec<&str> = table.iter().map(|(name, _)| *name).collect();
                Err(self.expected(format!("{what} ({})", names.join(", "))))
            }
        }
    }
}

/// The fields of one object, taken by name; `finish` refuses any not taken.
pub struct Fields<'a> {
    at: String,
    map: &'a Map<String, Value>,
    /// Every name asked for, in order: the object's known fields, for `finish`.
    taken: Vec<&'static str>,
}

impl<'a> Fields<'a> {
    pub fn optional(&mut self, name: &'static str) -> Option<Field<'a>> {
        self.taken.push(name);
        self.map.get(name).map(|value| Field {
            at: if self.at.is_empty() {
                name.to_string()
            } else {
                format!("{}.{name}", self.at)
            },
            value,
        })
    }

    pub fn required(&mut self, name: &'static str) -> Result<Field<'a>, JsonError> {
        self.optional(name).ok_or_else(|| JsonError::Missing {
            at: self.at.clone(),
            field: name,
        })
    }

    pub fn string(&mut self, name: &'static str) -> Result<String, JsonError> {
        self.required(name)?.string()
    }

    pub fn u64(&mut self, name: &'static str) -> Result<u64, JsonError> {
        self.required(name)?.u64()
    }

    pub fn i64(&mut self, name: &'static str) -> Result<i64, JsonError> {
        self.required(name)?.i64()
    }

    pub fn f64(&mut self, name: &'static str) -> Result<f64, JsonError> {
        self.required(name)?.f64()
    }

    /// Refuses the first field (in key order) that was not asked for.
    pub fn finish(self) -> Result<(), JsonError> {
        match self.map.keys().find(|k| !self.taken.contains(&k.as_str())) {
            Some(field) => Err(JsonError::Unknown {
                at: self.at,
                field: field.clone(),
                known: self.taken,
            }),
            None => Ok(()),
        }
    }
}

/// A value as compact JSON, cut short so an error stays one readable line.
fn excerpt(value: &Value) -> String {
    const MAX_CHARS: usize = 40;
    let text = value.to_string();
    match text.char_indices().nth(MAX_CHARS) {
        Some((cut, _)) => format!("{}...", &text[..cut]),
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn parse_reads_what_serde_json_reads() {
        let text = r#"{"a": [1, -2, 3.5, "x", null, true, {"b": {}}], "c": 18446744073709551615}"#;
        assert_eq!(
            parse(text).unwrap(),
            serde_json::from_str::<Value>(text).unwrap()
        );
    }

    #[test]
    fn parse_refuses_duplicate_keys_at_any_depth_naming_the_object() {
        for (text, at, field) in [
            (r#"{"a": 1, "a": 1}"#, "", "a"),
            (r#"{"a": {"b": 1, "c": 2, "b": 3}}"#, "a", "b"),
            (
                r#"{"a": [{}, {"x": [0, {"y": 1, "y": 1}]}]}"#,
                "a[1].x[1]",
                "y",
            ),
            (r#"[{"k": 1, "k": 2}]"#, "[0]", "k"),
        ] {
            match parse(text) {
                Err(JsonError::Duplicate {
                    at: a, field: f, ..
                }) => assert_eq!((a.as_str(), f.as_str()), (at, field), "{text}"),
                other => panic!("{text}: {other:?}"),
            }
        }
        let e = parse("{\n  \"a\": 1,\n  \"a\": 2\n}").unwrap_err();
        assert_eq!(e.to_string(), "duplicate field `a` (line 3, column 5)");
    }

    #[test]
    fn parse_refuses_non_json_and_trailing_text() {
        for text in ["", "nope", "{} {}", "[1,]", "{\"a\" 1}"] {
            assert!(matches!(parse(text), Err(JsonError::Syntax(_))), "{text:?}");
        }
    }

    #[test]
    fn fields_are_typed_and_named_by_path() {
        let doc = json!({"n": -1, "s": 5, "list": [1, "two"], "o": {"x": 1}});
        let mut f = Field::root(&doc).fields().unwrap();
        let e = f.u64("n").unwrap_err();
        assert_eq!(e.to_string(), "n: expected a non-negative integer, got -1");
        let e = f.string("s").unwrap_err();
        assert_eq!(e.to_string(), "s: expected a string, got 5");
        let items = f.required("list").unwrap().items().unwrap();
        let e = items.into_iter().nth(1).unwrap().i64().unwrap_err();
        assert_eq!(e.to_string(), "list[1]: expected an integer, got \"two\"");
        let mut o = f.required("o").unwrap().fields().unwrap();
        let e = o.string("y").unwrap_err();
        assert_eq!(e.to_string(), "o: missing field `y`");
        assert_eq!(o.u64("x").unwrap(), 1);
        o.finish().unwrap();
        f.finish().unwrap();
    }

    #[test]
    fn finish_refuses_what_was_not_taken_and_lists_what_was() {
        let doc = json!({"a": 1, "b": 2, "z": 3});
        let mut f = Field::root(&doc).fields().unwrap();
        f.u64("a").unwrap();
        assert!(f.optional("c").is_none());
        f.u64("b").unwrap();
        assert_eq!(
            f.finish().unwrap_err().to_string(),
            "unknown field `z` (known: a, c, b)"
        );
    }

    #[test]
    fn wrong_shapes_are_named() {
        let doc = json!([2]);
        assert_eq!(
            Field::root(&doc).fields().err().unwrap().to_string(),
            "expected a JSON object, got [2]"
        );
        let doc = json!({"o": [2], "a": {}});
        let mut f = Field::root(&doc).fields().unwrap();
        let e = f.required("o").unwrap().object().unwrap_err();
        assert_eq!(e.to_string(), "o: expected an object, got [2]");
        let e = f.required("a").unwrap().items().err().unwrap();
        assert_eq!(e.to_string(), "a: expected an array, got {}");
    }

    #[test]
    fn one_of_takes_names_only() {
        let table = [("red", 1), ("blue", 2)];
        let doc = json!({"good": "blue", "index": 0, "other": "green"});
        let mut f = Field::root(&doc).fields().unwrap();
        assert_eq!(
            f.required("good")
                .unwrap()
                .one_of("a colour", &table)
                .unwrap(),
            2
        );
        for field in ["index", "other"] {
            let e = f.required(field).unwrap().one_of("a colour", &table);
            assert!(
                e.unwrap_err()
                    .to_string()
                    .starts_with(&format!("{field}: expected a colour (red, blue), got ")),
            );
        }
    }

    #[test]
    fn long_values_are_cut_short() {
        let long = "é".repeat(100);
        let doc = json!({ "s": [long] });
        let mut f = Field::root(&doc).fields().unwrap();
        let e = f.string("s").unwrap_err().to_string();
        assert!(e.ends_with("..."), "{e}");
        assert!(e.chars().count() < 80, "{e}");
    }
}
