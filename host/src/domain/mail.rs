//! E-mail to customers: the order confirmation (with its invoice and a proof PDF of each pack
//! attached), the shipping notice (carrier and tracking number), the request for new artwork
//! for a held order (its link made as it is sent), and the account's messages (the link that
//! confirms the address after sign-up, the link to choose a new password, and the notice that
//! someone tried to sign up with an address that has an account), in plain text and HTML. Nothing is queued when no SMTP server is configured.
//!
//! Only a confirmed address gets mail about orders or free text from a requester: an order's
//! messages wait until its customer confirms the address (for as long as the confirmation
//! link works), and a message to an address not confirmed greets without a name. An account
//! message holds nothing but its kind and address: its link is made when it is sent, so no
//! record (nor a copy of the store) holds a link that works.
//!
//! Each message is a job on the durable queue ([`crate::infra::queue`]), queued with the
//! order or the change it tells (and waiting, like the webhooks, until that is written), made
//! at sending time from the order as stored, and retried on the `mail_retry_delays_ms`
//! schedule while the server is down or answers "try later"; a permanent refusal (5xx) is
//! given up at once. Every address and name goes through lettre's header encoding (in
//! [`crate::infra::mail`], which makes the MIME message of the domain's [`Letter`]), and
//! control characters are taken out of names first, so no input can add a header.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use maud::{Markup, html};
use serde::{Deserialize, Serialize};

use crate::domain::account_links::{self, LinkHolder, LinkPurpose};
use crate::domain::customers::{self, Customer, EmailAddress};
use crate::domain::ids::OrderNumber;
use crate::domain::orders::artwork_links;
use crate::domain::orders::invoices;
use crate::domain::orders::record::{self, Order, OrderStatus};
use crate::domain::press::ordered_proof;
use crate::domain::services::Services;
use crate::infra::clock::system_millis;
use crate::infra::mail::Letter;
use crate::infra::queue::{self, Job, Outcome, Queue};
use crate::infra::store::{Kind, Store, StoreError};

/// Record kinds: messages waiting to be sent, and sent or given up.
pub const MAILS_PENDING: Kind = Kind::new("mail");
pub const MAILS_DONE: Kind = Kind::new("mail-done");
/// Index: the jobs given up, by when.
pub const MAILS_GAVE_UP: Kind = Kind::new("mail-gave-up");

/// What a message tells.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MailKind {
    OrderConfirmed,
    Shipped,
    /// After sign-up: the link that confirms the address.
    ConfirmAddress,
    /// The link to choose a new password (nothing is sent when no account has the address).
    PasswordReset,
    /// Someone tried to sign up with an address that has an account: told to its owner.
    SignUpAttempt,
    /// An operator asks for new artwork for a pack of a held order: the link to give it.
    NewArtwork,
}

impl MailKind {
    /// What the message is, for the operator.
    pub fn describe(self) -> &'static str {
        match self {
            MailKind::OrderConfirmed => "order confirmation",
            MailKind::Shipped => "shipping notice",
            MailKind::ConfirmAddress => "address confirmation",
            MailKind::PasswordReset => "password reset",
            MailKind::SignUpAttempt => "sign-up attempt notice",
            MailKind::NewArtwork => "request for new artwork",
        }
    }

    /// Whether the message is about an order (else about an account).
    fn is_about_an_order(self) -> bool {
        matches!(
            self,
            MailKind::OrderConfirmed | MailKind::Shipped | MailKind::NewArtwork
        )
    }
}

/// One message to a customer.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MailMessage {
    pub kind: MailKind,
    /// The order it tells of (none for the account's messages).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub order_number: Option<OrderNumber>,
    /// The address, as the order holds it (or as the account message was asked for).
    pub to: EmailAddress,
    /// The order change it tells (none: the order's confirmation).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub change: Option<String>,
}

/// Queues a message about `order` (callers queue none when no SMTP server is configured:
/// [`crate::infra::mail::Mailer::is_configured`]); its id.
pub async fn enqueue(
    store: &dyn Store,
    order: &Order,
    kind: MailKind,
    change: Option<&str>,
) -> Result<String, StoreError> {
    let message = MailMessage {
        kind,
        order_number: Some(order.number.clone()),
        to: order.customer_email.clone(),
        change: change.map(str::to_owned),
    };
    let id = order_mail_id(&order.number, change);
    queue::enqueue::<Mails>(store, &id, message).await?;
    Ok(id)
}

