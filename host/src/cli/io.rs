//! What the operator commands share: reading an operator's file, and JSON answers.

use anyhow::Context;
use std::path::PathBuf;

pub(super) fn read_file(path: &PathBuf) -> anyhow::Result<String> {
    std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))
}

pub(super) fn pretty(value: &impl serde::Serialize) -> anyhow::Result<String> {
    Ok(serde_json::to_string_pretty(value)?)
}
