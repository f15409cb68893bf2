//! Fair shares of a scarce resource (upload permits, engine instances and their waiting
//! places): each holder (a client network, an API key, a customer) holds at most `most` of
//! it at once, so no one holder can take it all however many requests it sends. A share is
//! taken for every holder a request has at once, and given back when dropped.

use std::collections::HashMap;
use std::sync::Mutex;

use tokio::sync::Notify;
use tokio::time::Instant;

pub struct Shares {
    most: usize,
    held: Mutex<HashMap<String, usize>>,
    released: Notify,
}

/// One unit for each of its holders; given back when dropped.
pub struct Share<'a> {
    shares: &'a Shares,
    holders: Vec<String>,
}

impl Shares {
    /// Shares of at most `most` (at least 1) per holder.
    pub fn new(most: usize) -> Shares {
        Shares {
            most: most.max(1),
            held: Mutex::new(HashMap::new()),
            released: Notify::new(),
        }
    }

    /// How much one holder may hold at once.
    pub fn most(&self) -> usize {
        self.most
    }

    /// One more for each of `holders`, if none of them holds `most` already.
    pub fn try_take(&self, holders: &[String]) -> Option<Share<'_>> {
        let mut held = self.held.lock().unwrap_or_else(|e| e.into_inner());
        if holders
            .iter()
            .any(|holder| held.get(holder).is_some_and(|count| *count >= self.most))
        {
            return None;
        }
        for holder in holders {
            *held.entry(holder.clone()).or_default() += 1;
        }
        Some(Share {
            shares: self,
            holders: holders.to_vec(),
        })
    }

    /// [`Shares::try_take`], waiting for the holders' own shares to come back until `deadline`
    /// (without end: `None`).
    pub async fn take(&self, holders: &[String], deadline: Option<Instant>) -> Option<Share<'_>> {
        loop {
            // Listening before looking, so a share given back in between is not missed.
            let released = self.released.notified();
            if let Some(share) = self.try_take(holders) {
                return Some(share);
            }
            match deadline {
                Some(deadline) => tokio::time::timeout_at(deadline, released).await.ok()?,
                None => released.await,
            }
        }
    }
}

impl Drop for Share<'_> {
    fn drop(&mut self) {
        let mut held = self.shares.held.lock().unwrap_or_else(|e| e.into_inner());
        for holder in &self.holders {
            if let Some(count) = held.get_mut(holder) {
                *count -= 1;
                if *count == 0 {
                    held.remove(holder);
                }
            }
        }
        drop(held);
        self.shares.released.notify_waiters();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(names: &[&str]) -> Vec<String> {
        names.iter().map(|n| n.to_string()).collect()
    }

    #[test]
    fn a_holder_takes_at_most_its_share_and_every_holder_counts() {
        let shares = Shares::new(2);
        let a = names(&["network a"]);
        let both = names(&["network a", "customer 1"]);
        let one = shares.try_take(&a).unwrap();
        let two = shares.try_take(&both).unwrap();
        assert!(shares.try_take(&a).is_none(), "network a holds two");
        assert!(shares.try_take(&both).is_none(), "network a holds two");
        let other = shares
            .try_take(&names(&["customer 1", "network b"]))
            .unwrap();
        assert!(shares.try_take(&names(&["customer 1"])).is_none());
        drop(one);
        assert!(shares.try_take(&a).is_some());
        drop((two, other));
        assert!(shares.held.lock().unwrap().is_empty());
    }

    #[tokio::test]
    async fn a_waiting_holder_gets_a_share_given_back() {
        let shares = Shares::new(1);
        let a = names(&["a"]);
        let held = shares.try_take(&a).unwrap();
        let soon = Instant::now() + std::time::Duration::from_millis(50);
        assert!(shares.take(&a, Some(soon)).await.is_none());
        let (got, ()) = tokio::join!(shares.take(&a, None), async { drop(held) });
        assert!(got.is_some());
    }
}
