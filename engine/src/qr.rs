//! QR codes for a card: a link, or contact details as a vCard, checked field by field and
//! encoded (error correction level M, which survives a scuffed corner) into the matrix of
//! modules the editor draws into a picture at print resolution. The checks name the field
//! and the problem, so the editor can say what to change.

use std::fmt;

use qrcodegen::{QrCode, QrCodeEcc};

/// Longest link, in characters.
pub const MAX_LINK: usize = 2000;
/// Longest contact field, in characters.
pub const MAX_FIELD: usize = 200;
/// Modules of quiet zone (white margin) each side, as the standard asks.
pub const QUIET_ZONE: u32 = 4;

/// What a QR code carries.
#[derive(Debug, Clone, PartialEq)]
pub enum QrContent {
    /// A web address (`http://` or `https://`).
    Link { url: String },
    /// Contact details, as a vCard 3.0; `name` is needed, the rest may be empty.
    Contact {
        name: String,
        job_title: String,
        organisation: String,
        phone: String,
        email: String,
        website: String,
    },
}

/// A QR code request as a caller sends it: `kind` (`link` or `contact`) and the fields of
/// that kind, missing ones empty.
#[derive(Debug, Default)]
pub struct QrRequest {
    pub kind: String,
    pub url: String,
    pub name: String,
    pub job_title: String,
    pub organisation: String,
    pub phone: String,
    pub email: String,
    pub website: String,
}

impl TryFrom<QrRequest> for QrContent {
    type Error = QrError;

    fn try_from(request: QrRequest) -> Result<QrContent, QrError> {
        match request.kind.as_str() {
            "link" => Ok(QrContent::Link { url: request.url }),
            "contact" => Ok(QrContent::Contact {
                name: request.name,
                job_title: request.job_title,
                organisation: request.organisation,
                phone: request.phone,
                email: request.email,
                website: request.website,
            }),
            _ => Err(QrError::UnknownKind),
        }
    }
}

/// A QR code's modules, row by row, `size` × `size` (1 dark, 0 light), quiet zone excluded.
#[derive(Debug, Clone, PartialEq)]
pub struct QrMatrix {
    pub size: u32,
    pub modules: Vec<u8>,
    /// The text encoded.
    pub payload: String,
}

/// Why a QR code was refused, naming the field.
#[derive(Debug, Clone, PartialEq)]
pub enum QrError {
    Empty(&'static str),
    TooLong {
        field: &'static str,
        max: usize,
    },
    ControlCharacter {
        field: &'static str,
        position: usize,
    },
    NotALink,
    /// More than the largest QR code holds.
    TooMuchData,
    UnknownKind,
}

impl fmt::Display for QrError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            QrError::Empty(field) => write!(f, "{field}: enter something to encode"),
            QrError::TooLong { field, max } => {
                write!(
                    f,
                    "{field}: at most {max} characters fit a QR code on a card"
                )
            }
            QrError::ControlCharacter { field, position } => write!(
                f,
                "{field}: character {position} is a control character (a line break or tab, say), which a QR code for a card does not take"
            ),
            QrError::NotALink => write!(f, "link: a web address starts with https:// or http://"),
            QrError::TooMuchData => write!(f, "too much to fit one QR code: shorten the details"),
            QrError::UnknownKind => write!(f, "kind: expected link or contact"),
        }
    }
}

/// `value` of `field` checked: at most `max` characters, no control characters; trimmed.
fn checked<'v>(field: &'static str, value: &'v str, max: usize) -> Result<&'v str, QrError> {
    let value = value.trim();
    if value.chars().count() > max {
        return Err(QrError::TooLong { field, max });
    }
    if let Some(position) = value.chars().position(char::is_control) {
        return Err(QrError::ControlCharacter {
            field,
            position: position + 1,
        });
    }
    Ok(value)
}

/// A vCard value: backslash, comma and semicolon escaped (RFC 6350 3.4).
fn escaped(value: &str) -> String {
    value
        .replace('\\', "\\\\")
        .replace(',', "\\,")
        .replace(';', "\\;")
}

