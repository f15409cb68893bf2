//! Operators: the shop's staff who run production from the console at `/admin/`. There is no
//! sign-up: accounts are made, changed and removed with the CLI only (`presspack operators`).
//! A password is hashed with argon2id like a customer's; an operator may also have a TOTP
//! secret (RFC 6238: HMAC-SHA-1, 6 digits, 30-second steps, as every authenticator app reads
//! from an `otpauth://` address), and then signing in needs the current code too. The last
//! time step a code was accepted for is kept in the record, so each code works once.

use serde::{Deserialize, Serialize};
use totp_rs::{Algorithm, Builder, Secret, Totp};

use crate::domain::customers::{self, AccountError, MAX_PASSWORD, PasswordHashing};
use crate::infra::clock::Clock;
use crate::infra::store::{self, Kind, Records, StoreError};

/// Record kind: operator accounts, by name.
pub const OPERATORS: Kind = Kind::new("operator");

/// Longest operator name.
const MAX_NAME: usize = 40;
/// TOTP: a code is valid for one 30-second step, and the step either side allows for clocks
/// that differ a little and a code typed just as it changed.
const TOTP_STEP_SECONDS: u64 = 30;
const TOTP_DIGITS: u32 = 6;

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Operator {
    /// Lower-case letters, digits, `.`, `_` and `-`; what they sign in with.
    pub name: String,
    /// PHC string of an argon2id hash.
    pub password_hash: String,
    /// The TOTP secret, base32 (none: signing in needs only the password).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub totp_secret: Option<String>,
    /// The time step of the last code accepted: no code of it or before works again.
    #[serde(default)]
    pub last_totp_step: u64,
    /// Random, and new whenever the password or the authenticator changes. A session keeps
    /// the stamp it began under, so such a change (or removing the operator and adding one
    /// of the same name) ends every session begun before it.
    #[serde(default)]
    pub session_stamp: u64,
    pub created_at: u64,
}

impl Operator {
    /// Who made a change, as order histories record it.
    pub fn signature(&self) -> String {
        format!("admin:{}", self.name)
    }
}

