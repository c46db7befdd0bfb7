use std::collections::HashMap;
use std::time::Duration;

use super::*;

/// What a build without the `sandbox` feature (the production image's) needs on top of a
/// configuration that relies on the embedded sandbox: the sandbox off and real upstreams. Empty in
/// the default build, so the tests below hold in both (`make test` runs them in both).
const BUILD_ENV: &[(&str, &str)] = if cfg!(feature = "sandbox") {
    &[]
} else {
    &[
        ("BFF__SANDBOX__ENABLED", "false"),
        (
            "BFF__UPSTREAMS__COMMERCE__BASE_URL",
            "http://commerce.test/",
        ),
        ("BFF__UPSTREAMS__CONTENT__BASE_URL", "http://content.test/"),
        (
            "BFF__SECURITY__CSP_FRAME_SRC",
            "[\"https://third-party.test\"]",
        ),
        (
            "BFF__SECURITY__CSP_IMG_SRC",
            "[\"https://third-party.test\"]",
        ),
        (
            "BFF__SECURITY__CSP_CONNECT_SRC",
            "[\"https://third-party.test\"]",
        ),
        ("BFF__MAPS__TILE_URL", "https://tiles.test/{z}/{x}/{y}.png"),
        ("BFF__SEO__DEFAULT_IMAGE", "https://media.test/logo.svg"),
        (
            "BFF__PUBLIC__CAPTCHA__SCRIPT_URL",
            "https://third-party.test/api.js",
        ),
        (
            "BFF__PUBLIC__PAYMENT__SCRIPT_URL",
            "https://third-party.test/Accept.js",
        ),
        (
            "BFF__PUBLIC__REVIEWS__SCRIPT_URL",
            "https://third-party.test/widget.js",
        ),
    ]
};

/// The built-in defaults as this build can run them: with [`BUILD_ENV`] applied.
fn default_for_this_build() -> Config {
    load_from("", &[]).unwrap_or_else(|err| panic!("{err}"))
}

/// [`BUILD_ENV`], then `env` (which wins), as owned pairs.
fn with_build_env(env: &[(&str, &str)]) -> Vec<(String, String)> {
    BUILD_ENV
        .iter()
        .filter(|(key, _)| !env.iter().any(|(named, _)| named == key))
        .chain(env)
        .map(|(key, value)| ((*key).to_owned(), (*value).to_owned()))
        .collect()
}

/// `toml` written to a fresh bff.toml, loaded with exactly `env` as the environment (the
/// process's own is neither read nor changed, so tests can run in parallel).
fn load_exactly(toml: &str, env: &[(&str, &str)]) -> Result<Config, ConfigError> {
    let dir = tempfile::tempdir().map_err(|err| ConfigError(err.to_string()))?;
    let path = dir.path().join("bff.toml");
    std::fs::write(&path, toml).map_err(|err| ConfigError(err.to_string()))?;
    let env = env
        .iter()
        .map(|(key, value)| ((*key).to_owned(), (*value).to_owned()));
    Config::load_with_env(&path, env)
}

/// As [`load_exactly`], with what this build needs ([`BUILD_ENV`]) under `env`.
fn load_from(toml: &str, env: &[(&str, &str)]) -> Result<Config, ConfigError> {
    let env = with_build_env(env);
    let pairs: Vec<(&str, &str)> = env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    load_exactly(toml, &pairs)
}

fn message_of(toml: &str, env: &[(&str, &str)]) -> String {
    match load_exactly(toml, env) {
        Ok(_) => panic!("config should be rejected: {toml:?} {env:?}"),
        Err(err) => err.0,
    }
}

/// The shipped config/bff.toml, as this build can load it.
fn load_shipped() -> Result<Config, ConfigError> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../config/bff.toml");
    Config::load_with_env(&path, with_build_env(&[]))
}

#[test]
fn unknown_key_is_rejected_naming_it() {
    let message = message_of("[server]\nlisen = \"127.0.0.1:1\"\n", &[]);
    assert!(message.contains("server.lisen"), "{message}");
    assert!(message.contains("unknown key"), "{message}");
}

#[test]
fn unknown_section_is_rejected_naming_it() {
    let message = message_of("[servr]\nlisten = \"127.0.0.1:1\"\n", &[]);
    assert!(message.contains("servr"), "{message}");
}

