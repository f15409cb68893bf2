//! Customer accounts: sign-up and sign-in with e-mail and password (argon2id), the cart a
//! customer fills, the orders they placed and whether they have ordered a trial pack.
//!
//! A customer record is one versioned store record, changed only by compare-and-swap
//! ([`modify`]), so the cart, the order list and the one-trial rule change together or not
//! at all. The e-mail address is a separate record pointing at the customer id; inserting it
//! is what makes an address unique.

use std::sync::Arc;

use argon2::password_hash::{PasswordHasher, PasswordVerifier};
use argon2::{Argon2, PasswordHash};
use serde::{Deserialize, Serialize};
use tokio::sync::Semaphore;

use crate::domain::account_links::LinkHolder;
use crate::domain::ids::{OrderNumber, PackId};
use crate::domain::one_line;
use crate::infra::clock::Clock;
use crate::infra::store::{self, Kind, Records, StoreError, random_id};

/// Record kind: customer accounts, by customer id.
pub const CUSTOMERS: Kind = Kind::new("customer");
/// Record kind: a normalised e-mail address -> customer id; unique by insert.
pub const CUSTOMER_EMAILS: Kind = Kind::new("customer-email");

/// Password length bounds, in characters (NIST SP 800-63B: at least 8, allow at least 64).
pub const MIN_PASSWORD: usize = 8;
pub const MAX_PASSWORD: usize = 128;
const MAX_EMAIL: usize = 254;
const MAX_NAME: usize = 100;

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Customer {
    pub id: String,
    /// Normalised: trimmed and lower-case.
    pub email: EmailAddress,
    pub name: String,
    /// PHC string of an argon2id hash.
    pub password_hash: String,
    pub created_at: u64,
    #[serde(default)]
    pub cart: Vec<CartLine>,
    /// Order numbers, oldest first.
    #[serde(default)]
    pub orders: Vec<OrderNumber>,
    /// The order in which this customer bought a trial pack; from then no other.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trial_order: Option<OrderNumber>,
    /// The latest checkouts started, by the key of their checkout form: one form gives at
    /// most one order however often it is sent.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub checkouts: Vec<Checkout>,
    /// Whether they followed the link mailed to the address (or reset their password by one).
    #[serde(default)]
    pub email_confirmed: bool,
    /// Sessions carry the generation they were started in; a password reset moves it on, so
    /// every earlier session ends.
    #[serde(default)]
    pub session_generation: u32,
}

/// A checkout form that was sent: the order it places (or placed).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Checkout {
    pub key: String,
    pub order_number: OrderNumber,
    /// When the sending that places the order claimed the key, milliseconds since 1970 (a
    /// claim stored before claims had a time reads as long ago).
    #[serde(default)]
    pub claimed_at: i64,
}

/// A pack in a customer's cart. The pack's name is the pack's own `friendlyName`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CartLine {
    pub pack_id: PackId,
    pub quantity: u32,
}

