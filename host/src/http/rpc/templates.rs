//! `svc.template.getTemplate`: a template's XML as stored, in MOO's format: Presspack's
//! `<Label>` elements (names for people, which the editor shows) left out, so that a MOO
//! client's reader meets only the elements it knows.

use crate::domain::error::{DomainError, ErrorCode};
use crate::domain::services::Services;
use crate::http::rpc::call::{Call, Reply};

/// `svc.template.getTemplate`: the XML of a template code.
pub async fn get_template(services: &Services, call: &Call<'_>) -> Result<Reply, DomainError> {
    let code = call
        .params
        .text("templateCode", 128)?
        .ok_or_else(|| DomainError::missing("templateCode"))?;
    let entry = services.templates.get(code).ok_or_else(|| {
        DomainError::new(
            ErrorCode::UnknownTemplate,
            format!("templateCode: {code:?} is not a template"),
        )
    })?;
    Ok(Reply::document(
        "application/xml",
        without_labels(&entry.xml).into_bytes(),
    ))
}

/// `xml` without its `<Label>` elements (each with the white space before it).
fn without_labels(xml: &str) -> String {
    let mut rest = xml;
    let mut kept = String::with_capacity(xml.len());
    while let Some(start) = rest.find("<Label>") {
        let Some(end) = rest[start..].find("</Label>") else {
            break;
        };
        kept.push_str(rest[..start].trim_end_matches([' ', '\t', '\n', '\r']));
        rest = &rest[start + end + "</Label>".len()..];
    }
    kept.push_str(rest);
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_are_left_out_and_nothing_else() {
        let xml = "<Template>\n  <Code>c</Code>\n  <Label>Text only</Label>\n  <Items>\n    <Text>\n      <LinkId>a</LinkId>\n      <Label>Your name</Label>\n    </Text>\n  </Items>\n</Template>";
        assert_eq!(
            without_labels(xml),
            "<Template>\n  <Code>c</Code>\n  <Items>\n    <Text>\n      <LinkId>a</LinkId>\n    </Text>\n  </Items>\n</Template>"
        );
        assert_eq!(without_labels("<A><Label>open"), "<A><Label>open");
    }
}