#[test]
fn bad_value_is_rejected_naming_the_key() {
    let message = message_of("[server]\nlisten = \"not an address\"\n", &[]);
    assert!(message.starts_with("server.listen:"), "{message}");
}

#[test]
fn bad_environment_override_names_the_key() {
    let message = message_of("", &[("BFF__SERVER__SHUTDOWN_GRACE", "soon")]);
    assert!(message.contains("server.shutdown_grace"), "{message}");
}

#[test]
fn environment_overrides_the_file() {
    let config = load_from(
        "[server]\nlisten = \"127.0.0.1:1\"\nshutdown_grace = \"5ms\"\n",
        &[
            ("BFF__SERVER__LISTEN", "127.0.0.1:4242"),
            ("BFF__SEO__ALLOW_INDEXING", "false"),
            ("BFF__SERVER__SHUTDOWN_GRACE", "7s"),
            ("BFF__WEB__PREVIOUS_DIST_DIRS", "[\"/app/previous\"]"),
            ("BFF__RATE_LIMIT__TRUSTED_PROXIES", "10.0.0.0/8,192.0.2.7"),
            (
                "BFF__RATE_LIMIT__TRUSTED_CLIENT_IP_HEADER",
                "x-forwarded-for",
            ),
        ],
    )
    .unwrap_or_else(|err| panic!("{err}"));
    assert_eq!(config.server.listen.port(), 4242);
    assert_eq!(config.server.shutdown_grace, Duration::from_secs(7));
    assert!(!config.seo.allow_indexing);
    assert_eq!(
        config.web.previous_dist_dirs,
        [std::path::PathBuf::from("/app/previous")]
    );
    assert_eq!(config.rate_limit.trusted_proxies.len(), 2);
}

#[test]
fn a_file_key_the_environment_leaves_alone_keeps_its_value() {
    let config = load_from(
        "[server]\nlisten = \"127.0.0.1:1\"\n[admin]\nlisten = \"127.0.0.1:2\"\n",
        &[("BFF__ADMIN__LISTEN", "127.0.0.1:3")],
    )
    .unwrap_or_else(|err| panic!("{err}"));
    assert_eq!(config.server.listen.port(), 1);
    assert_eq!(config.admin.listen.port(), 3);
}

#[test]
fn an_error_names_where_the_bad_value_came_from() {
    let from_env = message_of("", &[("BFF__SERVER__LISTEN", "nowhere")]);
    assert!(from_env.starts_with("server.listen:"), "{from_env}");
    assert!(from_env.contains("BFF__SERVER__LISTEN"), "{from_env}");
    let from_file = message_of("[server]\nlisten = \"nowhere\"\n", &[]);
    assert!(from_file.contains("bff.toml"), "{from_file}");
    let unknown = message_of("", &[("BFF__SERVER__LISEN", "127.0.0.1:1")]);
    assert!(unknown.contains("server.lisen: unknown key"), "{unknown}");
    assert!(unknown.contains("BFF__SERVER__LISEN"), "{unknown}");
}

#[test]
fn a_file_that_is_not_toml_is_refused_naming_the_file() {
    let message = message_of("[server\n", &[]);
    assert!(message.contains("bff.toml"), "{message}");
}

#[test]
fn production_refuses_the_sandbox() {
    let message = message_of("environment = \"production\"\n", &[]);
    assert!(message.contains("sandbox.enabled"), "{message}");
}

#[test]
fn sandbox_placeholder_needs_the_sandbox() {
    let message = message_of("[sandbox]\nenabled = false\n", &[]);
    assert!(message.contains("upstreams.commerce.base_url"), "{message}");
    assert!(message.contains("upstreams.content.base_url"), "{message}");
}

#[test]
fn the_shipped_config_file_loads() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../config/bff.toml");
    if !cfg!(feature = "sandbox") {
        // As shipped it runs the embedded sandbox, which this build refuses, saying why.
        let refused = Config::load(&path).map(|_| ()).unwrap_err().to_string();
        assert!(refused.contains(NO_SANDBOX_IN_THIS_BUILD), "{refused}");
    }
    let config = load_shipped().unwrap_or_else(|err| panic!("{err}"));
    assert_eq!(config.sandbox.enabled, cfg!(feature = "sandbox"));
    assert_eq!(config.server.listen.port(), 8080);
    assert_eq!(config.admin.listen.port(), 9090);
}

