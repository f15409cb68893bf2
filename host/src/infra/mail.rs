//! Sending e-mail through an SMTP server from the configuration (lettre). Nothing is sent
//! when no `smtp_host` is set. The domain writes a [`Letter`] (who to, subject, text, HTML,
//! attachments); this makes it a MIME message, every header encoded by lettre, and delivers it.

use std::time::Duration;

use lettre::message::header::ContentType;
use lettre::message::{Attachment, Mailbox, MultiPart};
use lettre::transport::smtp::authentication::Credentials;
use lettre::{AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};
use serde::Deserialize;

use crate::infra::settings;

/// How the connection to the SMTP server is secured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SmtpSecurity {
    /// STARTTLS, required (the submission port, 587).
    Starttls,
    /// TLS from the first byte (port 465).
    Tls,
    /// Plain text: only for a server on the same machine or network.
    None,
}

/// The mail settings.
#[derive(Clone, Deserialize)]
#[serde(default)]
pub struct MailSettings {
    /// The SMTP server; `None`: no e-mail is sent.
    #[serde(deserialize_with = "settings::some_text")]
    pub smtp_host: Option<String>,
    /// Its port; `None`: 587 for STARTTLS, 465 for TLS, 25 for none.
    #[serde(deserialize_with = "settings::some_count::<_, _, 1, 65535>")]
    pub smtp_port: Option<u16>,
    pub smtp_security: SmtpSecurity,
    #[serde(deserialize_with = "settings::some_text")]
    pub smtp_username: Option<String>,
    #[serde(deserialize_with = "settings::some_text")]
    pub smtp_password: Option<String>,
    /// The sender of every message: `Shop name <address>`.
    #[serde(deserialize_with = "mailbox")]
    pub mail_from: Mailbox,
    /// Delays before the second, third, ... attempt to send a message.
    #[serde(
        rename = "mail_retry_delays_ms",
        deserialize_with = "settings::retry_delays"
    )]
    pub retry_delays: Vec<Duration>,
}

impl std::fmt::Debug for MailSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MailSettings")
            .field("smtp_host", &self.smtp_host)
            .field("smtp_port", &self.smtp_port)
            .field("smtp_security", &self.smtp_security)
            .field("smtp_username", &self.smtp_username)
            .field("smtp_password", &self.smtp_password.as_ref().map(|_| ".."))
            .field("mail_from", &self.mail_from.to_string())
            .field("retry_delays", &self.retry_delays)
            .finish()
    }
}

impl Default for MailSettings {
    fn default() -> Self {
        MailSettings {
            smtp_host: None,
            smtp_port: None,
            smtp_security: SmtpSecurity::Starttls,
            smtp_username: None,
            smtp_password: None,
            mail_from: "Presspack <orders@localhost>"
                .parse()
                .expect("the default sender is an address"),
            retry_delays: [60, 5 * 60, 30 * 60, 2 * 60 * 60, 6 * 60 * 60, 12 * 60 * 60]
                .map(Duration::from_secs)
                .to_vec(),
        }
    }
}

fn mailbox<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Mailbox, D::Error> {
    let text = settings::text(deserializer)?;
    text.parse().map_err(|e| {
        serde::de::Error::custom(format!(
            "expected an address like \"Shop <orders@shop.example>\": {e}"
        ))
    })
}

/// How long connecting and one message may take.
const SEND_TIMEOUT: Duration = Duration::from_secs(30);

/// The configured SMTP server, if any.
pub struct Mailer {
    transport: Option<AsyncSmtpTransport<Tokio1Executor>>,
    from: Mailbox,
    retry_delays: Vec<Duration>,
}