impl QrContent {
    /// The text the code carries, every field checked.
    pub fn payload(&self) -> Result<String, QrError> {
        match self {
            QrContent::Link { url } => {
                let url = checked("link", url, MAX_LINK)?;
                if url.is_empty() {
                    return Err(QrError::Empty("link"));
                }
                let lower = url.to_ascii_lowercase();
                let scheme = ["https://", "http://"]
                    .iter()
                    .find(|s| lower.starts_with(*s));
                match scheme {
                    Some(scheme) if url.len() > scheme.len() => Ok(url.to_owned()),
                    _ => Err(QrError::NotALink),
                }
            }
            QrContent::Contact {
                name,
                job_title,
                organisation,
                phone,
                email,
                website,
            } => {
                let name = checked("name", name, MAX_FIELD)?;
                if name.is_empty() {
                    return Err(QrError::Empty("name"));
                }
                let mut card = format!(
                    "BEGIN:VCARD\r\nVERSION:3.0\r\nN:{0};;;;\r\nFN:{0}\r\n",
                    escaped(name)
                );
                for (field, property, value) in [
                    ("job title", "TITLE", job_title),
                    ("organisation", "ORG", organisation),
                    ("phone", "TEL", phone),
                    ("email", "EMAIL", email),
                    ("website", "URL", website),
                ] {
                    let value = checked(field, value, MAX_FIELD)?;
                    if !value.is_empty() {
                        card.push_str(&format!("{property}:{}\r\n", escaped(value)));
                    }
                }
                card.push_str("END:VCARD");
                Ok(card)
            }
        }
    }

    /// The QR code of this content.
    pub fn encode(&self) -> Result<QrMatrix, QrError> {
        let payload = self.payload()?;
        // Byte mode only: what a card carries is mostly lower-case text, which the other
        // modes do not shorten, and their code would weigh on the browser build.
        let code = QrCode::encode_binary(payload.as_bytes(), QrCodeEcc::Medium)
            .map_err(|_| QrError::TooMuchData)?;
        let size = code.size();
        let modules = (0..size)
            .flat_map(|y| (0..size).map(move |x| (x, y)))
            .map(|(x, y)| u8::from(code.get_module(x, y)))
            .collect();
        Ok(QrMatrix {
            size: size.unsigned_abs(),
            modules,
            payload,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn contact(name: &str, phone: &str) -> QrContent {
        QrContent::Contact {
            name: name.to_owned(),
            job_title: String::new(),
            organisation: "Print & Co; Ltd".to_owned(),
            phone: phone.to_owned(),
            email: String::new(),
            website: String::new(),
        }
    }

    #[test]
    fn a_link_encodes_with_its_quiet_zone_left_to_the_drawer() {
        let link = QrContent::Link {
            url: " https://print.example/ann ".to_owned(),
        };
        let matrix = link.encode().unwrap();
        assert_eq!(matrix.payload, "https://print.example/ann");
        assert_eq!(matrix.size, 25, "version 2 at level M");
        assert_eq!(matrix.modules.len(), 25 * 25);
        // The finder pattern's corner is dark, its inner ring light.
        assert_eq!((matrix.modules[0], matrix.modules[25 + 1]), (1, 0));
    }

    #[test]
    fn a_contact_is_a_vcard_with_its_separators_escaped() {
        let payload = contact("Ann Example", "+44 20 7946 0018")
            .payload()
            .unwrap();
        assert_eq!(
            payload,
            "BEGIN:VCARD\r\nVERSION:3.0\r\nN:Ann Example;;;;\r\nFN:Ann Example\r\nORG:Print & Co\\; Ltd\r\nTEL:+44 20 7946 0018\r\nEND:VCARD"
        );
    }

    #[test]
    fn refusals_name_the_field_and_the_problem() {
        let long = QrContent::Link {
            url: format!("https://{}", "a".repeat(10_000)),
        };
        assert_eq!(
            long.encode(),
            Err(QrError::TooLong {
                field: "link",
                max: MAX_LINK
            })
        );
        assert_eq!(
            contact("Ann\nBcc", "").encode(),
            Err(QrError::ControlCharacter {
                field: "name",
                position: 4
            })
        );
        assert_eq!(
            contact("Ann", "0\u{7}").encode().unwrap_err().to_string(),
            "phone: character 2 is a control character (a line break or tab, say), which a QR code for a card does not take"
        );
        assert_eq!(contact("  ", "").encode(), Err(QrError::Empty("name")));
        for url in ["javascript:alert(1)", "print.example", "https://"] {
            let link = QrContent::Link {
                url: url.to_owned(),
            };
            assert_eq!(link.encode(), Err(QrError::NotALink), "{url}");
        }
        // Within every field's limit, more than one code holds.
        let full = QrContent::Contact {
            name: "n".repeat(MAX_FIELD),
            job_title: "j".repeat(MAX_FIELD),
            organisation: "o".repeat(MAX_FIELD),
            phone: "p".repeat(MAX_FIELD),
            email: "e".repeat(MAX_FIELD),
            website: "\u{4e16}".repeat(MAX_FIELD),
        };
        assert!(full.encode().is_ok(), "1,200 characters fit version 40");
        let huge = QrContent::Link {
            url: format!("https://{}", "\u{4e16}".repeat(MAX_LINK - 8)),
        };
        assert_eq!(huge.encode(), Err(QrError::TooMuchData));
    }
}