#[test]
fn the_shipped_config_documents_every_key_with_its_default() {
    // Every key of the effective default config must appear in config/bff.toml, so ops can
    // read every setting there.
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../config/bff.toml");
    let shipped = std::fs::read_to_string(path).unwrap_or_default();
    let defaults: toml::Table =
        toml::from_str(&Config::default().to_toml().unwrap_or_default()).unwrap_or_default();
    fn keys(prefix: &str, table: &toml::Table, out: &mut Vec<String>) {
        for (key, value) in table {
            match value {
                toml::Value::Table(inner) => keys(&format!("{prefix}{key}."), inner, out),
                _ => out.push(format!("{prefix}{key}")),
            }
        }
    }
    let mut all = Vec::new();
    keys("", &defaults, &mut all);
    assert!(all.len() > 30, "expected many keys, got {all:?}");
    let shipped_table: toml::Table = toml::from_str(&shipped).unwrap_or_default();
    let mut documented = Vec::new();
    keys("", &shipped_table, &mut documented);
    let missing: Vec<_> = all.iter().filter(|key| !documented.contains(key)).collect();
    assert!(
        missing.is_empty(),
        "keys missing from config/bff.toml: {missing:?}"
    );
}

#[test]
fn the_shipped_config_file_states_the_defaults() {
    let shipped = load_shipped().unwrap_or_else(|err| panic!("{err}"));
    assert_eq!(
        shipped.to_toml().unwrap_or_default(),
        default_for_this_build().to_toml().unwrap_or_default(),
        "config/bff.toml must show the built-in defaults"
    );
}

fn lookup(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
    let map: HashMap<String, String> = pairs
        .iter()
        .map(|(key, value)| ((*key).to_owned(), (*value).to_owned()))
        .collect();
    move |name| map.get(name).cloned()
}

fn production() -> Config {
    Config {
        environment: Environment::Production,
        ..Config::default()
    }
}

#[test]
fn development_fills_missing_secrets_with_marked_stand_ins() {
    let secrets =
        Secrets::from_lookup(&Config::default(), lookup(&[])).unwrap_or_else(|err| panic!("{err}"));
    assert!(
        secrets
            .values()
            .iter()
            .all(|value| value.starts_with("dev-insecure-"))
    );
}

#[test]
fn production_requires_every_required_secret() {
    let err = Secrets::from_lookup(&production(), lookup(&[("BFF_ADMIN_TOKEN", "a")]))
        .expect_err("missing secrets must be refused");
    assert!(err.0.contains("BFF_SESSION_KEYS"), "{err}");
}

#[test]
fn production_refuses_development_secrets() {
    let err = Secrets::from_lookup(
        &production(),
        lookup(&[
            ("BFF_ADMIN_TOKEN", "dev-insecure-bff-admin-token"),
            ("BFF_SESSION_KEYS", "k1"),
            ("BFF_WEBHOOK_SECRET", "w"),
        ]),
    )
    .expect_err("development secrets must be refused");
    assert!(err.0.contains("BFF_ADMIN_TOKEN"), "{err}");
}

#[test]
fn secrets_are_read_from_files_and_redacted_when_printed() {
    let dir = tempfile::tempdir().unwrap_or_else(|err| panic!("{err}"));
    let file = dir.path().join("admin");
    std::fs::write(&file, "file-admin-token\n").unwrap_or_else(|err| panic!("{err}"));
    let file = file.to_string_lossy().into_owned();
    let secrets = Secrets::from_lookup(
        &production(),
        lookup(&[
            ("BFF_ADMIN_TOKEN_FILE", &file),
            ("BFF_SESSION_KEYS", "new-key, old-key"),
            ("BFF_WEBHOOK_SECRET", "hook-secret"),
        ]),
    )
    .unwrap_or_else(|err| panic!("{err}"));
    assert!(secrets.values().contains(&"file-admin-token"));
    assert_eq!(secrets.session_keys.len(), 2);
    let printed = format!("{secrets:?}\n{secrets}");
    for value in ["file-admin-token", "new-key", "old-key", "hook-secret"] {
        assert!(!printed.contains(value), "{value} leaked: {printed}");
    }
    assert!(printed.contains("[redacted]"));
}

