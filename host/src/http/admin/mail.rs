//! The console's Mail page: the e-mail to customers that has not gone out.

use axum::extract::State;
use axum::response::Response;
use maud::html;

use crate::domain::mail::Mails;
use crate::http::admin::orders::page::mail_table;
use crate::http::admin::page::page;
use crate::http::admin::session::{ConsoleError, Staff};
use crate::http::state::ServicesState;
use crate::infra::queue::{self};

/// `GET /admin/mail`: every message not sent yet or given up, oldest first.
pub async fn mail(
    State(ServicesState(services)): State<ServicesState>,
    staff: Staff,
) -> Result<Response, ConsoleError> {
    staff.operator()?;
    let (sent, unsent) = queue::outstanding::<Mails>(services.store.as_ref()).await?;
    let content = html! {
        @if !services.mailer.is_configured() {
            p.notice { "This shop sends no e-mail: no SMTP server is configured (smtp_host)." }
        }
        p.lead { (sent) " sent · " (unsent.len()) " waiting or given up" }
        @if !unsent.is_empty() { (mail_table(&unsent)) }
    };
    Ok(page(&staff, "Mail", content))
}
