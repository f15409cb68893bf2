//! `svc.template.getTemplate`: a template's XML as stored.

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
        entry.xml.clone().into_bytes(),
    ))
}