#[test]
fn the_tile_provider_template_is_checked() {
    let mut config = Config::default();
    config.maps.tile_url = "https://tiles.example/{z}/{x}.png".to_owned();
    config.maps.max_zoom = 30;
    config.maps.key_header = "bad header".to_owned();
    let err = config.validate().unwrap_err().to_string();
    assert!(err.contains("maps.tile_url: must contain {y}"), "{err}");
    assert!(err.contains("maps.max_zoom: at most 24"), "{err}");
    assert!(err.contains("maps.key_header: not a header name"), "{err}");

    // no provider at all is a valid choice (the map draws its own outlines)
    let mut none = default_for_this_build();
    none.maps.tile_url = String::new();
    assert!(none.validate().is_ok());
}

#[test]
fn a_redis_url_with_a_password_or_another_scheme_is_refused_naming_the_key() {
    let with_password = message_of("[redis]\nurl = \"redis://:hunter2@cache:6379/0\"\n", &[]);
    assert!(with_password.contains("redis.url"), "{with_password}");
    assert!(
        with_password.contains("BFF_REDIS_PASSWORD"),
        "{with_password}"
    );
    assert!(
        !with_password.contains("hunter2"),
        "the secret is not echoed"
    );
    let other_scheme = message_of("[redis]\nurl = \"http://cache:6379\"\n", &[]);
    assert!(other_scheme.contains("redis.url"), "{other_scheme}");
    let no_pool = message_of(
        "[redis]\nurl = \"redis://cache:6379\"\npool_size = 0\n",
        &[],
    );
    assert!(no_pool.contains("redis.pool_size"), "{no_pool}");
}

#[test]
fn redis_and_valkey_urls_plain_and_over_tls_are_what_the_client_speaks() {
    for url in [
        "redis://cache:6379/0",
        "rediss://cache.example.com:6380/0",
        "valkey://cache:6379",
        "valkeys://cache.example.com:6380",
    ] {
        let config = load_from(&format!("[redis]\nurl = \"{url}\"\n"), &[])
            .unwrap_or_else(|err| panic!("{url}: {err}"));
        assert!(config.redis.enabled());
    }
    let tls = load_from(
        "[redis]\nurl = \"valkeys://cache:6380\"\n[redis.tls]\nca_file = \"/etc/redis/ca.pem\"\n",
        &[],
    )
    .unwrap_or_else(|err| panic!("{err}"));
    assert!(tls.redis.uses_tls());
    let unix = message_of("[redis]\nurl = \"unix:///run/redis.sock\"\n", &[]);
    assert!(
        unix.contains("redis.url: must start with redis://, rediss://"),
        "{unix}"
    );
}

#[test]
fn what_would_weaken_or_contradict_redis_tls_is_refused_naming_the_key() {
    let insecure = message_of("[redis]\nurl = \"rediss://cache:6380/#insecure\"\n", &[]);
    assert!(insecure.contains("redis.url: #insecure"), "{insecure}");
    let plain_with_ca = message_of(
        "[redis]\nurl = \"redis://cache:6379\"\n[redis.tls]\nca_file = \"/ca.pem\"\n",
        &[],
    );
    assert!(
        plain_with_ca.contains("redis.tls: set, but redis.url is not rediss://"),
        "{plain_with_ca}"
    );
    let cert_alone = message_of(
        "[redis]\nurl = \"rediss://cache:6380\"\n[redis.tls]\nclient_cert_file = \"/c.pem\"\n",
        &[],
    );
    assert!(
        cert_alone.contains("redis.tls.client_key_file: required"),
        "{cert_alone}"
    );
    let user = message_of("[redis]\nurl = \"rediss://bff@cache:6380\"\n", &[]);
    assert!(user.contains("BFF_REDIS_USERNAME"), "{user}");
    let protocol = message_of(
        "[redis]\nurl = \"redis://cache:6379/?protocol=resp3\"\n",
        &[],
    );
    assert!(protocol.contains("redis.url: the protocol"), "{protocol}");
}

