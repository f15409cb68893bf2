//! The Redis store, on one Redis server or a Redis Cluster. A record is a hash `{rev, data}`
//! under `{prefix}{kind}:{<id>}`; the braces are a Redis Cluster hash tag, so everything about
//! one id lands in one slot. Every command and script touches one key, and the one pipeline
//! (a record and a claim under it, which carries the record's tag) stays in one slot, so
//! nothing is cross-slot on a cluster. Inserts and compare-and-swap replaces are Lua scripts, which Redis runs
//! atomically.
//!
//! Durability is Redis's: run it with `appendonly yes` and `appendfsync always` (or
//! `everysec`, accepting up to a second of loss), as docs/operations.md says.

use std::time::Duration;

use async_trait::async_trait;
use redis::aio::{ConnectionLike, ConnectionManager, ConnectionManagerConfig};
use redis::cluster::ClusterClient;
use redis::cluster_async::ClusterConnection;
use redis::cluster_routing::{RoutingInfo, SingleNodeRoutingInfo};
use redis::{AsyncCommands, Cmd, FromRedisValue, Pipeline, RedisFuture, Script, Value};

use super::interface::{
    Claim, Claims, Counters, ExpiringValues, IndexEnd, Kind, Records, Schedule, Store, StoreError,
    Versioned,
};

const INSERT: &str = r"
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'rev', 1, 'data', ARGV[1])
return 1";

const REMOVE: &str = r"
if redis.call('HGET', KEYS[1], 'rev') ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
return 1";

const REPLACE: &str = r"
if redis.call('HGET', KEYS[1], 'rev') ~= ARGV[2] then return 0 end
redis.call('HSET', KEYS[1], 'rev', tonumber(ARGV[2]) + 1, 'data', ARGV[1])
return 1";

/// INCRBY, with the window's expiry set by the first addition (or repaired if a key lost it).
const COUNT: &str = r"
local n = redis.call('INCRBY', KEYS[1], ARGV[2])
local left = redis.call('PTTL', KEYS[1])
if left < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  left = tonumber(ARGV[1])
end
return {n, left}";

/// DECRBY on an open window (its expiry kept), never below 0; nothing on a closed one.
const UNCOUNT: &str = r"
local n = tonumber(redis.call('GET', KEYS[1]) or '0')
if n > 0 then redis.call('DECRBY', KEYS[1], math.min(n, tonumber(ARGV[1]))) end
return 0";

/// How long connecting, and one command, may take before the store reports it unavailable.
const TIMEOUT: Duration = Duration::from_secs(5);

/// A connection to one Redis server or to a Redis Cluster (which routes each command to the
/// node serving its key's slot). Both reconnect by themselves and are cheap to clone.
#[derive(Clone)]
pub(super) enum Connection {
    Single(ConnectionManager),
    Cluster(ClusterConnection),
}

impl ConnectionLike for Connection {
    fn req_packed_command<'a>(&'a mut self, cmd: &'a Cmd) -> RedisFuture<'a, Value> {
        match self {
            Connection::Single(connection) => connection.req_packed_command(cmd),
            Connection::Cluster(connection) => connection.req_packed_command(cmd),
        }
    }

    fn req_packed_commands<'a>(
        &'a mut self,
        pipeline: &'a Pipeline,
        offset: usize,
        count: usize,
    ) -> RedisFuture<'a, Vec<Value>> {
        match self {
            Connection::Single(connection) => {
                connection.req_packed_commands(pipeline, offset, count)
            }
            Connection::Cluster(connection) => {
                connection.req_packed_commands(pipeline, offset, count)
            }
        }
    }

    fn get_db(&self) -> i64 {
        match self {
            Connection::Single(connection) => connection.get_db(),
            Connection::Cluster(connection) => connection.get_db(),
        }
    }
}

pub struct RedisStore {
    pub(super) connection: Connection,
    prefix: String,
    /// The URL with any password masked, for messages.
    display_url: String,
    insert: Script,
    replace: Script,
    remove: Script,
    count: Script,
    uncount: Script,
}

/// A record's `rev` and `data` fields as `HMGET` gives them.
type RecordFields = (Option<u64>, Option<Vec<u8>>);

/// The record, if both fields are there.
fn versioned((revision, value): RecordFields) -> Option<Versioned> {
    revision
        .zip(value)
        .map(|(revision, value)| Versioned { revision, value })
}

fn error(e: redis::RedisError) -> StoreError {
    StoreError::unavailable(format!("redis: {e}"))
}