/// The id of the message telling order `number`'s confirmation, or its change `change`: what
/// [`of_order`] finds it by.
fn order_mail_id(number: &str, change: Option<&str>) -> String {
    match change {
        Some(change) => format!("mail_{number}_{change}"),
        None => format!("mail_{number}_confirmed"),
    }
}

/// The messages about `order` that were queued: its confirmation and those of its changes.
pub async fn of_order(
    store: &dyn Store,
    order: &Order,
) -> Result<Vec<Job<MailMessage>>, StoreError> {
    let changes = order.history.iter().map(|change| Some(change.id.as_str()));
    let mut found = Vec::new();
    for change in std::iter::once(None).chain(changes) {
        let id = order_mail_id(&order.number, change);
        found.extend(queue::find::<Mails>(store, &id).await?);
    }
    Ok(found)
}

/// Queues an account message of `kind` to `to` (whoever has the address when it is sent) and
/// wakes the sender; nothing when the shop sends no e-mail. The same work whether or not an
/// account has the address: the sender looks that up.
pub async fn send_account_mail(
    services: &Services,
    kind: MailKind,
    to: &EmailAddress,
) -> Result<(), StoreError> {
    if !services.mailer.is_configured() {
        return Ok(());
    }
    let message = MailMessage {
        kind,
        order_number: None,
        to: to.clone(),
        change: None,
    };
    let id = format!("mail_{:032x}", rand::random::<u128>());
    queue::enqueue::<Mails>(services.store.as_ref(), &id, message).await?;
    services.wake.mail.notify_one();
    Ok(())
}

/// Lets the messages about `customer`'s orders that waited for the address to be confirmed go
/// now (they would otherwise be looked at again only after [`recheck_after`]).
pub async fn release_held(services: &Services, customer: &Customer) -> Result<(), StoreError> {
    let store = services.store.as_ref();
    for number in &customer.orders {
        if let Some(order) = record::load(store, number).await? {
            for job in of_order(store, &order).await? {
                queue::hurry::<Mails>(store, &job.id).await?;
            }
        }
    }
    services.wake.mail.notify_one();
    Ok(())
}

/// How long a message about an order waits for its customer to confirm the address: as long
/// as the confirmation link works.
const UNCONFIRMED_WAIT: Duration = LinkPurpose::ConfirmAddress.lifetime();

/// When a message about an order that has waited `waited` for the address looks again: soon at
/// first, when a customer is most likely to confirm, then every 10 minutes (following the
/// link lets it go at once anyway: [`release_held`]).
fn recheck_after(waited: Duration) -> Duration {
    (waited / 4).clamp(Duration::from_secs(5), Duration::from_secs(10 * 60))
}

/// The queue of customer e-mails, sent with the services that make proofs.
pub struct Mails(pub Arc<Services>);

#[async_trait]
impl Queue for Mails {
    type Payload = MailMessage;
    const PENDING: Kind = MAILS_PENDING;
    const DONE: Kind = MAILS_DONE;
    const GAVE_UP: Kind = MAILS_GAVE_UP;
    /// Making the proofs and a slow server take a while.
    const LEASE: Duration = Duration::from_secs(5 * 60);
    const CONCURRENCY: usize = 2;

    fn retry_delays(&self) -> &[Duration] {
        self.0.mailer.retry_delays()
    }

    async fn attempt(&self, store: &dyn Store, job: &Job<MailMessage>) -> Outcome {
        let mail = &job.payload;
        let message = if mail.kind.is_about_an_order() {
            let Some(number) = &mail.order_number else {
                return Outcome::give_up("a message about an order names no order");
            };
            let change = mail.change.as_deref();
            if let Some(waiting) =
                record::hold_until_written(store, number, change, job.created_at).await
            {
                return waiting;
            }
            self.message(store, job, number).await
        } else {
            self.account_message(store, &job.id, mail).await
        };
        let message = match message {
            Ok(message) => message,
            Err(cannot) => return cannot,
        };
        match self.0.mailer.send(message).await {
            Ok(()) => Outcome::Done,
            Err(failure) if failure.permanent => Outcome::give_up(failure.reason),
            Err(failure) => Outcome::retry(failure.reason),
        }
    }
}

/// A name for a header or a greeting: one line, no control characters.
fn one_line(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect::<String>()
        .trim()
        .to_owned()
}