#[test]
fn a_coordination_tier_of_its_own_is_checked_as_the_cache_tier_is() {
    let two = load_from(
        "[redis]\nurl = \"redis://cache:6379\"\n[redis.coordination]\nurl = \"rediss://coord:6380\"\n",
        &[],
    )
    .unwrap_or_else(|err| panic!("{err}"));
    assert_eq!(two.redis.coordination_url(), "rediss://coord:6380");
    let one = load_from("[redis]\nurl = \"redis://cache:6379\"\n", &[])
        .unwrap_or_else(|err| panic!("{err}"));
    assert_eq!(one.redis.coordination_url(), "redis://cache:6379");
    let alone = message_of("[redis.coordination]\nurl = \"redis://coord:6379\"\n", &[]);
    assert!(
        alone.contains("redis.coordination.url: set, but redis.url is empty"),
        "{alone}"
    );
    let scheme = message_of(
        "[redis]\nurl = \"redis://cache:6379\"\n[redis.coordination]\nurl = \"memcached://coord\"\n",
        &[],
    );
    assert!(
        scheme.contains("redis.coordination.url: must start with"),
        "{scheme}"
    );
}

#[test]
fn sentinels_need_a_primary_name_and_host_port_each() {
    let fine = load_from(
        "[redis]\nurl = \"redis://primary/0\"\n[redis.sentinel]\nprimary_name = \"storefront\"\nsentinels = [\"s0:26379\", \"s1:26379\"]\n",
        &[],
    )
    .unwrap_or_else(|err| panic!("{err}"));
    assert!(fine.redis.sentinel.enabled());
    let nameless = message_of(
        "[redis]\nurl = \"redis://primary/0\"\n[redis.sentinel]\nsentinels = [\"s0:26379\"]\n",
        &[],
    );
    assert!(
        nameless.contains("redis.sentinel.primary_name: required"),
        "{nameless}"
    );
    let portless = message_of(
        "[redis]\nurl = \"redis://primary/0\"\n[redis.sentinel]\nprimary_name = \"x\"\nsentinels = [\"s0\"]\n",
        &[],
    );
    assert!(portless.contains("\"s0\" is not host:port"), "{portless}");
}

#[test]
fn the_coordination_tier_is_found_through_the_same_sentinels_under_a_name_of_its_own() {
    let sentinel = "[redis.sentinel]\nprimary_name = \"cache\"\nsentinels = [\"s0:26379\"]\n";
    let fine = load_from(
        &format!(
            "[redis]\nurl = \"redis://primary/0\"\n{sentinel}[redis.coordination]\nurl = \"redis://coordination/0\"\nprimary_name = \"coordination\"\n"
        ),
        &[],
    )
    .unwrap_or_else(|err| panic!("{err}"));
    assert_eq!(
        fine.redis.coordination.sentinel_primary(),
        Some("coordination")
    );
    let without_sentinel = message_of(
        "[redis]\nurl = \"redis://primary/0\"\n[redis.coordination]\nurl = \"redis://coordination/0\"\nprimary_name = \"coordination\"\n",
        &[],
    );
    assert!(
        without_sentinel.contains("redis.coordination.primary_name: needs [redis.sentinel]"),
        "{without_sentinel}"
    );
    let one_redis = message_of(
        &format!(
            "[redis]\nurl = \"redis://primary/0\"\n{sentinel}[redis.coordination]\nprimary_name = \"coordination\"\n"
        ),
        &[],
    );
    assert!(
        one_redis
            .contains("redis.coordination.primary_name: set, but redis.coordination.url is empty"),
        "{one_redis}"
    );
    let same = message_of(
        &format!(
            "[redis]\nurl = \"redis://primary/0\"\n{sentinel}[redis.coordination]\nurl = \"redis://coordination/0\"\nprimary_name = \"cache\"\n"
        ),
        &[],
    );
    assert!(
        same.contains("redis.coordination.primary_name: \"cache\" is the cache tier's primary"),
        "{same}"
    );
}

