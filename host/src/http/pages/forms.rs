//! The pages' forms: their fields, the CSRF field every form carries, and [`PostedForm`],
//! which checks a posted form's token before a handler sees it and reads the form as the
//! handler's type.

use std::sync::Arc;

use axum::extract::{Form, FromRequest, FromRequestParts, Request};
use axum::http::StatusCode;
use maud::{Markup, html};
use serde::de::DeserializeOwned;

use crate::http::pages::error::PageError;
use crate::http::pages::sessions::Visitor;
use crate::http::state::AppState;

/// Largest form body a customer page accepts.
pub const MAX_FORM_BYTES: usize = 64 * 1024;

/// A form's or query's fields by name (a repeated name: the last).
pub type Fields = std::collections::HashMap<String, String>;

/// Field `name` of a form, empty if missing.
pub fn field<'f>(fields: &'f Fields, name: &str) -> &'f str {
    fields.get(name).map_or("", String::as_str)
}

/// The hidden CSRF field every form carries.
pub fn csrf_field(visitor: &Visitor) -> Markup {
    html! { input type="hidden" name="csrf" value=(visitor.csrf_token); }
}

/// A form posted from one of the shop's pages: who posted it, and its fields, read as `T`
/// (a struct of the form's fields, each a `String`, `#[serde(default)]`: a missing field is
/// empty, as the page's checks expect; or [`Fields`] for a form whose names vary), once its
/// CSRF token (`csrf`) is found to be this visitor's. A handler that takes one cannot skip
/// the check.
pub struct PostedForm<T = Fields> {
    pub visitor: Visitor,
    pub fields: T,
}

impl<T: DeserializeOwned> FromRequest<Arc<AppState>> for PostedForm<T> {
    type Rejection = PageError;

    async fn from_request(request: Request, state: &Arc<AppState>) -> Result<Self, PageError> {
        let (mut parts, body) = request.into_parts();
        let visitor = Visitor::from_request_parts(&mut parts, state).await?;
        let fields = read_form(Request::from_parts(parts, body), state).await?;
        visitor.check_csrf(fields.get("csrf").map(String::as_str))?;
        Ok(Self {
            visitor,
            fields: typed(fields)?,
        })
    }
}

/// The fields of a posted form (`application/x-www-form-urlencoded`).
pub async fn read_form(request: Request, state: &Arc<AppState>) -> Result<Fields, PageError> {
    let Form(fields) = Form::<Fields>::from_request(request, state)
        .await
        .map_err(|rejection| {
            let status = rejection.status();
            PageError::new(status, "Please check", rejection.body_text())
        })?;
    Ok(fields)
}

/// A form's fields as the handler's type `T` (see [`PostedForm`]).
pub fn typed<T: DeserializeOwned>(fields: Fields) -> Result<T, PageError> {
    // (through JSON strings, which serde reads as a `String` or as `Some` of one)
    let object = fields
        .into_iter()
        .map(|(name, value)| (name, serde_json::Value::String(value)))
        .collect();
    serde_json::from_value(serde_json::Value::Object(object))
        .map_err(|e| PageError::new(StatusCode::BAD_REQUEST, "Please check", e.to_string()))
}