/// `urls` (comma-separated) with their passwords replaced by `***`.
fn mask_password(urls: &str) -> String {
    let mask = |url: &str| match url::Url::parse(url) {
        Ok(mut parsed) if parsed.password().is_some() => {
            let _ = parsed.set_password(Some("***"));
            parsed.to_string()
        }
        Ok(parsed) => parsed.to_string(),
        Err(_) => "(unparseable URL)".to_owned(),
    };
    urls.split(',').map(mask).collect::<Vec<_>>().join(",")
}

impl RedisStore {
    /// Connects to `url` (with `cluster`, the comma-separated seed nodes of a Redis Cluster)
    /// and checks that the server answers. Every key starts with `prefix`.
    pub async fn connect(url: &str, prefix: &str, cluster: bool) -> Result<RedisStore, StoreError> {
        let display_url = mask_password(url);
        let invalid = |e: redis::RedisError| {
            StoreError::unavailable(format!("invalid Redis URL {display_url}: {e}"))
        };
        let unreachable = |e: redis::RedisError| {
            StoreError::unavailable(format!("cannot connect to Redis at {display_url}: {e}"))
        };
        let mut connection = if cluster {
            let client = ClusterClient::builder(url.split(','))
                .connection_timeout(TIMEOUT)
                .response_timeout(TIMEOUT)
                .retries(2)
                .build()
                .map_err(invalid)?;
            Connection::Cluster(client.get_async_connection().await.map_err(unreachable)?)
        } else {
            let client = redis::Client::open(url).map_err(invalid)?;
            let config = ConnectionManagerConfig::new()
                .set_connection_timeout(Some(TIMEOUT))
                .set_response_timeout(Some(TIMEOUT))
                .set_number_of_retries(2);
            Connection::Single(
                ConnectionManager::new_with_config(client, config)
                    .await
                    .map_err(unreachable)?,
            )
        };
        // On a cluster, PING goes to every node.
        let _: String = redis::cmd("PING")
            .query_async(&mut connection)
            .await
            .map_err(|e| {
                StoreError::unavailable(format!("Redis at {display_url} does not answer: {e}"))
            })?;
        Ok(RedisStore {
            connection,
            prefix: prefix.to_owned(),
            display_url,
            insert: Script::new(INSERT),
            replace: Script::new(REPLACE),
            remove: Script::new(REMOVE),
            count: Script::new(COUNT),
            uncount: Script::new(UNCOUNT),
        })
    }

    fn key(&self, kind: Kind, id: &str) -> String {
        format!("{}{}:{{{id}}}", self.prefix, kind.as_str())
    }

    /// Reads a record's revision and data (`HMGET`), for [`versioned`].
    fn read_record(&self, kind: Kind, id: &str) -> Cmd {
        let mut command = redis::cmd("HMGET");
        command.arg(self.key(kind, id)).arg("rev").arg("data");
        command
    }

    /// A claim under the record `kind`/`id`: the record's hash tag, so both share a slot,
    /// and the claim's kind first, so listing the record's kind never meets it.
    fn claim_key(&self, kind: Kind, id: &str, claim: &Claim<'_>) -> String {
        format!(
            "{}{}:{{{id}}}:{}:{}",
            self.prefix,
            claim.kind.as_str(),
            kind.as_str(),
            claim.id
        )
    }

    /// The sorted set of a kind's schedule (score: due time in milliseconds).
    fn schedule_key(&self, kind: Kind) -> String {
        format!("{}schedule:{}", self.prefix, kind.as_str())
    }

    pub(super) fn blob_key(&self, id: &str) -> String {
        format!("{}blob:{{{id}}}", self.prefix)
    }

    /// The running total of the blobs' bytes.
    pub(super) fn blob_bytes_key(&self) -> String {
        format!("{}blob-bytes", self.prefix)
    }
}

