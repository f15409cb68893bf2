//! Who an engine call is made for. A request runs its engine calls on behalf of its holders:
//! its network, and its customer once signed in; an API call proven by its key, the key
//! alone (a partner's calls come from its servers, whatever network they share). The pool
//! gives each holder at most a share of its instances and waiting places. Work outside a
//! request (press files, the proofs of mail) is one holder of its own, `background`.
//!
//! The holders travel with the request's task (a task-local), set by the HTTP edge where it
//! learns them, so the domain between the edge and the engine passes nothing along.

use std::future::Future;
use std::sync::{Arc, Mutex};

tokio::task_local! {
    static HOLDERS: Holders;
}

/// The holders of one request's engine calls.
#[derive(Clone)]
pub struct Holders(Arc<Mutex<Vec<String>>>);

/// The holder of engine calls made outside any request.
const BACKGROUND: &str = "background";

impl Holders {
    /// A request's holders, starting with `first` (its network).
    pub fn new(first: impl Into<String>) -> Holders {
        Holders(Arc::new(Mutex::new(vec![first.into()])))
    }

    /// Runs `work` with these holders: the engine calls it makes are theirs.
    pub async fn scope<F: Future>(self, work: F) -> F::Output {
        HOLDERS.scope(self, work).await
    }
}

fn with_current(change: impl FnOnce(&mut Vec<String>)) {
    let _ = HOLDERS
        .try_with(|holders| change(&mut holders.0.lock().unwrap_or_else(|e| e.into_inner())));
}

/// Adds `holder` to the current request's holders (a customer, once signed in).
pub fn also_for(holder: impl Into<String>) {
    let holder = holder.into();
    with_current(|holders| {
        if !holders.contains(&holder) {
            holders.push(holder);
        }
    });
}

/// Makes `holder` the current request's only holder (an API key its signature proved).
pub fn only_for(holder: impl Into<String>) {
    let holder = holder.into();
    with_current(|holders| *holders = vec![holder]);
}

/// The holders of an engine call made now.
pub(crate) fn current() -> Vec<String> {
    HOLDERS
        .try_with(|holders| holders.0.lock().unwrap_or_else(|e| e.into_inner()).clone())
        .unwrap_or_else(|_| vec![BACKGROUND.to_owned()])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_request_has_its_holders_and_other_work_is_background() {
        assert_eq!(current(), ["background"]);
        let seen = Holders::new("network 192.0.2.1")
            .scope(async {
                also_for("customer c1");
                also_for("customer c1");
                let customer = current();
                only_for("key k1");
                (customer, current())
            })
            .await;
        assert_eq!(seen.0, ["network 192.0.2.1", "customer c1"]);
        assert_eq!(seen.1, ["key k1"]);
        assert_eq!(current(), ["background"]);
    }
}