impl Mails {
    /// The message of job `job`, made from the order as stored now; what the attempt answers
    /// when it cannot be made, or must wait for the customer to confirm the address.
    async fn message(
        &self,
        store: &dyn Store,
        job: &Job<MailMessage>,
        number: &OrderNumber,
    ) -> Result<Letter, Outcome> {
        let (services, mail, id) = (&self.0, &job.payload, job.id.as_str());
        let order = record::load(store, number)
            .await
            .map_err(|e| Outcome::retry(e.to_string()))?
            .ok_or_else(|| Outcome::give_up(format!("order {number} vanished")))?;
        let customer = customers::load(store, &order.customer_id)
            .await
            .map_err(|e| Outcome::retry(e.to_string()))?;
        let confirmed = customer.is_some_and(|c| c.email_confirmed && c.email == mail.to);
        if !confirmed {
            let waited =
                Duration::from_millis(system_millis().saturating_sub(job.created_at) as u64);
            return Err(match waited < UNCONFIRMED_WAIT {
                true => Outcome::NotYet(recheck_after(waited)),
                false => Outcome::give_up("the address was never confirmed"),
            });
        }
        let name = one_line(&order.delivery.name);
        let link = format!("{}/orders/{}", services.base_url, order.number);
        let mut attachments = Vec::new();
        let mut without_proof = Vec::new();
        if mail.kind == MailKind::OrderConfirmed {
            for (index, line) in order.lines.iter().enumerate() {
                match ordered_proof(services, &order.number, index, line).await {
                    Ok(pdf) => attachments.push((
                        format!("{}-{}-proof.pdf", order.number, index + 1),
                        pdf.to_vec(),
                    )),
                    // The store or the engine: a later attempt may make it.
                    Err(error) if error.kind().is_server_fault() => {
                        return Err(Outcome::retry(error.message));
                    }
                    // The pack itself (a photo gone): the confirmation goes without its proof.
                    Err(error) => {
                        tracing::warn!(order = %order.number, line = index, error = %error.message, "a proof for the confirmation cannot be made");
                        without_proof.push(index + 1);
                    }
                }
            }
        }
        let (subject, text, html) = match mail.kind {
            MailKind::Shipped => shipped(&order, &name, &link),
            MailKind::NewArtwork => {
                let change = mail.change.as_deref().unwrap_or_default();
                let issued = artwork_links::issue_link(store, &order.number, change)
                    .await
                    .map_err(|e| Outcome::retry(e.to_string()))?;
                // A newer request for the pack has its own message; a used link, none.
                let Some(path) = issued else {
                    return Err(Outcome::Done);
                };
                new_artwork(
                    &order,
                    &name,
                    change,
                    &format!("{}{path}", services.base_url),
                )
            }
            _ => {
                // The store or the engine: a later attempt may make it.
                let (invoice, pdf) = invoices::invoice_pdf(services, &order)
                    .await
                    .map_err(|e| Outcome::retry(e.message))?;
                attachments.push((invoices::file_name(&invoice), pdf));
                confirmation(&order, &name, &link, &without_proof, &invoice)
            }
        };
        let mut letter = self.letter(id, (name, &mail.to), subject, (text, html));
        letter.attachments = attachments;
        Ok(letter)
    }

    /// The account message `mail`, made now: a link is made for the account that has the
    /// address at this moment. [`Outcome::Done`] when there is nothing to send (no account
    /// has the address, or it is confirmed already).
    async fn account_message(
        &self,
        store: &dyn Store,
        id: &str,
        mail: &MailMessage,
    ) -> Result<Letter, Outcome> {
        let retry = |e: StoreError| Outcome::retry(e.to_string());
        let base_url = &self.0.base_url;
        if mail.kind == MailKind::SignUpAttempt {
            let (subject, text, html) = sign_up_attempt(base_url);
            return Ok(self.letter(id, (String::new(), &mail.to), subject, (text, html)));
        }
        let customer = customers::find_by_email(store, &mail.to)
            .await
            .map_err(retry)?
            .filter(|c| mail.kind == MailKind::PasswordReset || !c.email_confirmed)
            .ok_or(Outcome::Done)?;
        let purpose = match mail.kind {
            MailKind::PasswordReset => LinkPurpose::ResetPassword,
            _ => LinkPurpose::ConfirmAddress,
        };
        let holder = LinkHolder {
            customer_id: customer.id.clone(),
            email: customer.email.to_string(),
            session_generation: customer.session_generation,
        };
        let token = account_links::issue(store, purpose, &holder)
            .await
            .map_err(retry)?;
        let url = format!("{base_url}{}{token}", purpose.path());
        // A name given by whoever signed up goes only to an address its owner confirmed.
        let name = match customer.email_confirmed {
            true => one_line(&customer.name),
            false => String::new(),
        };
        let (subject, text, html) = match purpose {
            LinkPurpose::ResetPassword => password_reset(&name, &url),
            LinkPurpose::ConfirmAddress => address_confirmation(&url),
        };
        Ok(self.letter(id, (name, &mail.to), subject, (text, html)))
    }