#[test]
fn cluster_mode_refuses_sentinel_a_database_and_braces_in_the_prefix_naming_the_key() {
    let fine = load_from(
        "[redis]\nurl = \"redis://cluster.example:6379\"\n[redis.cluster]\nenabled = true\n",
        &[],
    )
    .unwrap_or_else(|err| panic!("{err}"));
    assert!(fine.redis.cluster.enabled);
    let both = message_of(
        "[redis]\nurl = \"redis://primary/0\"\n[redis.cluster]\nenabled = true\n[redis.sentinel]\nprimary_name = \"storefront\"\nsentinels = [\"s0:26379\"]\n",
        &[],
    );
    assert!(
        both.contains("redis.cluster.enabled: cannot be combined with redis.sentinel.primary_name"),
        "{both}"
    );
    let database = message_of(
        "[redis]\nurl = \"redis://cluster.example:6379/2\"\n[redis.cluster]\nenabled = true\n",
        &[],
    );
    assert!(
        database.contains("redis.url: a cluster has database 0 only"),
        "{database}"
    );
    let braces = message_of(
        "[redis]\nurl = \"redis://cluster.example:6379\"\nkey_prefix = \"{shop}:\"\n[redis.cluster]\nenabled = true\n",
        &[],
    );
    assert!(
        braces.contains("redis.key_prefix: must not contain { or }"),
        "{braces}"
    );
    let without_url = message_of("[redis.cluster]\nenabled = true\n", &[]);
    assert!(
        without_url.contains("redis.cluster.enabled: set, but redis.url is empty"),
        "{without_url}"
    );
}

#[test]
fn an_acl_user_without_its_password_is_refused() {
    let config = Config::default();
    let secrets = Secrets::from_lookup(&config, |name| {
        (name == "BFF_REDIS_USERNAME").then(|| "storefront".to_owned())
    });
    let err = secrets.map(|_| ()).unwrap_err().0;
    assert!(
        err.contains("BFF_REDIS_USERNAME: set, but BFF_REDIS_PASSWORD is not"),
        "{err}"
    );
    let both = Secrets::from_lookup(&config, |name| match name {
        "BFF_REDIS_USERNAME" => Some("storefront".to_owned()),
        "BFF_REDIS_PASSWORD" => Some("hunter2".to_owned()),
        _ => None,
    })
    .unwrap_or_else(|err| panic!("{err}"));
    assert!(both.redis.is_set());
    assert!(both.redis.password_file.is_none(), "from the environment");
    assert!(format!("{both:?}").contains("BFF_REDIS_USERNAME"));
    assert!(!format!("{both:?}").contains("hunter2"));
}

#[test]
fn without_a_redis_url_redis_is_off() {
    let config = load_from("", &[]).unwrap_or_else(|err| panic!("{err}"));
    assert!(!config.redis.enabled());
}

// Durations: humantime strings, and the old whole-unit keys for one more release.

fn load_reporting(toml: &str, env: &[(&str, &str)]) -> Result<Loaded, ConfigError> {
    let dir = tempfile::tempdir().map_err(|err| ConfigError(err.to_string()))?;
    let path = dir.path().join("bff.toml");
    std::fs::write(&path, toml).map_err(|err| ConfigError(err.to_string()))?;
    Config::load_with_env_reporting(&path, with_build_env(env))
}

#[test]
fn durations_are_humantime_strings_in_the_file_and_the_environment() {
    let loaded = load_reporting(
        "[server]\nrequest_timeout = \"250ms\"\n[cache.pages]\nttl = \"5m\"\n\
         stale_if_error = \"1d\"\n[session]\nmax_age = \"2h 30m\"\n",
        &[
            ("BFF__CACHE__PRODUCT__TTL", "90s"),
            ("BFF__SERVER__SHUTDOWN_DELAY", "3s"),
            ("BFF__SESSION__VERIFY_AFTER", "0"),
        ],
    )
    .unwrap_or_else(|err| panic!("{err}"));
    let config = loaded.config;
    assert_eq!(config.server.request_timeout, Duration::from_millis(250));
    assert_eq!(config.cache.pages.ttl, Duration::from_secs(300));
    assert_eq!(
        config.cache.pages.stale_if_error,
        Duration::from_secs(86_400)
    );
    assert_eq!(config.session.max_age, Duration::from_secs(9_000));
    assert_eq!(config.cache.product.ttl, Duration::from_secs(90));
    assert_eq!(config.server.shutdown_delay, Some(Duration::from_secs(3)));
    assert_eq!(config.session.verify_after, Duration::ZERO);
    assert!(loaded.deprecations.is_empty(), "{:?}", loaded.deprecations);
    // check-config shows them as they are written
    let shown = config.to_toml().unwrap_or_default();
    assert!(shown.contains("ttl = \"5m\""), "{shown}");
    assert!(shown.contains("request_timeout = \"250ms\""), "{shown}");
}