/// Why signing up or in failed; messages are shown to the customer next to the form.
#[derive(Debug, thiserror::Error)]
pub enum AccountError {
    #[error("{field}: {problem}")]
    Invalid {
        field: &'static str,
        problem: String,
    },
    #[error("An account with this e-mail address exists already. Sign in instead.")]
    EmailTaken,
    /// Deliberately the same for an unknown address and a wrong password.
    #[error("The e-mail address or the password is not right.")]
    WrongCredentials,
    /// A mailed link for an address the account no longer has.
    #[error("This link was sent to an address the account no longer has.")]
    LinkOutdated,
    #[error(transparent)]
    Store(#[from] StoreError),
}

fn invalid(field: &'static str, problem: impl Into<String>) -> AccountError {
    AccountError::Invalid {
        field,
        problem: problem.into(),
    }
}

/// An e-mail address as stored and looked up: trimmed, lower-case, one `@` with text either
/// side and a dot in the domain. Deliverability is the shop's business, not a regex's.
/// Stored addresses are read back as they are: they were parsed when they arrived, and a
/// stricter rule later must not lock an account out.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct EmailAddress(String);

impl EmailAddress {
    pub fn parse(raw: &str) -> Result<EmailAddress, AccountError> {
        let email = raw.trim().to_lowercase();
        let plausible = email.split_once('@').is_some_and(|(local, domain)| {
            !local.is_empty()
                && domain.contains('.')
                && !domain.starts_with('.')
                && !domain.ends_with('.')
                && !domain.contains('@')
        });
        if email.chars().count() > MAX_EMAIL {
            return Err(invalid("email", format!("at most {MAX_EMAIL} characters")));
        }
        let one_line = one_line::required(&email, MAX_EMAIL).is_ok();
        if !plausible || !one_line || email.chars().any(char::is_whitespace) {
            return Err(invalid(
                "email",
                "enter an e-mail address such as ann@example.com",
            ));
        }
        Ok(EmailAddress(email))
    }
}

impl std::ops::Deref for EmailAddress {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for EmailAddress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Whether `password` is one an account may have (its length).
pub fn check_password(password: &str) -> Result<(), AccountError> {
    let length = password.chars().count();
    if !(MIN_PASSWORD..=MAX_PASSWORD).contains(&length) {
        return Err(invalid(
            "password",
            format!("use {MIN_PASSWORD} to {MAX_PASSWORD} characters"),
        ));
    }
    Ok(())
}

/// Password hashing, off the async threads and a few at a time: argon2id takes tens of
/// milliseconds and 19 MiB each, so unbounded sign-in attempts must not take every core.
#[derive(Clone)]
pub struct PasswordHashing {
    permits: Arc<Semaphore>,
    /// A hash to verify against when the address is unknown, so that an unknown address
    /// takes as long as a wrong password.
    decoy: Arc<String>,
}

impl PasswordHashing {
    pub fn new(concurrent: usize) -> PasswordHashing {
        PasswordHashing {
            permits: Arc::new(Semaphore::new(concurrent.max(1))),
            decoy: Arc::new(hash_now("a password nobody has").unwrap_or_default()),
        }
    }

    async fn run<T: Send + 'static>(
        &self,
        work: impl FnOnce() -> T + Send + 'static,
    ) -> Result<T, StoreError> {
        let _permit = self
            .permits
            .acquire()
            .await
            .map_err(|e| StoreError::corrupt(e.to_string()))?;
        tokio::task::spawn_blocking(work)
            .await
            .map_err(|e| StoreError::unavailable(format!("password hashing failed: {e}")))
    }

    pub(crate) async fn hash(&self, password: &str) -> Result<String, StoreError> {
        let password = password.to_owned();
        self.run(move || hash_now(&password))
            .await?
            .map_err(StoreError::unavailable)
    }

