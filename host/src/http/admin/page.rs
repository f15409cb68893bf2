//! What every console page shares: its navigation and layout.

use axum::response::Response;
use maud::{Markup, html};

use crate::http::admin::session::Staff;
use crate::http::pages::layout;

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