#[test]
fn an_old_key_is_accepted_with_a_deprecation_naming_it_and_its_successor() {
    let loaded = load_reporting(
        "[cache.pages]\nstale_if_error_ms = 86400000\n[web]\nprevious_assets_window_seconds = 0\n",
        &[("BFF__SERVER__SHUTDOWN_GRACE_MS", "7000")],
    )
    .unwrap_or_else(|err| panic!("{err}"));
    assert_eq!(
        loaded.config.cache.pages.stale_if_error,
        Duration::from_secs(86_400)
    );
    assert_eq!(loaded.config.web.previous_assets_window, Duration::ZERO);
    assert_eq!(loaded.config.server.shutdown_grace, Duration::from_secs(7));
    let notices = loaded.deprecations;
    assert_eq!(notices.len(), 3, "{notices:?}");
    let notice = |old: &str| {
        notices
            .iter()
            .find(|notice| notice.starts_with(old))
            .unwrap_or_else(|| panic!("no notice for {old}: {notices:?}"))
            .clone()
    };
    let file = notice("cache.pages.stale_if_error_ms");
    assert!(file.contains("bff.toml"), "{file}");
    assert!(file.contains("deprecated"), "{file}");
    assert!(
        file.contains("cache.pages.stale_if_error = \"1d\""),
        "{file}"
    );
    let seconds = notice("web.previous_assets_window_seconds");
    assert!(
        seconds.contains("web.previous_assets_window = \"0s\""),
        "{seconds}"
    );
    let env = notice("server.shutdown_grace_ms");
    assert!(env.contains("BFF__SERVER__SHUTDOWN_GRACE_MS"), "{env}");
    assert!(env.contains("server.shutdown_grace = \"7s\""), "{env}");
}

/// Duration keys added after durations took units: they never had an old spelling.
const BORN_WITH_A_UNIT: &[&str] = &[
    "ssr.failed_render_ttl",
    "redis.replica_ack_timeout",
    "fleet.heartbeat_interval",
    "fleet.silent_after",
    "fleet.forget_after",
    "fleet.purge_receipt_deadline",
    "fleet.explain_deadline",
    "admin.override_convergence",
    "session.revocation_check_interval",
];

/// Every duration key of the defaults, written in its old spelling, in its unit.
fn old_spelling(table: &toml::Table, path: &mut Vec<String>, out: &mut toml::Table) -> usize {
    let mut written = 0;
    for (key, value) in table {
        path.push(key.clone());
        match value {
            toml::Value::Table(inner) => {
                let mut section = toml::Table::new();
                written += old_spelling(inner, path, &mut section);
                out.insert(key.clone(), toml::Value::Table(section));
            }
            toml::Value::String(_) if BORN_WITH_A_UNIT.contains(&path.join(".").as_str()) => {
                out.insert(key.clone(), value.clone());
            }
            toml::Value::String(text) if duration::parse(text).is_ok() => {
                let duration = duration::parse(text).unwrap_or_default();
                let found = ["_ms", "_seconds", "_days"].into_iter().find_map(|suffix| {
                    let mut old = path.clone();
                    old.pop();
                    old.push(format!("{key}{suffix}"));
                    deprecated::old_key(&old).map(|_| suffix)
                });
                let suffix = found.unwrap_or_else(|| {
                    panic!("{}: a duration with no old spelling", path.join("."))
                });
                let count = match suffix {
                    "_ms" => duration.as_millis() as u64,
                    "_seconds" => duration.as_secs(),
                    _ => duration.as_secs() / 86_400,
                };
                out.insert(
                    format!("{key}{suffix}"),
                    toml::Value::Integer(i64::try_from(count).unwrap_or(i64::MAX)),
                );
                written += 1;
            }
            other => {
                out.insert(key.clone(), other.clone());
            }
        }
        path.pop();
    }
    written
}