    pub(crate) async fn verify(
        &self,
        password: &str,
        hash: Option<&str>,
    ) -> Result<bool, StoreError> {
        let (password, known) = (password.to_owned(), hash.is_some());
        let hash = hash.map_or_else(|| self.decoy.as_str().to_owned(), str::to_owned);
        let matches = self
            .run(move || {
                PasswordHash::new(&hash).is_ok_and(|parsed| {
                    Argon2::default()
                        .verify_password(password.as_bytes(), &parsed)
                        .is_ok()
                })
            })
            .await?;
        Ok(known && matches)
    }
}

/// argon2id with the crate's defaults (OWASP's m=19 MiB, t=2, p=1) and a random salt.
fn hash_now(password: &str) -> Result<String, String> {
    Argon2::default()
        .hash_password(password.as_bytes())
        .map(|hash| hash.to_string())
        .map_err(|e| format!("password hashing failed: {e}"))
}

pub async fn load(store: &dyn Records, id: &str) -> Result<Option<Customer>, StoreError> {
    Ok(store::load(store, CUSTOMERS, id).await?.map(|(c, _)| c))
}

/// Changes a customer record with compare-and-swap (see [`store::modify`]).
pub async fn modify<E: From<StoreError>>(
    store: &dyn Records,
    id: &str,
    change: impl FnMut(&mut Customer) -> Result<(), E>,
) -> Result<Customer, E> {
    store::modify(store, CUSTOMERS, id, change)
        .await?
        .ok_or_else(|| StoreError::conflict(format!("customer {id} has vanished")).into())
}

pub async fn sign_up(
    store: &dyn Records,
    hashing: &PasswordHashing,
    clock: &Clock,
    email: &EmailAddress,
    name: &str,
    password: &str,
) -> Result<Customer, AccountError> {
    let name = one_line::required(name, MAX_NAME)
        .map_err(|problem| invalid("name", problem.to_string()))?;
    check_password(password)?;
    // Hashed first, whether or not the address has an account: the answer takes as long.
    let password_hash = hashing.hash(password).await?;
    if store.get(CUSTOMER_EMAILS, email).await?.is_some() {
        return Err(AccountError::EmailTaken);
    }
    let customer = Customer {
        id: random_id(),
        email: email.clone(),
        name: name.to_owned(),
        password_hash,
        created_at: clock.unix_seconds(),
        cart: Vec::new(),
        orders: Vec::new(),
        trial_order: None,
        checkouts: Vec::new(),
        email_confirmed: false,
        session_generation: 0,
    };
    let value = serde_json::to_vec(&customer).map_err(|e| StoreError::corrupt(e.to_string()))?;
    store.insert(CUSTOMERS, &customer.id, &value).await?;
    // The address record decides who has the address; a sign-up that lost the race removes
    // its customer record again.
    if !store
        .insert(CUSTOMER_EMAILS, email, customer.id.as_bytes())
        .await?
    {
        store.delete(CUSTOMERS, &customer.id).await?;
        return Err(AccountError::EmailTaken);
    }
    Ok(customer)
}

/// Signs in with `email` as it arrived, or `None` for text that is no address: answered as
/// an unknown address, after the same hashing work.
pub async fn sign_in(
    store: &dyn Records,
    hashing: &PasswordHashing,
    email: Option<&EmailAddress>,
    password: &str,
) -> Result<Customer, AccountError> {
    let customer = match email {
        Some(email) => find_by_email(store, email).await?,
        None => None,
    };
    let hash = customer.as_ref().map(|c| c.password_hash.as_str());
    if password.chars().count() > MAX_PASSWORD || !hashing.verify(password, hash).await? {
        return Err(AccountError::WrongCredentials);
    }
    customer.ok_or(AccountError::WrongCredentials)
}

/// The customer with this e-mail address, if any.
pub async fn find_by_email(
    store: &dyn Records,
    email: &EmailAddress,
) -> Result<Option<Customer>, StoreError> {
    match store.get(CUSTOMER_EMAILS, email).await? {
        Some(id) => load(store, &String::from_utf8_lossy(&id.value)).await,
        None => Ok(None),
    }
}

/// Marks the address of the link's holder confirmed; the customer, unless the account has
/// another address by now.
pub async fn confirm_address(
    store: &dyn Records,
    holder: &LinkHolder,
) -> Result<Option<Customer>, StoreError> {
    let changed = modify(store, &holder.customer_id, |customer| {
        if *customer.email != holder.email {
            return Err(AccountError::LinkOutdated);
        }
        customer.email_confirmed = true;
        Ok(())
    })
    .await;
    match changed {
        Ok(customer) => Ok(Some(customer)),
        Err(AccountError::Store(error)) => Err(error),
        Err(_) => Ok(None),
    }
}

/// Gives the link holder's account the new `password` (checked first: see [`check_password`])
/// and ends every session it had; following the link also confirms the address.
pub async fn reset_password(
    store: &dyn Records,
    hashing: &PasswordHashing,
    holder: &LinkHolder,
    password: &str,
) -> Result<Customer, AccountError> {
    check_password(password)?;
    let hash = hashing.hash(password).await?;
    modify(store, &holder.customer_id, |customer| {
        if *customer.email != holder.email
            || customer.session_generation != holder.session_generation
        {
            return Err(AccountError::LinkOutdated);
        }
        customer.password_hash = hash.clone();
        customer.session_generation = customer.session_generation.wrapping_add(1);
        customer.email_confirmed = true;
        Ok(())
    })
    .await
}
