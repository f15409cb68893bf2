//! The pages' forms: their fields, the CSRF field every form carries, and [`PostedForm`],
//! which checks a posted form's token before a handler sees it.

use std::sync::Arc;

use axum::extract::{Form, FromRequest, FromRequestParts, Request};
use maud::{Markup, html};

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

/// A form posted from one of the shop's pages: who posted it, and its fields once its CSRF
/// token (`csrf`) is found to be this visitor's. A handler that takes one cannot skip the
/// check.
pub struct PostedForm {
    pub visitor: Visitor,
    pub fields: Fields,
}

impl FromRequest<Arc<AppState>> for PostedForm {
    type Rejection = PageError;

    async fn from_request(request: Request, state: &Arc<AppState>) -> Result<Self, PageError> {
        let (mut parts, body) = request.into_parts();
        let visitor = Visitor::from_request_parts(&mut parts, state).await?;
        let request = Request::from_parts(parts, body);
        let Form(fields) =
            Form::<Fields>::from_request(request, state)
                .await
                .map_err(|rejection| {
                    let status = rejection.status();
                    PageError::new(status, "Please check", rejection.body_text())
                })?;
        visitor.check_csrf(fields.get("csrf").map(String::as_str))?;
        Ok(Self { visitor, fields })
    }
}