    /// The queued mail `id` to `to` (a name, one line, and the address): `body`'s text and
    /// HTML with the shop's brand, its name at the top of the HTML and as the signature of
    /// both, with the shop's address.
    fn letter(
        &self,
        id: &str,
        (to_name, to_address): (String, &str),
        subject: String,
        (text, html): (String, Markup),
    ) -> Letter {
        let (brand, site) = (&self.0.brand, &self.0.base_url);
        let shop = &brand.name;
        let text = format!("{text}\n-- \n{shop}\n{site}\n");
        let html = html! {
            (maud::DOCTYPE)
            html {
                head { meta charset="utf-8"; title { (shop) } }
                body style="font-family: sans-serif; color: #1b2430; max-width: 40rem;" {
                    p style=(format!("font-size: 1.25rem; font-weight: bold; color: {};", brand.colour)) { (shop) }
                    (html)
                    p style="color: #5b6573; font-size: .875rem;" { "— " (shop) " · " a href=(site) { (site) } }
                }
            }
        };
        Letter {
            id: id.to_owned(),
            to_name,
            to_address: to_address.to_owned(),
            subject,
            text,
            html: html.into_string(),
            attachments: Vec::new(),
        }
    }
}

/// "Hello NAME," or, without a name, "Hello,".
fn greeting(name: &str) -> String {
    match name {
        "" => "Hello,".to_owned(),
        name => format!("Hello {name},"),
    }
}

/// Subject, text and HTML of the link confirming the address of a new account. It greets no
/// one by name: the address is not confirmed, and the name is whatever the sign-up said.
fn address_confirmation(url: &str) -> (String, String, Markup) {
    let text = format!(
        "Hello,\n\nplease confirm that this is your e-mail address by opening this link (it \
         works for a week):\n\n{url}\n\nIf you did not create an account, ignore this message.\n"
    );
    let html = html! {
        p { "Hello," }
        p { "please confirm that this is your e-mail address (the link works for a week):" }
        p { a href=(url) { "Confirm my address" } }
        p { "If you did not create an account, ignore this message." }
    };
    ("Confirm your e-mail address".to_owned(), text, html)
}

/// Subject, text and HTML of a password reset link.
fn password_reset(name: &str, url: &str) -> (String, String, Markup) {
    let hello = greeting(name);
    let text = format!(
        "{hello}\n\nto choose a new password, open this link (it works once, for an \
         hour):\n\n{url}\n\nIf you did not ask for it, ignore this message: your password \
         stays as it is.\n"
    );
    let html = html! {
        p { (hello) }
        p { "to choose a new password, open this link (it works once, for an hour):" }
        p { a href=(url) { "Choose a new password" } }
        p { "If you did not ask for it, ignore this message: your password stays as it is." }
    };
    ("Choose a new password".to_owned(), text, html)
}

/// Subject, text and HTML of the notice that someone tried to sign up with an address that
/// has an account: nothing of what they typed, only where to sign in or reset the password.
fn sign_up_attempt(base_url: &str) -> (String, String, Markup) {
    let (sign_in, reset) = (
        format!("{base_url}/account/signin"),
        format!("{base_url}/account/reset"),
    );
    let text = format!(
        "Hello,\n\nsomeone tried to create an account with this address, which has an account \
         already. If it was you, sign in at {sign_in}, or choose a new password at {reset}.\n\n\
         If it was not you, ignore this message: your account is unchanged.\n"
    );
    let html = html! {
        p { "Hello," }
        p { "someone tried to create an account with this address, which has an account already. If it was you, " a href=(sign_in) { "sign in" } ", or " a href=(reset) { "choose a new password" } "." }
        p { "If it was not you, ignore this message: your account is unchanged." }
    };
    (
        "Someone tried to create an account with your address".to_owned(),
        text,
        html,
    )
}

