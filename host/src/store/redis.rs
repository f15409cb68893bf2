//! The Redis store. A record is a hash `{rev, data}` under `{prefix}{kind}:{<id>}`; the braces
//! are a Redis Cluster hash tag, so everything about one id lands in one slot. Inserts and
//! compare-and-swap replaces are Lua scripts, which Redis runs atomically.
//!
//! Durability is Redis's: run it with `appendonly yes` and `appendfsync always` (or
//! `everysec`, accepting up to a second of loss), as docs/operations.md says.

use std::time::Duration;

use async_trait::async_trait;
use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use redis::{AsyncCommands, Script};

use super::{Kind, Store, StoreError, Versioned};

const INSERT: &str = r"
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'rev', 1, 'data', ARGV[1])
return 1";

const REPLACE: &str = r"
if redis.call('HGET', KEYS[1], 'rev') ~= ARGV[2] then return 0 end
redis.call('HSET', KEYS[1], 'rev', tonumber(ARGV[2]) + 1, 'data', ARGV[1])
return 1";

pub struct RedisStore {
    pub(super) connection: ConnectionManager,
    prefix: String,
    /// The URL with any password masked, for messages.
    display_url: String,
    insert: Script,
    replace: Script,
}

fn error(e: redis::RedisError) -> StoreError {
    StoreError(format!("redis: {e}"))
}

/// `url` with its password replaced by `***`.
fn mask_password(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(mut parsed) if parsed.password().is_some() => {
            let _ = parsed.set_password(Some("***"));
            parsed.to_string()
        }
        Ok(parsed) => parsed.to_string(),
        Err(_) => "(unparseable URL)".to_owned(),
    }
}

impl RedisStore {
    /// Connects to `url` and checks that the server answers. Every key starts with `prefix`.
    pub async fn connect(url: &str, prefix: &str) -> Result<RedisStore, StoreError> {
        let display_url = mask_password(url);
        let client = redis::Client::open(url)
            .map_err(|e| StoreError(format!("invalid Redis URL {display_url}: {e}")))?;
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(Duration::from_secs(5)))
            .set_response_timeout(Some(Duration::from_secs(5)))
            .set_number_of_retries(2);
        let mut connection = ConnectionManager::new_with_config(client, config)
            .await
            .map_err(|e| StoreError(format!("cannot connect to Redis at {display_url}: {e}")))?;
        let _: String = redis::cmd("PING")
            .query_async(&mut connection)
            .await
            .map_err(|e| StoreError(format!("Redis at {display_url} does not answer: {e}")))?;
        Ok(RedisStore {
            connection,
            prefix: prefix.to_owned(),
            display_url,
            insert: Script::new(INSERT),
            replace: Script::new(REPLACE),
        })
    }

    fn key(&self, kind: Kind, id: &str) -> String {
        format!("{}{}:{{{id}}}", self.prefix, kind.as_str())
    }

    /// The sorted set of a kind's schedule (score: due time in milliseconds).
    fn schedule_key(&self, kind: Kind) -> String {
        format!("{}schedule:{}", self.prefix, kind.as_str())
    }

    pub(super) fn blob_key(&self, id: &str) -> String {
        format!("{}blob:{{{id}}}", self.prefix)
    }
}

#[async_trait]
impl Store for RedisStore {
    async fn get(&self, kind: Kind, id: &str) -> Result<Option<Versioned>, StoreError> {
        let mut conn = self.connection.clone();
        let (revision, value): (Option<u64>, Option<Vec<u8>>) = redis::cmd("HMGET")
            .arg(self.key(kind, id))
            .arg("rev")
            .arg("data")
            .query_async(&mut conn)
            .await
            .map_err(error)?;
        Ok(revision
            .zip(value)
            .map(|(revision, value)| Versioned { revision, value }))
    }

    async fn insert(&self, kind: Kind, id: &str, value: &[u8]) -> Result<bool, StoreError> {
        let mut conn = self.connection.clone();
        let inserted: i64 = self
            .insert
            .key(self.key(kind, id))
            .arg(value)
            .invoke_async(&mut conn)
            .await
            .map_err(error)?;
        Ok(inserted == 1)
    }

    async fn replace(
        &self,
        kind: Kind,
        id: &str,
        value: &[u8],
        revision: u64,
    ) -> Result<bool, StoreError> {
        let mut conn = self.connection.clone();
        let replaced: i64 = self
            .replace
            .key(self.key(kind, id))
            .arg(value)
            .arg(revision)
            .invoke_async(&mut conn)
            .await
            .map_err(error)?;
        Ok(replaced == 1)
    }