impl Mailer {
    pub fn new(settings: &MailSettings) -> Result<Mailer, String> {
        let transport = match &settings.smtp_host {
            None => None,
            Some(host) => {
                let builder = match settings.smtp_security {
                    SmtpSecurity::Starttls => {
                        AsyncSmtpTransport::<Tokio1Executor>::starttls_relay(host)
                    }
                    SmtpSecurity::Tls => AsyncSmtpTransport::<Tokio1Executor>::relay(host),
                    SmtpSecurity::None => {
                        Ok(AsyncSmtpTransport::<Tokio1Executor>::builder_dangerous(host).port(25))
                    }
                }
                .map_err(|e| format!("smtp_host {host:?}: {e}"))?;
                let builder = match settings.smtp_port {
                    Some(port) => builder.port(port),
                    None => builder,
                };
                let builder = match (&settings.smtp_username, &settings.smtp_password) {
                    (Some(user), Some(password)) => {
                        builder.credentials(Credentials::new(user.clone(), password.clone()))
                    }
                    (None, None) => builder,
                    _ => return Err("smtp_username and smtp_password go together".to_owned()),
                };
                Some(builder.timeout(Some(SEND_TIMEOUT)).build())
            }
        };
        Ok(Mailer {
            transport,
            from: settings.mail_from.clone(),
            retry_delays: settings.retry_delays.clone(),
        })
    }

    /// Whether messages are sent at all.
    pub fn is_configured(&self) -> bool {
        self.transport.is_some()
    }

    /// Delays before the second, third, ... attempt to send a message.
    pub fn retry_delays(&self) -> &[Duration] {
        &self.retry_delays
    }

    /// The sender of every message.
    pub fn from(&self) -> &Mailbox {
        &self.from
    }

    /// Sends `letter`. A failure says what happened (never the credentials) and whether it
    /// is for good (a 5xx answer, an address that cannot be mailed), which no retry changes.
    pub async fn send(&self, letter: Letter) -> Result<(), SendFailure> {
        let message = self.message(letter)?;
        let Some(transport) = &self.transport else {
            return Err(SendFailure {
                reason: "no SMTP server is configured (smtp_host)".to_owned(),
                permanent: true,
            });
        };
        transport
            .send(message)
            .await
            .map(|_| ())
            .map_err(|e| SendFailure {
                reason: format!("the SMTP server: {e}"),
                permanent: e.is_permanent(),
            })
    }

    /// The MIME message of `letter`: plain text and HTML as alternatives, then the
    /// attachments (PDF). Its Message-ID is made from the letter's id, so every attempt of a
    /// queued mail sends the same one: a message sent again is a duplicate mail programs can
    /// recognise.
    fn message(&self, letter: Letter) -> Result<Message, SendFailure> {
        let give_up = |reason: String| SendFailure {
            reason,
            permanent: true,
        };
        let address = letter.to_address.parse().map_err(|e| {
            give_up(format!(
                "the address {:?} cannot be mailed: {e}",
                letter.to_address
            ))
        })?;
        let to = Mailbox::new(Some(letter.to_name).filter(|n| !n.is_empty()), address);
        let pdf = ContentType::parse("application/pdf").expect("a media type");
        let body = MultiPart::alternative_plain_html(letter.text, letter.html);
        let parts = letter.attachments.into_iter().fold(
            MultiPart::mixed().multipart(body),
            |parts, (name, bytes)| parts.singlepart(Attachment::new(name).body(bytes, pdf.clone())),
        );
        Message::builder()
            .message_id(Some(format!(
                "<{}@{}>",
                letter.id,
                self.from.email.domain()
            )))
            .from(self.from.clone())
            .to(to)
            .subject(letter.subject)
            .multipart(parts)
            .map_err(|e| give_up(format!("the message: {e}")))
    }
}

/// A message as the domain writes it.
pub struct Letter {
    /// The queued mail's id (the Message-ID is made from it).
    pub id: String,
    /// The recipient's name, one line (empty: none), and address.
    pub to_name: String,
    pub to_address: String,
    pub subject: String,
    pub text: String,
    pub html: String,
    /// `(file name, PDF)`.
    pub attachments: Vec<(String, Vec<u8>)>,
}

/// Why a message was not sent.
#[derive(Debug)]
pub struct SendFailure {
    pub reason: String,
    pub permanent: bool,
}
