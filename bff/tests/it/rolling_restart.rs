//! A rolling restart under load loses nothing: three bff processes (the real binary, so real
//! SIGTERM), one real Redis and the sandbox, behind nginx. A rotation loop polls each replica's
//! `/readyz` and rewrites nginx's upstream block (then `nginx -s reload`), as a Kubernetes
//! endpoints controller does for a Service; nginx OSS has no active health checks of its own.
//! nginx does not retry (`proxy_next_upstream off`) and the client opens a new connection per
//! request and never retries, so any request a replica drops is counted as failed.
//!
//! Run by `make test-rollout` (about 40 s); ignored by plain `cargo test`, so the Redis rerun of
//! the suites does not run it twice.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::collections::{BTreeMap, HashMap};
use std::net::TcpListener as StdListener;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::extract::Request;
use axum::middleware::{self, Next};
use common::redis::RedisServer;
use tempfile::TempDir;
use tokio::process::{Child, Command};
use tokio_util::sync::CancellationToken;

const REPLICAS: usize = 3;
/// The load: one request every 20 ms, whatever the answers' latency.
const REQUEST_EVERY: Duration = Duration::from_millis(20);
/// What a preStop hook gives: readiness fails this long before the drain. Production's default
/// (`server.shutdown_delay` unset): on a busy machine an nginx reload takes its time too.
const SHUTDOWN_DELAY: Duration = bff::config::DEFAULT_SHUTDOWN_DELAY_PRODUCTION;
/// How often the rotation loop polls readiness (a kubelet's periodSeconds, shortened).
const PROBE_EVERY: Duration = Duration::from_millis(200);
const SESSION_KEYS: &str = "rolling-restart-session-key-0123456789abcdef";
const ADMIN_TOKEN: &str = "rolling-restart-admin-token-0123456789abcdef";
const WEBHOOK_SECRET: &str = "rolling-restart-webhook-secret-0123456789";

/// The reads of the load, in turn: documents, products, content and cart reads. The upstream
/// paths of the cached ones are the hot keys whose calls are counted.
const LOAD: [&str; 8] = [
    "/",
    "/api/products/summit%20lr",
    "/api/cart",
    "/product/summit%20lr",
    "/api/pages/home",
    "/api/collections/Rifles",
    "/api/cart",
    common::ASSET,
];
/// Upstream paths of the hot keys (what the sandbox receives for the cached reads above). The
/// live prices (`/Products`, cached 30 s) are refreshed during the run by design, so they are
/// reported but not held to zero.
const HOT_KEYS: [&str; 3] = [
    "/strapi/page/home",
    "/strapi/products/summit%20lr",
    "/strapi/product-groups/rifles",
];

fn free_port() -> u16 {
    StdListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .map(|addr| addr.port())
        .unwrap()
}

fn nginx_binary() -> PathBuf {
    ["/usr/sbin/nginx", "/usr/bin/nginx"]
        .iter()
        .map(PathBuf::from)
        .find(|path| path.exists())
        .expect("nginx (apt-get install nginx-light; .ci/run does)")
}

/// Upstream calls by path, counted around the sandbox's own router.
#[derive(Clone, Default)]
struct UpstreamCalls(Arc<Mutex<HashMap<String, usize>>>);

impl UpstreamCalls {
    fn of(&self, path: &str) -> usize {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(path)
            .copied()
            .unwrap_or(0)
    }
}

async fn count_calls(
    calls: UpstreamCalls,
    request: Request,
    next: Next,
) -> axum::response::Response {
    *calls
        .0
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .entry(request.uri().path().to_owned())
        .or_default() += 1;
    next.run(request).await
}

/// The sandbox over real HTTP, its calls counted by path; returns its origin.
async fn start_sandbox(dir: &Path, calls: UpstreamCalls, stop: CancellationToken) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let origin = sandbox::default_public_url(listener.local_addr().unwrap());
    let state =
        sandbox::SandboxState::new(sandbox::SandboxOptions::new(dir.to_owned(), origin.clone()))
            .unwrap();
    let app = sandbox::app(state).layer(middleware::from_fn(move |request, next| {
        count_calls(calls.clone(), request, next)
    }));
    tokio::spawn(async move {
        axum::serve(listener, app)
            .with_graceful_shutdown(stop.cancelled_owned())
            .await
    });
    origin
}

/// One replica: the bff binary on its own ports.
struct Replica {
    main_port: u16,
    admin_port: u16,
    child: Option<Child>,
}