#[async_trait]
impl Records for RedisStore {
    async fn get(&self, kind: Kind, id: &str) -> Result<Option<Versioned>, StoreError> {
        let mut conn = self.connection.clone();
        let fields = self
            .read_record(kind, id)
            .query_async(&mut conn)
            .await
            .map_err(error)?;
        Ok(versioned(fields))
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

    async fn remove(&self, kind: Kind, id: &str, revision: u64) -> Result<bool, StoreError> {
        let mut conn = self.connection.clone();
        let removed: i64 = self
            .remove
            .key(self.key(kind, id))
            .arg(revision)
            .invoke_async(&mut conn)
            .await
            .map_err(error)?;
        Ok(removed == 1)
    }

    async fn delete(&self, kind: Kind, id: &str) -> Result<bool, StoreError> {
        let mut conn = self.connection.clone();
        let deleted: i64 = conn.del(self.key(kind, id)).await.map_err(error)?;
        Ok(deleted == 1)
    }

    async fn list(&self, kind: Kind) -> Result<Vec<String>, StoreError> {
        self.ids_under(kind.as_str()).await
    }
}

impl RedisStore {
    /// The ids of every `{prefix}<name>:{<id>}` key, sorted (on a cluster, from every master).
    pub(super) async fn ids_under(&self, name: &str) -> Result<Vec<String>, StoreError> {
        let start = format!("{}{}:{{", self.prefix, name);
        let pattern = format!("{}*", redis_glob_escape(&start));
        let keys = match &self.connection {
            Connection::Single(_) => self.scan(&pattern, None).await?,
            // SCAN walks one node's keys: ask every master.
            Connection::Cluster(cluster) => {
                let nodes: String = route(
                    cluster,
                    redis::cmd("CLUSTER").arg("NODES").clone(),
                    SingleNodeRoutingInfo::Random,
                )
                .await?;
                let mut keys = Vec::new();
                for node in masters(&nodes) {
                    keys.extend(self.scan(&pattern, Some(node)).await?);
                }
                keys
            }
        };
        let mut ids: Vec<String> = keys
            .iter()
            .filter_map(|key| {
                key.strip_prefix(&start)?
                    .strip_suffix('}')
                    .map(str::to_owned)
            })
            .collect();
        ids.sort();
        ids.dedup();
        Ok(ids)
    }
}

#[async_trait]
impl Claims for RedisStore {
    async fn get_and_claim(
        &self,
        kind: Kind,
        id: &str,
        claim: &Claim<'_>,
    ) -> Result<(Option<Versioned>, bool), StoreError> {
        let mut conn = self.connection.clone();
        // One pipeline, one round trip, one slot: HMGET of the record and SET NX PX of the
        // claim, which expires by itself and is shared by every host process.
        let (fields, set): (RecordFields, Option<String>) = redis::pipe()
            .add_command(self.read_record(kind, id))
            .cmd("SET")
            .arg(self.claim_key(kind, id, claim))
            .arg(1)
            .arg("NX")
            .arg("PX")
            .arg(
                u64::try_from(claim.ttl.as_millis())
                    .unwrap_or(u64::MAX)
                    .max(1),
            )
            .query_async(&mut conn)
            .await
            .map_err(error)?;
        Ok((versioned(fields), set.is_some()))
    }

    async fn release_claim(
        &self,
        kind: Kind,
        id: &str,
        claim: &Claim<'_>,
    ) -> Result<(), StoreError> {
        let mut conn = self.connection.clone();
        let _: i64 = conn
            .del(self.claim_key(kind, id, claim))
            .await
            .map_err(error)?;
        Ok(())
    }
}

#[async_trait]
impl Counters for RedisStore {
    async fn count_in_window(
        &self,
        kind: Kind,
        id: &str,
        window: Duration,
        amount: u64,
    ) -> Result<(u64, Duration), StoreError> {
        let mut conn = self.connection.clone();
        let (count, left): (u64, u64) = self
            .count
            .key(self.key(kind, id))
            .arg(u64::try_from(window.as_millis()).unwrap_or(u64::MAX).max(1))
            .arg(amount.min(i64::MAX as u64))
            .invoke_async(&mut conn)
            .await
            .map_err(error)?;
        Ok((count, Duration::from_millis(left)))
    }

    async fn uncount(&self, kind: Kind, id: &str, amount: u64) -> Result<(), StoreError> {
        let mut conn = self.connection.clone();
        let _: i64 = self
            .uncount
            .key(self.key(kind, id))
            .arg(amount.min(i64::MAX as u64))
            .invoke_async(&mut conn)
            .await
            .map_err(error)?;
        Ok(())
    }

    async fn forget_window(&self, kind: Kind, id: &str) -> Result<(), StoreError> {
        let mut conn = self.connection.clone();
        let _: i64 = conn.del(self.key(kind, id)).await.map_err(error)?;
        Ok(())
    }
}

#[async_trait]
impl ExpiringValues for RedisStore {
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
}

#[async_trait]
impl Schedule for RedisStore {
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

    async fn page(
        &self,
        kind: Kind,
        from: IndexEnd,
        skip: usize,
        limit: usize,
    ) -> Result<Vec<String>, StoreError> {
        if limit == 0 {
            return Ok(Vec::new());
        }
        // Ranks count from 0 and the last is inclusive; ranks past the end read nothing.
        let rank = |n: usize| i64::try_from(n).unwrap_or(i64::MAX);
        let mut conn = self.connection.clone();
        let command = match from {
            IndexEnd::Latest => "ZREVRANGE",
            IndexEnd::Earliest => "ZRANGE",
        };
        redis::cmd(command)
            .arg(self.schedule_key(kind))
            .arg(rank(skip))
            .arg(rank(skip.saturating_add(limit - 1)))
            .query_async(&mut conn)
            .await
            .map_err(error)
    }

