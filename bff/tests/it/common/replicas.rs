//! Several BFF replicas on one sandbox and one Redis, as Kubernetes runs them: each replica a
//! real server on its own ports, sharing only the sandbox (over HTTP) and Redis.

use bff::config::{Config, SANDBOX_PLACEHOLDER, Secrets};
use tempfile::TempDir;
use tokio_util::sync::CancellationToken;

use super::{TestServer, test_config, write_dist};

/// Secrets every replica shares, as from one Kubernetes secret (sessions sealed by one open on
/// every other).
pub const SHARED_SECRETS: [(&str, &str); 3] = [
    (
        "BFF_SESSION_KEYS",
        "replica-test-session-key-0123456789abcdef",
    ),
    ("BFF_ADMIN_TOKEN", "replica-test-admin-token"),
    ("BFF_WEBHOOK_SECRET", "replica-test-webhook-secret"),
];

pub struct Replicas {
    pub replicas: Vec<TestServer>,
    /// How each replica was started, to start it again ([`Self::restart`]).
    started: Vec<Started>,
    /// The Redis key prefix the replicas share (their own, apart from any other test's).
    pub key_prefix: String,
    pub sandbox: String,
    sandbox_stop: CancellationToken,
    _sandbox_dir: TempDir,
}

/// What a replica was started with.
struct Started {
    config: Config,
    config_path: Option<std::path::PathBuf>,
    secrets: Vec<(&'static str, String)>,
}

/// How the sandbox and the replicas are set up.
pub struct Setup {
    pub replicas: usize,
    pub redis_url: String,
    /// Lifetime of the sandbox's access tokens.
    pub access_token_ttl_seconds: i64,
}

impl Setup {
    /// `replicas` replicas on the Redis at `redis_url`, with the sandbox's access tokens living
    /// 15 minutes (longer than any test: no refresh unless a test asks for one).
    pub fn on(redis_url: impl Into<String>, replicas: usize) -> Self {
        Self {
            replicas,
            redis_url: redis_url.into(),
            access_token_ttl_seconds: 900,
        }
    }
}

impl Replicas {
    /// Starts the sandbox, then `setup.replicas` replicas with `[redis] url` set, each with
    /// `configure` applied to its config.
    pub async fn start(setup: Setup, configure: impl Fn(&mut Config)) -> Self {
        Self::start_with_secrets(setup, &[], configure).await
    }

    /// [`Self::start`], with `secrets` beside [`SHARED_SECRETS`] (Redis's user and password).
    pub async fn start_with_secrets(
        setup: Setup,
        secrets: &[(&'static str, String)],
        configure: impl Fn(&mut Config),
    ) -> Self {
        Self::start_with_file(setup, secrets, None, configure).await
    }

    /// [`Self::start_with_secrets`], each replica reading `config_path` on reload (SIGHUP,
    /// `POST /admin/config/reload`).
    pub async fn start_with_file(
        setup: Setup,
        secrets: &[(&'static str, String)],
        config_path: Option<std::path::PathBuf>,
        configure: impl Fn(&mut Config),
    ) -> Self {
        let sandbox_dir = TempDir::new().unwrap();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let sandbox_origin = sandbox::default_public_url(addr);
        let state = sandbox::SandboxState::new(sandbox::SandboxOptions {
            access_token_ttl_seconds: setup.access_token_ttl_seconds,
            ..sandbox::SandboxOptions::new(sandbox_dir.path().to_owned(), sandbox_origin.clone())
        })
        .unwrap();
        let sandbox_stop = CancellationToken::new();
        let stop = sandbox_stop.clone();
        tokio::spawn(sandbox::serve(listener, state, async move {
            stop.cancelled().await;
        }));
        let mut replicas = Vec::new();
        let mut started = Vec::new();
        // One prefix for this storefront's replicas, apart from any other test's.
        let key_prefix = format!("replicas-{}:", uuid::Uuid::new_v4());
        for _ in 0..setup.replicas {
            let mut config = external_sandbox(test_config(), &sandbox_origin);
            config.redis.url = setup.redis_url.clone();
            config.redis.key_prefix = key_prefix.clone();
            config.redis.command_timeout = super::BUSY_MACHINE_REDIS_TIMEOUT;
            configure(&mut config);
            started.push(Started {
                config: config.clone(),
                config_path: config_path.clone(),
                secrets: secrets.to_vec(),
            });
            replicas
                .push(start_replica(config, &sandbox_origin, secrets, config_path.clone()).await);
        }
        Self {
            replicas,
            started,
            key_prefix,
            sandbox: sandbox_origin,
            sandbox_stop,
            _sandbox_dir: sandbox_dir,
        }
    }

    /// Stops replica `index` and starts it again as a new process (a new replica id) with the
    /// same configuration, as a pod restart does.
    pub async fn restart(&mut self, index: usize) {
        let old = self.replicas.remove(index);
        old.stop().await;
        let started = &self.started[index];
        let fresh = start_replica(
            started.config.clone(),
            &self.sandbox,
            &started.secrets,
            started.config_path.clone(),
        )
        .await;
        self.replicas.insert(index, fresh);
    }

    pub async fn stop(self) {
        for replica in self.replicas {
            replica.stop().await;
        }
        self.sandbox_stop.cancel();
    }
}

/// `POST /admin/cache/purge` on `replica`'s admin port with the shared admin token; `purge` is
/// the request's body (`{"tags": [...]}`, `{"all": true}`). The answer is the caller's to check.
pub async fn admin_purge(replica: &TestServer, purge: &serde_json::Value) -> reqwest::Response {
    let token = SHARED_SECRETS
        .iter()
        .find(|(name, _)| *name == "BFF_ADMIN_TOKEN")
        .map(|(_, token)| *token)
        .expect("the admin token is a shared secret");
    replica
        .client
        .post(format!("{}/admin/cache/purge", replica.admin))
        .bearer_auth(token)
        .json(purge)
        .send()
        .await
        .expect("the admin port answers")
}

/// `config` with every `${sandbox}` replaced by `origin` and the embedded sandbox off.
fn external_sandbox(config: Config, origin: &str) -> Config {
    let text = config
        .to_toml()
        .unwrap()
        .replace(SANDBOX_PLACEHOLDER, origin.trim_end_matches('/'));
    let mut config: Config = toml::from_str(&text).unwrap();
    config.sandbox.enabled = false;
    config
}

async fn start_replica(
    mut config: Config,
    sandbox: &str,
    extra_secrets: &[(&str, String)],
    config_path: Option<std::path::PathBuf>,
) -> TestServer {
    let dist = TempDir::new().unwrap();
    let data = TempDir::new().unwrap();
    write_dist(dist.path());
    config.web.dist_dir = dist.path().to_owned();
    config.sandbox.data_dir = data.path().to_owned();
    let secrets = Secrets::from_lookup(&config, |name| {
        SHARED_SECRETS
            .iter()
            .find(|(key, _)| *key == name)
            .map(|(_, value)| (*value).to_owned())
            .or_else(|| {
                extra_secrets
                    .iter()
                    .find(|(key, _)| *key == name)
                    .map(|(_, value)| value.clone())
            })
    })
    .unwrap();
    let running = bff::start(config, secrets, config_path).await.unwrap();
    let base = format!("http://{}", running.main_addr);
    let admin = format!("http://{}", running.admin_addr);
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    TestServer {
        running,
        base,
        admin,
        sandbox: sandbox.to_owned(),
        client,
        _dirs: (dist, data),
    }
}
