//! What every console page shares: its navigation and layout, and reading form fields.

use std::collections::HashMap;

use axum::response::Response;
use maud::{Markup, html};

use crate::http::admin::session::Staff;
use crate::http::pages::layout;

/// A form's or query's fields by name.
pub type Fields = HashMap<String, String>;

/// Field `name`, empty if missing.
pub fn field<'f>(fields: &'f Fields, name: &str) -> &'f str {
    fields.get(name).map_or("", String::as_str)
}

/// The console's navigation for a signed-in operator.
pub fn nav(staff: &Staff) -> Markup {
    html! {
        nav aria-label="Console" {
            @if let Ok(operator) = staff.operator() {
                a href="/admin/orders" { "Orders" }
                a href="/admin/mail" { "Mail" }
                form.inline method="post" action="/admin/signout" {
                    input type="hidden" name="csrf" value=(staff.csrf_token);
                    button.link type="submit" { "Sign out " (operator.name) }
                }
            }
        }
    }
}

/// A console page for the signed-in operator.
pub fn page(staff: &Staff, title: &str, content: Markup) -> Response {
    layout::console_page(title, nav(staff), content, &staff.set_cookies)
}
