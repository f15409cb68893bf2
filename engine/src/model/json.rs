//! A small typed reader over `serde_json::Value` that tracks where it is, so that every error
//! names the exact value (`pack.sides[1].data[0].colour.r`), and that hands back the
//! properties it did not read so they can be echoed. (serde's derive loses the path as soon
//! as a type keeps unknown fields with `#[serde(flatten)]`.)

use std::fmt::Write;

use serde_json::{Map, Value};

use super::ModelError;

/// Parses `text` as JSON and reads it as a `T`; `root` is the parameter name errors start with.
pub fn parse<T: FromJson>(text: &str, root: &str) -> Result<T, ModelError> {
    let value: Value = serde_json::from_str(text).map_err(|e| ModelError::Syntax {
        path: root.to_owned(),
        message: e.to_string(),
    })?;
    T::from_json(value, root)
}

/// A type that can be read from a JSON value found at `path`.
pub trait FromJson: Sized {
    fn from_json(value: Value, path: &str) -> Result<Self, ModelError>;
}

/// The JSON type of a value, for error messages.
pub(crate) fn describe(value: &Value) -> String {
    match value {
        Value::Null => "null".to_owned(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(s) if s.chars().count() > 40 => "a string".to_owned(),
        Value::String(s) => format!("{s:?}"),
        Value::Array(_) => "an array".to_owned(),
        Value::Object(_) => "an object".to_owned(),
    }
}

fn expected(path: &str, what: &str, got: &Value) -> ModelError {
    ModelError::invalid(path, format!("expected {what}, got {}", describe(got)))
}

/// The properties of one JSON object, taken out one by one.
pub(crate) struct Fields<'p> {
    map: Map<String, Value>,
    path: &'p str,
    /// The path of the property being read (`path.key`), one buffer for all of them: a pack
    /// has hundreds of properties, and a path is only ever shown in an error.
    child_path: String,
}

impl<'p> Fields<'p> {
    pub(crate) fn new(value: Value, path: &'p str) -> Result<Self, ModelError> {
        match value {
            Value::Object(map) => Ok(Fields {
                map,
                path,
                child_path: String::new(),
            }),
            other => Err(expected(path, "an object", &other)),
        }
    }

    pub(crate) fn path(&self) -> &str {
        self.path
    }

    fn child(&mut self, key: &str) -> &str {
        self.child_path.clear();
        self.child_path.push_str(self.path);
        self.child_path.push('.');
        self.child_path.push_str(key);
        &self.child_path
    }

    /// A property that may be absent; `null` counts as absent.
    pub(crate) fn optional<T: FromJson>(&mut self, key: &str) -> Result<Option<T>, ModelError> {
        match self.map.remove(key) {
            None | Some(Value::Null) => Ok(None),
            Some(value) => T::from_json(value, self.child(key)).map(Some),
        }
    }

    /// Like [`Fields::optional`], also accepting the property under a second spelling.
    pub(crate) fn optional_either<T: FromJson>(
        &mut self,
        key: &str,
        alias: &str,
    ) -> Result<Option<T>, ModelError> {
        match self.optional(key)? {
            Some(value) => Ok(Some(value)),
            None => self.optional(alias),
        }
    }

    pub(crate) fn required<T: FromJson>(&mut self, key: &str) -> Result<T, ModelError> {
        self.optional(key)?
            .ok_or_else(|| ModelError::invalid(self.child(key), "is required"))
    }

    /// An array property where absent or `null` means empty.
    pub(crate) fn list<T: FromJson>(&mut self, key: &str) -> Result<Vec<T>, ModelError> {
        Ok(self.optional(key)?.unwrap_or_default())
    }

    /// Like [`Fields::list`], refusing more than `max` entries before reading any.
    pub(crate) fn bounded_list<T: FromJson>(
        &mut self,
        key: &str,
        max: usize,
    ) -> Result<Vec<T>, ModelError> {
        if let Some(Value::Array(entries)) = self.map.get(key)
            && entries.len() > max
        {
            let message = format!("at most {max} entries, got {}", entries.len());
            return Err(ModelError::invalid(self.child(key), message));
        }
        self.list(key)
    }

    /// Fails on the first property not read yet, naming the ones allowed.
    pub(crate) fn deny_rest(mut self, allowed: &[&str]) -> Result<(), ModelError> {
        match self.map.keys().next().cloned() {
            None => Ok(()),
            Some(key) => Err(ModelError::invalid(
                self.child(&key),
                format!("unknown property; allowed: {}", allowed.join(", ")),
            )),
        }
    }

    /// The properties not read, kept so they can be echoed back.
    pub(crate) fn rest(self) -> Map<String, Value> {
        self.map
    }
}

impl FromJson for String {
    fn from_json(value: Value, path: &str) -> Result<Self, ModelError> {
        match value {
            Value::String(s) => Ok(s),
            other => Err(expected(path, "a string", &other)),
        }
    }
}

impl FromJson for bool {
    fn from_json(value: Value, path: &str) -> Result<Self, ModelError> {
        match value {
            Value::Bool(b) => Ok(b),
            other => Err(expected(path, "true or false", &other)),
        }
    }
}

impl FromJson for u32 {
    fn from_json(value: Value, path: &str) -> Result<Self, ModelError> {
        match value.as_u64().map(u32::try_from) {
            Some(Ok(n)) => Ok(n),
            _ => Err(expected(
                path,
                "a whole number from 0 to 4294967295",
                &value,
            )),
        }
    }
}

impl FromJson for f64 {
    fn from_json(value: Value, path: &str) -> Result<Self, ModelError> {
        value
            .as_f64()
            .ok_or_else(|| expected(path, "a number", &value))
    }
}

/// A number kept as it was written (`90` stays an integer, `90.5` a decimal), for values the
/// engine only echoes.
impl FromJson for serde_json::Number {
    fn from_json(value: Value, path: &str) -> Result<Self, ModelError> {
        match value {
            Value::Number(n) => Ok(n),
            other => Err(expected(path, "a number", &other)),
        }
    }
}

impl<T: FromJson> FromJson for Vec<T> {
    fn from_json(value: Value, path: &str) -> Result<Self, ModelError> {
        match value {
            Value::Array(items) => {
                // One buffer for every entry's path, as in `Fields`.
                let mut item_path = String::with_capacity(path.len() + 6);
                items
                    .into_iter()
                    .enumerate()
                    .map(|(i, item)| {
                        item_path.clear();
                        let _ = write!(item_path, "{path}[{i}]");
                        T::from_json(item, &item_path)
                    })
                    .collect()
            }
            other => Err(expected(path, "an array", &other)),
        }
    }
}