/// Subject, text and HTML of the order confirmation, its invoice `invoice` attached.
/// `without_proof`: the packs (from 1) whose proof could not be made.
fn confirmation(
    order: &Order,
    name: &str,
    link: &str,
    without_proof: &[usize],
    invoice: &str,
) -> (String, String, Markup) {
    let payment = format!(
        "Your invoice {invoice} is attached; please pay within 14 days, quoting {invoice}."
    );
    let mut text = format!(
        "Hello {name},\n\nthank you for your order {}.\n\n",
        order.number
    );
    for line in &order.lines {
        text += &format!(
            "{} x {}: {} each, {}\n",
            line.quantity,
            one_line(&line.name),
            order.amount(line.unit_price),
            order.amount(line.line_total)
        );
    }
    text += &format!(
        "\nTotal: {}\nPayment: {}. {payment}\n\n{}Your order: {link}\n",
        order.amount(order.total),
        order.payment.state.describe(),
        proofs_note(without_proof)
    );
    let html = html! {
        p { "Hello " (name) "," }
        p { "thank you for your order " strong { (order.number) } "." }
        table {
            @for line in &order.lines {
                tr {
                    td { (line.quantity) " × " (line.name) }
                    td { (order.amount(line.unit_price)) " each" }
                    td { (order.amount(line.line_total)) }
                }
            }
        }
        p { "Total: " strong { (order.amount(order.total)) } }
        p { "Payment: " (order.payment.state.describe()) ". " (payment) }
        p { (proofs_note(without_proof)) a href=(link) { "Your order" } }
    };
    (format!("Your order {}", order.number), text, html)
}

/// The request for new artwork `change` of `order`: why (the hold's reason), which pack, and
/// the link.
fn new_artwork(order: &Order, name: &str, change: &str, url: &str) -> (String, String, Markup) {
    let pack = (order.artwork.iter())
        .find(|c| c.id == change)
        .and_then(|c| {
            order
                .lines
                .get(c.line)
                .map(|line| (c.line + 1, one_line(&line.name)))
        });
    let (index, pack_name) = pack.unwrap_or((1, String::new()));
    let reason = match &order.status {
        OrderStatus::OnHold { reason } => one_line(reason),
        _ => String::new(),
    };
    let text = format!(
        "Hello {name},\n\nwe need new artwork for pack {index} ({pack_name}) of your order {}: \
         {reason}\n\nOpen this link to change the design in the editor, then approve its new \
         proof; we print the order as soon as you do:\n{url}\n\nThe link works once, while \
         the order waits for you.\n",
        order.number
    );
    let html = html! {
        p { "Hello " (name) "," }
        p { "we need new artwork for pack " (index) " (" strong { (pack_name) } ") of your order " strong { (order.number) } ": " (reason) }
        p { a href=(url) { "Change the design and approve its new proof" } }
        p { "We print the order as soon as you approve. The link works once, while the order waits for you." }
    };
    (
        format!("New artwork for your order {}", order.number),
        text,
        html,
    )
}

/// What the confirmation says of its attached proofs.
fn proofs_note(without_proof: &[usize]) -> String {
    match without_proof {
        [] => "A proof of each pack is attached. ".to_owned(),
        missing => {
            let packs: Vec<String> = missing.iter().map(usize::to_string).collect();
            format!(
                "A proof of each pack is attached, except pack {}: it could not be made, and the \
                 shop will contact you about it. ",
                packs.join(", ")
            )
        }
    }
}

/// Subject, text and HTML of the shipping notice.
fn shipped(order: &Order, name: &str, link: &str) -> (String, String, Markup) {
    let (carrier, tracking) = match &order.status {
        OrderStatus::Shipped {
            carrier,
            tracking_number,
        } => (carrier.as_str(), tracking_number.as_str()),
        _ => ("", ""),
    };
    let text = format!(
        "Hello {name},\n\nyour order {} is on its way with {carrier}, tracking number \
         {tracking}.\n\nYour order: {link}\n",
        order.number
    );
    let html = html! {
        p { "Hello " (name) "," }
        p { "your order " strong { (order.number) } " is on its way with " (carrier) ", tracking number " strong { (tracking) } "." }
        p { a href=(link) { "Your order" } }
    };
    (
        format!("Your order {} has shipped", order.number),
        text,
        html,
    )
}