    async fn insert_expiring(
        &self,
        kind: Kind,
        id: &str,
        ttl: Duration,
    ) -> Result<bool, StoreError> {
        let mut conn = self.connection.clone();
        let key = self.key(kind, id);
        // SET NX PX: one atomic command, expiring by itself, shared by every host process.
        let set: Option<String> = redis::cmd("SET")
            .arg(key)
            .arg(1)
            .arg("NX")
            .arg("PX")
            .arg(u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX).max(1))
            .query_async(&mut conn)
            .await
            .map_err(error)?;
        Ok(set.is_some())
    }

    async fn put_blob(
        &self,
        kind: Kind,
        id: &str,
        value: &[u8],
        ttl: Option<Duration>,
    ) -> Result<(), StoreError> {
        let mut conn = self.connection.clone();
        let mut command = redis::cmd("SET");
        command.arg(self.key(kind, id)).arg(value);
        if let Some(ttl) = ttl {
            // Redis expires the key itself (EX in milliseconds).
            command
                .arg("PX")
                .arg(u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX).max(1));
        }
        let _: String = command.query_async(&mut conn).await.map_err(error)?;
        Ok(())
    }

    async fn get_blob(&self, kind: Kind, id: &str) -> Result<Option<Vec<u8>>, StoreError> {
        let mut conn = self.connection.clone();
        redis::cmd("GET")
            .arg(self.key(kind, id))
            .query_async(&mut conn)
            .await
            .map_err(error)
    }

    async fn delete(&self, kind: Kind, id: &str) -> Result<bool, StoreError> {
        let mut conn = self.connection.clone();
        let deleted: i64 = conn.del(self.key(kind, id)).await.map_err(error)?;
        Ok(deleted == 1)
    }

    async fn schedule(&self, kind: Kind, id: &str, at: i64) -> Result<(), StoreError> {
        let mut conn = self.connection.clone();
        let _: i64 = redis::cmd("ZADD")
            .arg(self.schedule_key(kind))
            .arg(at)
            .arg(id)
            .query_async(&mut conn)
            .await
            .map_err(error)?;
        Ok(())
    }

    async fn unschedule(&self, kind: Kind, id: &str) -> Result<(), StoreError> {
        let mut conn = self.connection.clone();
        let _: i64 = redis::cmd("ZREM")
            .arg(self.schedule_key(kind))
            .arg(id)
            .query_async(&mut conn)
            .await
            .map_err(error)?;
        Ok(())
    }

    async fn due(&self, kind: Kind, now: i64, limit: usize) -> Result<Vec<String>, StoreError> {
        let mut conn = self.connection.clone();
        redis::cmd("ZRANGEBYSCORE")
            .arg(self.schedule_key(kind))
            .arg("-inf")
            .arg(now)
            .arg("LIMIT")
            .arg(0)
            .arg(limit)
            .query_async(&mut conn)
            .await
            .map_err(error)
    }

    async fn list(&self, kind: Kind) -> Result<Vec<String>, StoreError> {
        let mut conn = self.connection.clone();
        let start = format!("{}{}:{{", self.prefix, kind.as_str());
        let pattern = format!("{}*", redis_glob_escape(&start));
        let mut ids = Vec::new();
        let mut cursor: u64 = 0;
        loop {
            let (next, keys): (u64, Vec<String>) = redis::cmd("SCAN")
                .arg(cursor)
                .arg("MATCH")
                .arg(&pattern)
                .arg("COUNT")
                .arg(500)
                .query_async(&mut conn)
                .await
                .map_err(error)?;
            ids.extend(keys.iter().filter_map(|key| {
                key.strip_prefix(&start)?
                    .strip_suffix('}')
                    .map(str::to_owned)
            }));
            if next == 0 {
                break;
            }
            cursor = next;
        }
        ids.sort();
        ids.dedup();
        Ok(ids)
    }

    fn describe(&self) -> String {
        format!(
            "Redis at {} (key prefix {:?})",
            self.display_url, self.prefix
        )
    }
}

/// Escapes the glob characters of a SCAN MATCH pattern.
fn redis_glob_escape(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(c, '*' | '?' | '[' | ']' | '\\' | '{' | '}') {
            escaped.push('\\');
        }
        escaped.push(c);
    }
    escaped
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_are_masked() {
        assert_eq!(
            mask_password("redis://:s3cret@localhost:6379/0"),
            "redis://:***@localhost:6379/0"
        );
        assert_eq!(mask_password("redis://localhost"), "redis://localhost");
    }
}
