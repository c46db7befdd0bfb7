//! The cost sign-out revocation adds to a signed-in request (issue 30): one look-up of the
//! session's id, in this replica's memory and then, with Redis, one `EXISTS` round trip. Beside
//! it, for scale, what every signed-in request already pays to open its sealed cookie.
//!
//! The Redis case runs against a real `redis-server` started on a free port (stopped by PID),
//! or `BFF_BENCH_REDIS_URL` when set; without either it is skipped.
//! `cargo bench -p bff --bench session_revocation` (add `--profile dev` on a shared machine).

use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bff::config::RedisConfig;
use bff::coordination::replicas::Redis;
use bff::observe::metrics::Metrics;
use bff::session::identity::SessionIdentity;
use bff::session::revocation::Revocations;
use bff::session::seal::Sealer;
use criterion::{Criterion, criterion_group, criterion_main};
use secrecy::SecretString;

const LIFETIME: Duration = Duration::from_secs(14 * 24 * 3600);
/// `session.revocation_check_interval`'s default (not exercised here: Redis always answers).
const CHECK_EVERY: Duration = Duration::from_secs(30);

/// A `redis-server` of the bench's own, killed when dropped.
struct OwnRedis(Child);

impl Drop for OwnRedis {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn redis_url() -> Option<(String, Option<OwnRedis>)> {
    if let Ok(url) = std::env::var("BFF_BENCH_REDIS_URL") {
        return Some((url, None));
    }
    let port = TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .ok()?
        .port();
    let child = Command::new("redis-server")
        .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
        .args(["--save", "", "--appendonly", "no"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let own = OwnRedis(child);
    let deadline = Instant::now() + Duration::from_secs(10);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        if Instant::now() > deadline {
            return None;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Some((format!("redis://127.0.0.1:{port}/"), Some(own)))
}

fn session_revocation(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap_or_else(|err| panic!("runtime: {err}"));
    let live = SessionIdentity::begin();
    let mut group = c.benchmark_group("session_revocation");

    // What a signed-in request already pays: opening a sealed cookie of a typical size.
    let sealer = Sealer::new(&[SecretString::from("bench-session-key-0123456789abcdef")])
        .unwrap_or_else(|| panic!("sealer"));
    let sealed = sealer.seal(&[b'x'; 900]).unwrap_or_else(|| panic!("seal"));
    group.bench_function("open_sealed_cookie", |b| b.iter(|| sealer.open(&sealed)));

    let local = Revocations::new(LIFETIME, None, None, CHECK_EVERY, Arc::new(Metrics::new()));
    runtime.block_on(local.revoke(&SessionIdentity::begin()));
    group.bench_function("is_revoked_in_memory", |b| {
        b.to_async(&runtime).iter(|| local.is_revoked(&live.id));
    });

    if let Some((url, _own)) = redis_url() {
        let config = RedisConfig {
            url,
            key_prefix: format!("bench-{}:", uuid::Uuid::new_v4()),
            command_timeout: Duration::from_millis(1_000),
            ..RedisConfig::default()
        };
        let metrics = Arc::new(Metrics::new());
        // The connection managers are spawned on the runtime.
        let _entered = runtime.enter();
        let redis = Redis::from_config(&config, None, metrics.clone())
            .unwrap_or_else(|err| panic!("redis: {err}"));
        let shared = Revocations::new(LIFETIME, redis, None, CHECK_EVERY, metrics);
        runtime.block_on(shared.revoke(&SessionIdentity::begin()));
        group.bench_function("is_revoked_with_redis_exists", |b| {
            b.to_async(&runtime).iter(|| shared.is_revoked(&live.id));
        });
    } else {
        eprintln!("session_revocation: no redis-server; the Redis case is skipped");
    }
    group.finish();
}

criterion_group!(benches, session_revocation);
criterion_main!(benches);