#[derive(Debug, thiserror::Error)]
pub enum OperatorError {
    #[error("{parameter}: {problem}")]
    Invalid {
        parameter: &'static str,
        problem: String,
    },
    #[error("there is an operator {0:?} already")]
    Exists(String),
    #[error("there is no operator {0:?}")]
    NoSuchOperator(String),
    /// Deliberately one answer for an unknown name, a wrong password, and a missing, wrong
    /// or used code: no failure tells that the password was right.
    #[error("The name, password or code is not right.")]
    WrongCredentials,
    #[error(transparent)]
    Store(#[from] StoreError),
}

fn invalid(parameter: &'static str, problem: impl Into<String>) -> OperatorError {
    OperatorError::Invalid {
        parameter,
        problem: problem.into(),
    }
}

/// The name as stored: trimmed and lower-case, 1 to 40 of `a-z 0-9 . _ -`.
pub fn normalise_name(raw: &str) -> Result<String, OperatorError> {
    let name = raw.trim().to_lowercase();
    let allowed = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit() || ".-_".contains(c);
    if name.is_empty() || name.len() > MAX_NAME || !name.chars().all(allowed) {
        return Err(invalid(
            "name",
            format!("use 1 to {MAX_NAME} of a-z, 0-9, '.', '_' and '-'"),
        ));
    }
    Ok(name)
}

/// A password an operator may have: as a customer's.
fn check_password(password: &str) -> Result<(), OperatorError> {
    customers::check_password(password).map_err(|error| match error {
        AccountError::Invalid { field, problem } => invalid(field, problem),
        other => invalid("password", other.to_string()),
    })
}

pub async fn load(store: &dyn Records, name: &str) -> Result<Option<Operator>, StoreError> {
    match normalise_name(name) {
        Ok(name) => Ok(store::load(store, OPERATORS, &name).await?.map(|(o, _)| o)),
        Err(_) => Ok(None),
    }
}

/// Every operator, by name.
pub async fn list(store: &dyn Records) -> Result<Vec<Operator>, StoreError> {
    let mut operators = Vec::new();
    for name in store.list(OPERATORS).await? {
        operators.extend(load(store, &name).await?);
    }
    operators.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(operators)
}

pub async fn add(
    store: &dyn Records,
    hashing: &PasswordHashing,
    clock: &Clock,
    name: &str,
    password: &str,
) -> Result<Operator, OperatorError> {
    let name = normalise_name(name)?;
    check_password(password)?;
    let operator = Operator {
        name: name.clone(),
        password_hash: hashing.hash(password).await?,
        totp_secret: None,
        last_totp_step: 0,
        session_stamp: rand::random(),
        created_at: clock.unix_seconds(),
    };
    let value = serde_json::to_vec(&operator).map_err(|e| StoreError::corrupt(e.to_string()))?;
    if !store.insert(OPERATORS, &name, &value).await? {
        return Err(OperatorError::Exists(name));
    }
    Ok(operator)
}

/// Changes the credentials of operator `name` with compare-and-swap, ending their sessions.
async fn change_credentials(
    store: &dyn Records,
    name: &str,
    mut change: impl FnMut(&mut Operator),
) -> Result<Operator, OperatorError> {
    let stamp = rand::random();
    modify(store, name, |operator| {
        change(operator);
        operator.session_stamp = stamp;
        Ok(())
    })
    .await
}

/// Changes operator `name` with compare-and-swap.
async fn modify(
    store: &dyn Records,
    name: &str,
    change: impl FnMut(&mut Operator) -> Result<(), OperatorError>,
) -> Result<Operator, OperatorError> {
    let name = normalise_name(name)?;
    store::modify(store, OPERATORS, &name, change)
        .await?
        .ok_or(OperatorError::NoSuchOperator(name))
}

pub async fn set_password(
    store: &dyn Records,
    hashing: &PasswordHashing,
    name: &str,
    password: &str,
) -> Result<Operator, OperatorError> {
    check_password(password)?;
    let hash = hashing.hash(password).await?;
    change_credentials(store, name, |operator| {
        operator.password_hash = hash.clone();
    })
    .await
}

/// Gives operator `name` a new TOTP secret (replacing any); the secret, base32.
pub async fn enable_totp(store: &dyn Records, name: &str) -> Result<String, OperatorError> {
    let secret = base32(&rand::random::<[u8; 20]>());
    change_credentials(store, name, |operator| {
        operator.totp_secret = Some(secret.clone());
        operator.last_totp_step = 0;
    })
    .await?;
    Ok(secret)
}

pub async fn disable_totp(store: &dyn Records, name: &str) -> Result<Operator, OperatorError> {
    change_credentials(store, name, |operator| {
        operator.totp_secret = None;
    })
    .await
}

pub async fn remove(store: &dyn Records, name: &str) -> Result<(), OperatorError> {
    let name = normalise_name(name)?;
    match store.delete(OPERATORS, &name).await? {
        true => Ok(()),
        false => Err(OperatorError::NoSuchOperator(name)),
    }
}

/// The address an authenticator app reads (as a QR code or pasted) to add the account.
pub fn totp_address(issuer: &str, name: &str, secret: &str) -> String {
    use percent_encoding::{NON_ALPHANUMERIC, utf8_percent_encode};
    let issuer = utf8_percent_encode(issuer, NON_ALPHANUMERIC).to_string();
    let name = utf8_percent_encode(name, NON_ALPHANUMERIC).to_string();
    format!(
        "otpauth://totp/{issuer}:{name}?secret={secret}&issuer={issuer}&algorithm=SHA1&digits={TOTP_DIGITS}&period={TOTP_STEP_SECONDS}"
    )
}

/// Checks an operator's password and, if they have a TOTP secret, the code; the operator.
pub async fn sign_in(
    store: &dyn Records,
    hashing: &PasswordHashing,
    clock: &Clock,
    name: &str,
    password: &str,
    code: &str,
) -> Result<Operator, OperatorError> {
    let operator = load(store, name).await?;
    let hash = operator.as_ref().map(|o| o.password_hash.as_str());
    let password_right =
        password.chars().count() <= MAX_PASSWORD && hashing.verify(password, hash).await?;
    let operator = operator
        .filter(|_| password_right)
        .ok_or(OperatorError::WrongCredentials)?;
    let Some(secret) = &operator.totp_secret else {
        return Ok(operator);
    };
    let current = clock.unix_seconds() / TOTP_STEP_SECONDS;
    let step = matching_step(secret, code.trim(), current, operator.last_totp_step)
        .ok_or(OperatorError::WrongCredentials)?;
    // Written with compare-and-swap: of two sign-ins with one code, one takes its step.
    modify(store, &operator.name, |stored| {
        if stored.last_totp_step >= step {
            return Err(OperatorError::WrongCredentials);
        }
        stored.last_totp_step = step;
        Ok(())
    })
    .await
}

/// The time step around `current` whose code `code` is, if later than `used` (each step's
/// code works once). Compared in constant time (totp-rs's tokens compare so).
fn matching_step(secret: &str, code: &str, current: u64, used: u64) -> Option<u64> {
    let key = from_base32(secret)?;
    totp(&key, 1)
        .check(code, current * TOTP_STEP_SECONDS)
        .filter(|&step| step > used)
}

/// RFC 6238 TOTP of `key` as authenticator apps make it (SHA-1, six digits, 30-second steps),
/// accepting `skew` steps either side.
fn totp(key: &[u8], skew: u16) -> Totp {
    Builder::new()
        .with_algorithm(Algorithm::SHA1)
        .with_digits(TOTP_DIGITS as u8)
        .with_step_duration(TOTP_STEP_SECONDS)
        .with_skew(skew)
        .with_secret(key.to_vec())
        .build_noncompliant()
}

/// The TOTP code of `key` at time step `step`.
pub fn totp_code(key: &[u8], step: u64) -> String {
    totp(key, 0).generate(step * TOTP_STEP_SECONDS).to_string()
}

/// The TOTP code of a base32 secret at `clock`'s time (for tests that stand in for an app).
pub fn current_totp_code(secret: &str, clock: &Clock) -> Option<String> {
    let key = from_base32(secret)?;
    Some(totp_code(&key, clock.unix_seconds() / TOTP_STEP_SECONDS))
}

/// RFC 4648 base32 without padding, as authenticator apps read secrets.
fn base32(bytes: &[u8]) -> String {
    Secret::from(bytes.to_vec()).to_base32()
}

fn from_base32(text: &str) -> Option<Vec<u8>> {
    let text = text.trim_end_matches('=').to_ascii_uppercase();
    Secret::try_from_base32(text)
        .ok()
        .map(|secret| secret.to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 6238 appendix B, SHA-1, cut to 6 digits.
    #[test]
    fn totp_codes_are_rfc_6238s() {
        let key = b"12345678901234567890";
        for (time, code) in [
            (59u64, 287_082),
            (1_111_111_109, 81_804),
            (1_234_567_890, 5_924),
            (2_000_000_000, 279_037),
        ] {
            assert_eq!(totp_code(key, time / 30), format!("{code:06}"), "at {time}");
        }
    }

    #[test]
    fn base32_reads_what_it_writes_and_rfc_4648s() {
        assert_eq!(base32(b"foobar"), "MZXW6YTBOI");
        assert_eq!(from_base32("MZXW6YTBOI").unwrap(), b"foobar");
        let key: [u8; 20] = rand::random();
        assert_eq!(from_base32(&base32(&key)).unwrap(), key);
        assert_eq!(from_base32("not base32!"), None);
    }

    #[test]
    fn a_code_works_once_and_only_near_its_time() {
        let secret = base32(b"12345678901234567890");
        let code = totp_code(b"12345678901234567890", 100);
        assert_eq!(matching_step(&secret, &code, 100, 0), Some(100));
        assert_eq!(matching_step(&secret, &code, 101, 0), Some(100));
        assert_eq!(matching_step(&secret, &code, 102, 0), None);
        assert_eq!(matching_step(&secret, &code, 100, 100), None);
        assert_eq!(matching_step(&secret, "12345", 100, 0), None);
    }
}