#[test]
fn every_old_key_still_loads_to_the_same_value() {
    let defaults: toml::Table =
        toml::from_str(&Config::default().to_toml().unwrap_or_default()).unwrap_or_default();
    let mut old = toml::Table::new();
    let written = old_spelling(&defaults, &mut Vec::new(), &mut old);
    // 53 keys in milliseconds, two in seconds, one in days; and the optional shutdown delay
    // (also in milliseconds), absent from the defaults
    assert_eq!(written, 56, "{old}");
    if let Some(toml::Value::Table(server)) = old.get_mut("server") {
        server.insert("shutdown_delay_ms".to_owned(), toml::Value::Integer(5_000));
    }
    let text = toml::to_string(&old).unwrap_or_default();
    let loaded = load_reporting(&text, &[]).unwrap_or_else(|err| panic!("{err}\n{text}"));
    assert_eq!(loaded.deprecations.len(), 57, "{:?}", loaded.deprecations);
    let mut expected = default_for_this_build();
    expected.server.shutdown_delay = Some(Duration::from_secs(5));
    assert_eq!(
        loaded.config.to_toml().unwrap_or_default(),
        expected.to_toml().unwrap_or_default()
    );
}

/// A file, an environment, and where the old and the new spelling come from.
type BothSet<'a> = (&'a str, &'a [(&'a str, &'a str)], [&'a str; 2]);

#[test]
fn an_old_and_a_new_key_both_set_are_refused_naming_both() {
    let cases: [BothSet<'_>; 4] = [
        (
            "[cache.pages]\nttl = \"5m\"\nttl_ms = 300000\n",
            &[],
            ["bff.toml", "bff.toml"],
        ),
        (
            "[cache.pages]\nttl = \"5m\"\n",
            &[("BFF__CACHE__PAGES__TTL_MS", "300000")],
            ["BFF__CACHE__PAGES__TTL_MS", "bff.toml"],
        ),
        (
            "[cache.pages]\nttl_ms = 300000\n",
            &[("BFF__CACHE__PAGES__TTL", "5m")],
            ["bff.toml", "BFF__CACHE__PAGES__TTL"],
        ),
        (
            "",
            &[
                ("BFF__CACHE__PAGES__TTL", "5m"),
                ("BFF__CACHE__PAGES__TTL_MS", "300000"),
            ],
            ["BFF__CACHE__PAGES__TTL_MS", "BFF__CACHE__PAGES__TTL"],
        ),
    ];
    // "key (from source)" -> source
    let source_of = |message: &str, key: &str| {
        let start = format!("{key} (from ");
        message
            .split_once(&start)
            .and_then(|(_, rest)| rest.split_once(')'))
            .map(|(source, _)| source.to_owned())
            .unwrap_or_else(|| panic!("{key} is not named: {message}"))
    };
    for (toml, env, [old_source, new_source]) in cases {
        let message = message_of(toml, env);
        assert!(message.contains("both set"), "{message}");
        assert!(
            source_of(&message, "cache.pages.ttl_ms").ends_with(old_source),
            "{message}"
        );
        assert!(
            source_of(&message, "cache.pages.ttl").ends_with(new_source),
            "{message}"
        );
    }
}

#[test]
fn a_bad_duration_is_refused_naming_the_key_and_where_it_came_from() {
    let from_file = message_of("[cache.pages]\nttl = \"5 parsecs\"\n", &[]);
    assert!(from_file.starts_with("cache.pages.ttl:"), "{from_file}");
    assert!(from_file.contains("5 parsecs"), "{from_file}");
    assert!(from_file.contains("bff.toml"), "{from_file}");
    let from_env = message_of("", &[("BFF__SERVER__REQUEST_TIMEOUT", "soon")]);
    assert!(
        from_env.starts_with("server.request_timeout:"),
        "{from_env}"
    );
    assert!(
        from_env.contains("BFF__SERVER__REQUEST_TIMEOUT"),
        "{from_env}"
    );
    let bare = message_of("[redis]\ncommand_timeout = 100\n", &[]);
    assert!(bare.starts_with("redis.command_timeout:"), "{bare}");
    assert!(bare.contains("no unit"), "{bare}");
    let old = message_of("", &[("BFF__SERVER__SHUTDOWN_GRACE_MS", "soon")]);
    assert!(old.starts_with("server.shutdown_grace_ms:"), "{old}");
    assert!(old.contains("BFF__SERVER__SHUTDOWN_GRACE_MS"), "{old}");
}