    async fn backlog(&self, kind: Kind) -> Result<(u64, Option<i64>), StoreError> {
        let mut conn = self.connection.clone();
        let key = self.schedule_key(kind);
        // Scores are doubles on the wire; schedule times are whole milliseconds.
        let (count, earliest): (u64, Vec<(String, f64)>) = redis::pipe()
            .cmd("ZCARD")
            .arg(&key)
            .cmd("ZRANGE")
            .arg(&key)
            .arg(0)
            .arg(0)
            .arg("WITHSCORES")
            .query_async(&mut conn)
            .await
            .map_err(error)?;
        Ok((count, earliest.first().map(|(_, at)| *at as i64)))
    }
}

#[async_trait]
impl Store for RedisStore {
    fn describe(&self) -> String {
        let what = match self.connection {
            Connection::Single(_) => "Redis",
            Connection::Cluster(_) => "Redis Cluster",
        };
        format!(
            "{what} at {} (key prefix {:?})",
            self.display_url, self.prefix
        )
    }
}

impl RedisStore {
    /// Every key matching `pattern` on one server, or on one `node` of the cluster.
    async fn scan(
        &self,
        pattern: &str,
        node: Option<SingleNodeRoutingInfo>,
    ) -> Result<Vec<String>, StoreError> {
        let mut conn = self.connection.clone();
        let mut keys = Vec::new();
        let mut cursor: u64 = 0;
        loop {
            let mut command = redis::cmd("SCAN");
            command
                .arg(cursor)
                .arg("MATCH")
                .arg(pattern)
                .arg("COUNT")
                .arg(500);
            let (next, batch): (u64, Vec<String>) = match (&conn, &node) {
                (Connection::Cluster(cluster), Some(node)) => {
                    route(cluster, command, node.clone()).await?
                }
                _ => command.query_async(&mut conn).await.map_err(error)?,
            };
            keys.extend(batch);
            if next == 0 {
                return Ok(keys);
            }
            cursor = next;
        }
    }
}

/// Sends `command` to one node of a cluster.
async fn route<T: FromRedisValue>(
    cluster: &ClusterConnection,
    command: Cmd,
    node: SingleNodeRoutingInfo,
) -> Result<T, StoreError> {
    let value = cluster
        .clone()
        .route_command(command, RoutingInfo::SingleNode(node))
        .await
        .map_err(error)?;
    T::from_redis_value(value).map_err(|e| StoreError::unavailable(format!("redis: {e}")))
}

/// The masters of a cluster, from its `CLUSTER NODES` table (one line a node: id,
/// `host:port@bus[,hostname]`, flags, ...), as routes to them.
fn masters(nodes: &str) -> Vec<SingleNodeRoutingInfo> {
    nodes
        .lines()
        .filter_map(|line| {
            let mut fields = line.split_whitespace().skip(1);
            let address = fields.next()?;
            let flags = fields.next()?;
            let is_serving_master = flags.split(',').any(|f| f == "master")
                && !flags
                    .split(',')
                    .any(|f| matches!(f, "fail" | "noaddr" | "handshake"));
            let (host, port) = address.split(['@', ',']).next()?.rsplit_once(':')?;
            let port = port.parse().ok()?;
            (is_serving_master && !host.is_empty()).then(|| SingleNodeRoutingInfo::ByAddress {
                host: host.to_owned(),
                port,
            })
        })
        .collect()
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
        assert_eq!(
            mask_password("redis://:a@h1:7000,redis://:b@h2:7000"),
            "redis://:***@h1:7000,redis://:***@h2:7000"
        );
    }

    #[test]
    fn the_masters_of_a_cluster_are_read_from_its_node_table() {
        let nodes = "\
9a77 127.0.0.1:7103@17103 master - 0 1795 3 connected 10923-16383
9040 127.0.0.1:7102@17102,node-b master,fail - 0 1795 2 connected 5461-10922
6877 10.0.0.1:7101@17101,node-a myself,master - 0 1795 1 connected 0-5460
1234 127.0.0.1:7104@17104 slave 6877 0 1795 1 connected
";
        let addresses: Vec<(String, u16)> = masters(nodes)
            .into_iter()
            .map(|node| match node {
                SingleNodeRoutingInfo::ByAddress { host, port } => (host, port),
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(
            addresses,
            [
                ("127.0.0.1".to_owned(), 7103),
                ("10.0.0.1".to_owned(), 7101)
            ]
        );
    }
}
