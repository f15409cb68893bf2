use std::fmt;

/// Why a JSON document could not become a model value. `path` names the offending value the
/// way a client would find it, starting with the parameter name (`pack.sides[0].sideNum`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ModelError {
    /// The text is not well-formed JSON.
    Syntax { path: String, message: String },
    /// Well-formed JSON, but a value is missing, of the wrong type or out of range.
    Invalid { path: String, message: String },
}

impl ModelError {
    pub(crate) fn invalid(path: &str, message: impl Into<String>) -> Self {
        ModelError::Invalid {
            path: path.to_owned(),
            message: message.into(),
        }
    }

    pub fn path(&self) -> &str {
        match self {
            ModelError::Syntax { path, .. } | ModelError::Invalid { path, .. } => path,
        }
    }
}

impl fmt::Display for ModelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ModelError::Syntax { path, message } => write!(f, "{path}: malformed JSON: {message}"),
            ModelError::Invalid { path, message } => write!(f, "{path}: {message}"),
        }
    }
}

impl std::error::Error for ModelError {}