struct Cluster {
    /// The shipped config/bff.toml with `${sandbox}` (upstreams, CSP, tiles) made the sandbox's
    /// origin, as for an external sandbox.
    config: PathBuf,
    redis_url: String,
    key_prefix: String,
    dist: PathBuf,
    public_origin: String,
    logs: PathBuf,
}

impl Cluster {
    async fn start_replica(&self, replica: &mut Replica, generation: usize) {
        let log = std::fs::File::create(
            self.logs
                .join(format!("bff-{}-{generation}.log", replica.main_port)),
        )
        .unwrap();
        let log_path = self
            .logs
            .join(format!("bff-{}-{generation}.log", replica.main_port));
        let child = Command::new(env!("CARGO_BIN_EXE_bff"))
            .current_dir(&self.logs)
            .env("BFF_CONFIG", &self.config)
            .env(
                "BFF__SERVER__LISTEN",
                format!("127.0.0.1:{}", replica.main_port),
            )
            .env(
                "BFF__ADMIN__LISTEN",
                format!("127.0.0.1:{}", replica.admin_port),
            )
            .env("BFF__SERVER__PUBLIC_ORIGIN", &self.public_origin)
            .env(
                "BFF__SERVER__SHUTDOWN_DELAY",
                bff::config::duration::format(SHUTDOWN_DELAY),
            )
            .env("BFF__SERVER__MAX_CONNECTIONS_PER_IP", "0")
            .env("BFF__SANDBOX__ENABLED", "false")
            .env("BFF__REDIS__URL", &self.redis_url)
            .env("BFF__REDIS__KEY_PREFIX", &self.key_prefix)
            .env(
                "BFF__REDIS__COMMAND_TIMEOUT",
                bff::config::duration::format(common::BUSY_MACHINE_REDIS_TIMEOUT),
            )
            .env("BFF__READINESS__CACHE", "0s")
            .env("BFF__WEB__DIST_DIR", &self.dist)
            .env("BFF__LOG__FILTER", "warn,bff::edge::server=info")
            .env("BFF_SESSION_KEYS", SESSION_KEYS)
            .env("BFF_ADMIN_TOKEN", ADMIN_TOKEN)
            .env("BFF_WEBHOOK_SECRET", WEBHOOK_SECRET)
            .env_remove("RUST_LOG")
            .stdout(Stdio::null())
            .stderr(log)
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        replica.child = Some(child);
        let deadline = Instant::now() + Duration::from_secs(60);
        let client = reqwest::Client::new();
        let url = format!("http://127.0.0.1:{}/readyz", replica.admin_port);
        loop {
            let ready = client
                .get(&url)
                .timeout(Duration::from_secs(2))
                .send()
                .await
                .is_ok_and(|response| response.status() == 200);
            if ready {
                return;
            }
            let exited = replica
                .child
                .as_mut()
                .and_then(|child| child.try_wait().ok().flatten());
            assert!(
                exited.is_none() && Instant::now() < deadline,
                "replica :{} did not become ready ({exited:?}); its log:\n{}",
                replica.main_port,
                std::fs::read_to_string(&log_path).unwrap_or_default()
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

/// SIGTERM by PID, as the kubelet sends it; waits for the exit (bounded).
async fn terminate(replica: &mut Replica) -> std::process::ExitStatus {
    let mut child = replica.child.take().unwrap();
    let pid = child.id().unwrap();
    let sent = std::process::Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    tokio::time::timeout(Duration::from_secs(30), child.wait())
        .await
        .expect("the replica stops within the delay and the grace")
        .unwrap()
}

/// nginx in front: a master with one worker, its upstream block in a file of its own.
struct Nginx {
    child: Child,
    upstreams: PathBuf,
    reloads: usize,
}

impl Nginx {
    async fn start(dir: &Path, port: u16, ports: &[u16]) -> Self {
        for temp in ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"] {
            std::fs::create_dir_all(dir.join(temp)).unwrap();
        }
        let upstreams = dir.join("upstreams.conf");
        std::fs::write(&upstreams, upstream_block(ports)).unwrap();
        let d = dir.display();
        let conf = format!(
            "daemon off;\nmaster_process on;\nworker_processes 1;\npid {d}/nginx.pid;\n\
             error_log {d}/error.log warn;\nevents {{ worker_connections 1024; }}\n\
             http {{\n  access_log off;\n  client_body_temp_path {d}/client_body;\n\
               proxy_temp_path {d}/proxy;\n  fastcgi_temp_path {d}/fastcgi;\n\
               uwsgi_temp_path {d}/uwsgi;\n  scgi_temp_path {d}/scgi;\n\
               include {upstreams};\n\
               server {{\n    listen 127.0.0.1:{port};\n\
                 location / {{\n      proxy_pass http://replicas;\n\
                   proxy_next_upstream off;\n      proxy_connect_timeout 5s;\n\
                   proxy_read_timeout 30s;\n      proxy_set_header Host $http_host;\n\
                 }}\n  }}\n}}\n",
            upstreams = upstreams.display(),
        );
        let conf_path = dir.join("nginx.conf");
        std::fs::write(&conf_path, conf).unwrap();
        let child = Command::new(nginx_binary())
            .arg("-p")
            .arg(dir)
            .arg("-e")
            .arg(dir.join("error.log"))
            .arg("-c")
            .arg(&conf_path)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            // stopped by SIGTERM to its master (see Drop), which stops its workers; a SIGKILL
            // would leave them behind
            .kill_on_drop(false)
            .spawn()
            .unwrap();
        let deadline = Instant::now() + Duration::from_secs(10);
        while tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_err()
        {
            assert!(Instant::now() < deadline, "nginx did not listen");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        Self {
            child,
            upstreams,
            reloads: 0,
        }
    }

    /// Rewrites the upstream block and reloads: new workers route to `ports` only, old ones
    /// finish what they hold.
    fn route_to(&mut self, ports: &[u16]) {
        std::fs::write(&self.upstreams, upstream_block(ports)).unwrap();
        let pid = self.child.id().unwrap();
        let sent = std::process::Command::new("kill")
            .args(["-HUP", &pid.to_string()])
            .status()
            .unwrap();
        assert!(sent.success());
        self.reloads += 1;
    }
}

impl Drop for Nginx {
    fn drop(&mut self) {
        let Some(pid) = self.child.id() else { return };
        let pid = pid.to_string();
        let _ = std::process::Command::new("kill")
            .args(["-TERM", &pid])
            .status();
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline
            && std::process::Command::new("kill")
                .args(["-0", &pid])
                .stderr(Stdio::null())
                .status()
                .is_ok_and(|status| status.success())
        {
            let _ = self.child.try_wait();
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

fn upstream_block(ports: &[u16]) -> String {
    let servers: String = ports
        .iter()
        .map(|port| format!("  server 127.0.0.1:{port};\n"))
        .collect();
    format!("upstream replicas {{\n{servers}}}\n")
}

/// The endpoints controller: every PROBE_EVERY, the replicas whose `/readyz` answers 200 are
/// the ones nginx routes to. Returns the reloads it made when `stop` is cancelled.
async fn rotate(mut nginx: Nginx, admin_ports: Vec<(u16, u16)>, stop: CancellationToken) -> Nginx {
    let client = reqwest::Client::new();
    let mut routed: Vec<u16> = admin_ports.iter().map(|(main, _)| *main).collect();
    while !stop.is_cancelled() {
        // every replica probed at once, as kubelets do: a slow one delays no other's verdict
        let probes = admin_ports.iter().map(|(main, admin)| {
            let probe = client
                .get(format!("http://127.0.0.1:{admin}/readyz"))
                .timeout(Duration::from_secs(1))
                .send();
            async move {
                probe
                    .await
                    .is_ok_and(|response| response.status() == 200)
                    .then_some(*main)
            }
        });
        let ready: Vec<u16> = futures::future::join_all(probes)
            .await
            .into_iter()
            .flatten()
            .collect();
        // as endpoints never empty a Service on a rolling update, neither does this
        if !ready.is_empty() && ready != routed {
            nginx.route_to(&ready);
            routed = ready;
        }
        tokio::select! {
            () = tokio::time::sleep(PROBE_EVERY) => {}
            () = stop.cancelled() => {}
        }
    }
    nginx
}

#[derive(Default)]
struct Tally {
    sent: AtomicUsize,
    failures: Mutex<Vec<String>>,
}

/// REQUEST_EVERY, one request, each on a new connection, with no retry, until `stop`.
async fn load(base: String, cookie: String, tally: Arc<Tally>, stop: CancellationToken) {
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(0)
        .redirect(reqwest::redirect::Policy::none())
        .timeout(Duration::from_secs(20))
        .build()
        .unwrap();
    let mut ticks = tokio::time::interval(REQUEST_EVERY);
    // A tick a starved machine delayed is not made up in a burst: a burst on an already busy
    // machine only piles up timeouts that say nothing about the rollout. The rate achieved is
    // measured and reported instead.
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut requests = tokio::task::JoinSet::new();
    let mut turn = 0;
    loop {
        tokio::select! {
            _ = ticks.tick() => {}
            () = stop.cancelled() => break,
        }
        let path = LOAD[turn % LOAD.len()];
        turn += 1;
        let request = client
            .get(format!("{base}{path}"))
            .header("cookie", &cookie)
            .send();
        let tally = tally.clone();
        tally.sent.fetch_add(1, Ordering::Relaxed);
        requests.spawn(async move {
            let failure = match request.await {
                Ok(response)
                    if response.status().is_success() || response.status().is_redirection() =>
                {
                    // the whole body must arrive too
                    response
                        .bytes()
                        .await
                        .err()
                        .map(|err| format!("{path}: body: {err}"))
                }
                Ok(response) => Some(format!("{path}: status {}", response.status())),
                Err(err) => Some(format!("{path}: {err:?}")),
            };
            if let Some(failure) = failure {
                tally.failures.lock().unwrap().push(failure);
            }
        });
        while requests.try_join_next().is_some() {}
    }
    while requests.join_next().await.is_some() {}
}

/// A session with an item in its cart: the cookie the cart reads carry.
async fn shopper(base: &str) -> String {
    let client = reqwest::Client::new();
    let response = client
        .post(format!("{base}/api/cart/items"))
        .header("x-csrf", "1")
        .json(&serde_json::json!({
            "productId": "TF-QDS", "productName": "QD Sling Mount", "quantity": 1,
            "options": [{"label": "Color", "value": "Black"}]
        }))
        .send()
        .await
        .unwrap();
    assert!(response.status().is_success(), "{}", response.status());
    response
        .headers()
        .get_all("set-cookie")
        .iter()
        .filter_map(|value| value.to_str().ok())
        .filter_map(|value| value.split(';').next())
        .collect::<Vec<_>>()
        .join("; ")
}

async fn l2_hits(admin_port: u16) -> f64 {
    let text = reqwest::get(format!("http://127.0.0.1:{admin_port}/metrics"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    common::metrics::Scrape::parse(&text)
        .value("bff_redis_events_total", &[("event", "l2_hit")])
        .unwrap_or(0.0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "make test-rollout runs it: three bff processes, Redis and nginx (about 40 s)"]
async fn a_rolling_restart_under_load_fails_no_request_and_refills_from_the_shared_tier() {
    let started = Instant::now();
    let redis = RedisServer::start();
    let work = TempDir::new().unwrap();
    let dist = work.path().join("dist");
    common::write_dist(&dist);
    let calls = UpstreamCalls::default();
    let stop_sandbox = CancellationToken::new();
    std::fs::create_dir_all(work.path().join("sandbox")).unwrap();
    let sandbox = start_sandbox(
        &work.path().join("sandbox"),
        calls.clone(),
        stop_sandbox.clone(),
    )
    .await;

    let nginx_port = free_port();
    let base = format!("http://127.0.0.1:{nginx_port}");
    let config = work.path().join("bff.toml");
    let shipped =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../config/bff.toml"))
            .unwrap();
    std::fs::write(
        &config,
        shipped.replace(
            bff::config::SANDBOX_PLACEHOLDER,
            sandbox.trim_end_matches('/'),
        ),
    )
    .unwrap();
    let cluster = Cluster {
        config,
        redis_url: redis.url(),
        key_prefix: format!("rolling-{}:", uuid::Uuid::new_v4()),
        dist,
        public_origin: base.clone(),
        logs: work.path().to_owned(),
    };
    let mut replicas: Vec<Replica> = (0..REPLICAS)
        .map(|_| Replica {
            main_port: free_port(),
            admin_port: free_port(),
            child: None,
        })
        .collect();
    for replica in &mut replicas {
        cluster.start_replica(replica, 0).await;
    }
    let ports: Vec<u16> = replicas.iter().map(|replica| replica.main_port).collect();
    let nginx_dir = work.path().join("nginx");
    std::fs::create_dir_all(&nginx_dir).unwrap();
    let nginx = Nginx::start(&nginx_dir, nginx_port, &ports).await;
    let stop_rotation = CancellationToken::new();
    let rotation = tokio::spawn(rotate(
        nginx,
        replicas
            .iter()
            .map(|r| (r.main_port, r.admin_port))
            .collect(),
        stop_rotation.clone(),
    ));

    // warm up: every hot key is in L2 (and some replica's L1) before the first restart
    let cookie = shopper(&base).await;
    let warm = reqwest::Client::new();
    for path in LOAD {
        let response = warm
            .get(format!("{base}{path}"))
            .header("cookie", &cookie)
            .send()
            .await
            .unwrap();
        assert!(
            response.status().is_success(),
            "{path}: {}",
            response.status()
        );
    }
    let warmed: BTreeMap<&str, usize> = HOT_KEYS.iter().map(|key| (*key, calls.of(key))).collect();
    for (key, count) in &warmed {
        assert!(
            *count >= 1,
            "{key} was never fetched; the sandbox received {:?}",
            calls.0.lock().unwrap()
        );
    }

    let tally = Arc::new(Tally::default());
    let stop_load = CancellationToken::new();
    let load_started = Instant::now();
    let load_task = tokio::spawn(load(base.clone(), cookie, tally.clone(), stop_load.clone()));
    tokio::time::sleep(Duration::from_secs(2)).await;

    let restarts_started = Instant::now();
    let mut new_l2_hits = Vec::new();
    for (index, replica) in replicas.iter_mut().enumerate() {
        let status = terminate(replica).await;
        assert!(
            status.success(),
            "replica {index} exited with {status} (dropped requests?)"
        );
        let before = Instant::now();
        cluster.start_replica(replica, 1).await;
        // in rotation again, serving its share of the load for a while
        tokio::time::sleep(Duration::from_secs(3)).await;
        new_l2_hits.push(l2_hits(replica.admin_port).await);
        eprintln!(
            "replica {index}: restarted in {:.1} s",
            before.elapsed().as_secs_f64()
        );
    }
    let restart_phase = restarts_started.elapsed();
    tokio::time::sleep(Duration::from_secs(1)).await;
    stop_load.cancel();
    let load_time = load_started.elapsed();
    tokio::time::timeout(Duration::from_secs(30), load_task)
        .await
        .unwrap()
        .unwrap();
    stop_rotation.cancel();
    let nginx = rotation.await.unwrap();

    let sent = tally.sent.load(Ordering::Relaxed);
    let failures = tally.failures.lock().unwrap().clone();
    let per_key: BTreeMap<&str, (usize, usize)> = HOT_KEYS
        .iter()
        .map(|key| (*key, (warmed[key], calls.of(key) - warmed[key])))
        .collect();
    eprintln!(
        "rolling restart: {sent} requests sent in {:.1} s of load ({:.0}/s), {} failed; {} nginx \
         reloads; restart phase {:.1} s; whole test {:.1} s",
        load_time.as_secs_f64(),
        sent as f64 / load_time.as_secs_f64(),
        failures.len(),
        nginx.reloads,
        restart_phase.as_secs_f64(),
        started.elapsed().as_secs_f64()
    );
    eprintln!("upstream calls per hot key (warm-up, during the restarts): {per_key:?}");
    eprintln!("shared-tier (L2) hits of each new replica: {new_l2_hits:?}");
    let all: BTreeMap<String, usize> = calls
        .0
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .iter()
        .map(|(path, count)| (path.clone(), *count))
        .collect();
    eprintln!("every upstream call of the test, by path: {all:?}");

    let rate = sent as f64 / load_time.as_secs_f64();
    // 50/s on an idle machine; a machine shared with other jobs gets less out of the generator
    assert!(rate > 30.0, "the load ran at {rate:.0} requests/s only");
    assert!(
        failures.is_empty(),
        "{} of {sent} requests failed: {failures:?}",
        failures.len()
    );
    assert!(
        nginx.reloads >= 2 * REPLICAS,
        "each replica left and rejoined the rotation ({} reloads)",
        nginx.reloads
    );
    for (key, (_, during)) in &per_key {
        // every TTL outlasts the run: a new replica's first read of a hot key is an L2 hit,
        // never an upstream call, let alone one per replica
        assert_eq!(
            *during, 0,
            "{key}: {during} upstream call(s) during the restarts"
        );
    }
    for (index, hits) in new_l2_hits.iter().enumerate() {
        assert!(
            *hits >= HOT_KEYS.len() as f64,
            "new replica {index} read its hot keys from L2 only {hits} time(s)"
        );
    }

    for replica in &mut replicas {
        let status = terminate(replica).await;
        assert!(status.success());
    }
    drop(nginx);
    stop_sandbox.cancel();
}
