//! `bff admin …`: the admin API from the command line, so an operator can use it through
//! `kubectl exec` in the distroless image (no shell, no curl). Each subcommand is one call of
//! the admin API; the answer is printed as pretty JSON on stdout, and a 4xx or 5xx answer
//! exits 1 with the problem's detail on stderr.
//!
//! The token is read from `BFF_ADMIN_TOKEN`, or a file (`--token-file`, else
//! `BFF_ADMIN_TOKEN_FILE`, as the pod mounts it): never from an argument, which `ps`, shell
//! history and `kubectl exec` audit logs would show.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Args, Subcommand, ValueEnum};
use serde_json::{Value, json};
use url::Url;

/// Where the admin listener is when neither `--admin-url` nor the configuration says.
pub const DEFAULT_ADMIN_URL: &str = "http://127.0.0.1:9090";

#[derive(Debug, Args)]
pub struct AdminArgs {
    /// The admin listener's URL. Default: the configuration's `admin.listen`
    /// (`BFF__ADMIN__LISTEN`), else http://127.0.0.1:9090.
    #[arg(long)]
    pub admin_url: Option<Url>,
    /// A file holding the admin token. Default: `BFF_ADMIN_TOKEN`, else the file
    /// `BFF_ADMIN_TOKEN_FILE` names. There is no option for the token itself.
    #[arg(long)]
    pub token_file: Option<PathBuf>,
    /// How long the call may take in all ("35s", "500ms"): the admin listener allows 30 s.
    #[arg(long, default_value = "35s", value_parser = humantime::parse_duration)]
    pub timeout: Duration,
    #[command(subcommand)]
    pub command: AdminCommand,
}

#[derive(Debug, Subcommand)]
pub enum AdminCommand {
    /// The replicas of the fleet, with build and config drift (`GET /admin/fleet`).
    Fleet,
    /// The effective configuration and where each value came from (`GET /admin/config`);
    /// with a subcommand, the live overrides of the cache policies.
    Config {
        #[command(subcommand)]
        action: Option<ConfigAction>,
    },
    /// Where a page or API URL is cached and why it missed (`GET /admin/cache/explain`).
    Explain {
        /// The URL, as a shopper's browser asks for it (`/products/summit%20lr`).
        url: String,
    },
    /// Purges by tag, by key, or everything (`POST /admin/cache/purge`).
    Purge {
        /// A tag to purge (repeatable), as `Surrogate-Key` spells it.
        #[arg(long = "tag", value_name = "TAG")]
        tags: Vec<String>,
        /// A cache key to purge (repeatable).
        #[arg(long = "key", value_name = "KEY")]
        keys: Vec<String>,
        /// Everything.
        #[arg(long, conflicts_with_all = ["tags", "keys"])]
        all: bool,
        /// Soft (serve stale while one refresh runs) or hard (remove); the server's default
        /// when not given.
        #[arg(long, value_enum)]
        mode: Option<PurgeMode>,
    },
    /// The audit log of admin actions, newest first (`GET /admin/audit`).
    Audit {
        /// How many records.
        #[arg(long)]
        limit: Option<usize>,
    },
    /// The edge cache's figures (`GET /admin/cache`).
    Cache,
    /// Each upstream's circuit breaker (`GET /admin/upstreams`).
    Upstreams,
    /// Re-reads the configuration file (`POST /admin/config/reload`).
    Reload,
    /// The previous release's asset window (`GET /admin/web/rollout`); `close` closes it.
    Rollout {
        #[command(subcommand)]
        action: Option<RolloutAction>,
    },
}

/// The live overrides of the `[cache.*]` policies (`/admin/config/overrides`).
#[derive(Debug, Subcommand)]
pub enum ConfigAction {
    /// The fleet's override version, the pending canary, the history and the drift.
    Overrides,
    /// Overrides policy values: `cache.product.ttl=30s cache.tiles.max_entry_bytes=524288`.
    Set {
        /// `KEY=VALUE`, as the TOML file spells them (a duration with its unit, or bytes).
        #[arg(value_name = "KEY=VALUE")]
        pairs: Vec<String>,
        /// A key to take off the overrides (repeatable): the file's value applies again.
        #[arg(long = "unset", value_name = "KEY")]
        unset: Vec<String>,
        /// The keys set end after this long ("1h", "30m").
        #[arg(long, value_name = "DURATION")]
        expires_in: Option<String>,
        /// The replica (id or pod, see `bff admin fleet`) to run it on first; `promote` then
        /// sends it to the fleet.
        #[arg(long, value_name = "REPLICA")]
        canary: Option<String>,
        /// Shows the diff and the routes affected; changes nothing.
        #[arg(long)]
        dry_run: bool,
    },
    /// What changed from VERSION to the fleet's current version.
    Diff { version: u64 },
    /// Back to VERSION (default: the previous one), as a new version.
    Rollback { version: Option<u64> },
    /// The pending canary to the whole fleet.
    Promote,
    /// The fleet's overrides as a TOML patch to commit into the file.
    Export,
}

#[derive(Debug, Subcommand)]
pub enum RolloutAction {
    /// Closes the window now (`POST /admin/web/rollout/close`).
    Close,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum PurgeMode {
    Soft,
    Hard,
}

/// One call of the admin API.
#[derive(Debug, PartialEq)]
pub struct Call {
    pub method: reqwest::Method,
    /// Path and query, percent-encoded.
    pub target: String,
    pub body: Option<Value>,
}

impl AdminCommand {
    /// The call this command makes; `Err` for a command that asks for nothing.
    pub fn call(&self) -> Result<Call, String> {
        let get = |target: String| Call {
            method: reqwest::Method::GET,
            target,
            body: None,
        };
        let post = |target: &str, body: Option<Value>| Call {
            method: reqwest::Method::POST,
            target: target.to_owned(),
            body,
        };
        Ok(match self {
            Self::Fleet => get("/admin/fleet".to_owned()),
            Self::Config { action: None } => get("/admin/config".to_owned()),
            Self::Config {
                action: Some(action),
            } => action.call()?,
            Self::Explain { url } => get(format!("/admin/cache/explain?{}", form(&[("url", url)]))),
            Self::Purge {
                tags,
                keys,
                all,
                mode,
            } => {
                if !*all && tags.is_empty() && keys.is_empty() {
                    return Err("purge: give --tag, --key or --all".to_owned());
                }
                let mut body = serde_json::Map::new();
                if *all {
                    body.insert("all".to_owned(), json!(true));
                }
                if !tags.is_empty() {
                    body.insert("tags".to_owned(), json!(tags));
                }
                if !keys.is_empty() {
                    body.insert("keys".to_owned(), json!(keys));
                }
                if let Some(mode) = mode {
                    let mode = match mode {
                        PurgeMode::Soft => "soft",
                        PurgeMode::Hard => "hard",
                    };
                    body.insert("mode".to_owned(), json!(mode));
                }
                post("/admin/cache/purge", Some(Value::Object(body)))
            }
            Self::Audit { limit } => get(match limit {
                Some(limit) => format!("/admin/audit?{}", form(&[("limit", &limit.to_string())])),
                None => "/admin/audit".to_owned(),
            }),
            Self::Cache => get("/admin/cache".to_owned()),
            Self::Upstreams => get("/admin/upstreams".to_owned()),
            Self::Reload => post("/admin/config/reload", None),
            Self::Rollout { action: None } => get("/admin/web/rollout".to_owned()),
            Self::Rollout {
                action: Some(RolloutAction::Close),
            } => post("/admin/web/rollout/close", None),
        })
    }
}

impl ConfigAction {
    fn call(&self) -> Result<Call, String> {
        let call = |method, target: String, body| Call {
            method,
            target,
            body,
        };
        let (get, post) = (reqwest::Method::GET, reqwest::Method::POST);
        Ok(match self {
            Self::Overrides => call(get, "/admin/config/overrides".to_owned(), None),
            Self::Set {
                pairs,
                unset,
                expires_in,
                canary,
                dry_run,
            } => {
                let mut set = serde_json::Map::new();
                for pair in pairs {
                    let (key, value) = pair
                        .split_once('=')
                        .ok_or_else(|| format!("config set: {pair:?} is not KEY=VALUE"))?;
                    // A whole number is a byte count; anything else a duration's text (the
                    // server names the key when it is neither).
                    let value = value
                        .trim()
                        .parse::<u64>()
                        .map_or_else(|_| json!(value.trim()), |bytes| json!(bytes));
                    set.insert(key.trim().to_owned(), value);
                }
                if set.is_empty() && unset.is_empty() {
                    return Err("config set: give KEY=VALUE or --unset KEY".to_owned());
                }
                let mut body = json!({"set": set, "unset": unset, "dryRun": dry_run});
                if let Some(expires_in) = expires_in {
                    body["expiresIn"] = json!(expires_in);
                }
                if let Some(canary) = canary {
                    body["canary"] = json!(canary);
                }
                call(post, "/admin/config/overrides".to_owned(), Some(body))
            }
            Self::Diff { version } => call(
                get,
                format!(
                    "/admin/config/overrides/diff?{}",
                    form(&[("version", &version.to_string())])
                ),
                None,
            ),
            Self::Rollback { version } => call(
                post,
                "/admin/config/overrides/rollback".to_owned(),
                Some(version.map_or_else(|| json!({}), |to| json!({ "to": to }))),
            ),
            Self::Promote => call(post, "/admin/config/overrides/promote".to_owned(), None),
            Self::Export => call(get, "/admin/config/overrides/export".to_owned(), None),
        })
    }
}

/// `pairs` as a query string (`application/x-www-form-urlencoded`: a URL's `?`, `&`, `/` and
/// spaces escaped).
fn form(pairs: &[(&str, &str)]) -> String {
    url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(pairs)
        .finish()
}

/// The admin listener to call: `--admin-url`, else where `admin_listen` (the configuration's,
/// when it loads) is reached from this host, else [`DEFAULT_ADMIN_URL`].
pub fn admin_url(args: &AdminArgs, admin_listen: Option<SocketAddr>) -> Result<Url, String> {
    if let Some(url) = &args.admin_url {
        return Ok(url.clone());
    }
    let text = admin_listen.map_or_else(
        || DEFAULT_ADMIN_URL.to_owned(),
        |listen| {
            format!(
                "http://{}",
                crate::observe::healthcheck::local_target(listen)
            )
        },
    );
    Url::parse(&text).map_err(|err| format!("admin URL {text}: {err}"))
}

/// The token: `--token-file`, else `BFF_ADMIN_TOKEN`, else `BFF_ADMIN_TOKEN_FILE`.
fn token(args: &AdminArgs) -> Result<String, String> {
    let read = |path: &std::path::Path, from: &str| {
        std::fs::read_to_string(path)
            .map(|text| text.trim().to_owned())
            .map_err(|err| format!("{from} {}: {err}", path.display()))
    };
    let token = if let Some(path) = &args.token_file {
        read(path, "--token-file")?
    } else if let Some(token) = std::env::var("BFF_ADMIN_TOKEN")
        .ok()
        .filter(|t| !t.is_empty())
    {
        token
    } else if let Some(path) = std::env::var_os("BFF_ADMIN_TOKEN_FILE") {
        read(std::path::Path::new(&path), "BFF_ADMIN_TOKEN_FILE")?
    } else {
        return Err(
            "no admin token: set BFF_ADMIN_TOKEN or BFF_ADMIN_TOKEN_FILE, or give --token-file"
                .to_owned(),
        );
    };
    if token.is_empty() {
        return Err("the admin token is empty".to_owned());
    }
    Ok(token)
}

/// Runs `bff admin …`: 0 for a 2xx answer, 1 for a 4xx or 5xx (the problem's detail on
/// stderr), 2 when no call could be made (no token, no answer).
pub fn run(args: &AdminArgs, admin_listen: Option<SocketAddr>) -> ExitCode {
    match call(args, admin_listen) {
        Ok(Answer { status, body }) if status.is_success() => {
            println!("{}", pretty(&body));
            ExitCode::SUCCESS
        }
        Ok(Answer { status, body }) => {
            eprintln!("bff admin: {status}: {}", problem_detail(&body));
            ExitCode::from(1)
        }
        Err(message) => {
            eprintln!("bff admin: {message}");
            ExitCode::from(2)
        }
    }
}

struct Answer {
    status: reqwest::StatusCode,
    body: String,
}

fn call(args: &AdminArgs, admin_listen: Option<SocketAddr>) -> Result<Answer, String> {
    let call = args.command.call()?;
    let base = admin_url(args, admin_listen)?;
    let url = base
        .join(&call.target)
        .map_err(|err| format!("{base}{}: {err}", call.target))?;
    let token = token(args)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|err| format!("cannot start the async runtime: {err}"))?;
    crate::config::tls::install_crypto_provider();
    let client = reqwest::Client::builder()
        .timeout(args.timeout)
        .connect_timeout(args.timeout)
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .map_err(|err| format!("cannot build the HTTP client: {err}"))?;
    runtime.block_on(async {
        let mut request = client.request(call.method, url.clone()).bearer_auth(token);
        if let Some(body) = &call.body {
            request = request.json(body);
        }
        let response = request
            .send()
            .await
            .map_err(|err| format!("no answer from {url}: {err}"))?;
        let status = response.status();
        let body = response
            .text()
            .await
            .map_err(|err| format!("the answer from {url} was cut short: {err}"))?;
        Ok(Answer { status, body })
    })
}

/// JSON pretty-printed; any other text as it came.
fn pretty(body: &str) -> String {
    serde_json::from_str::<Value>(body)
        .ok()
        .and_then(|value| serde_json::to_string_pretty(&value).ok())
        .unwrap_or_else(|| body.to_owned())
}

/// A problem's `detail` (and its code), else the body's text.
fn problem_detail(body: &str) -> String {
    let problem = serde_json::from_str::<Value>(body).unwrap_or(Value::Null);
    match (problem["detail"].as_str(), problem["code"].as_str()) {
        (Some(detail), Some(code)) => format!("{detail} ({code})"),
        (Some(detail), None) => detail.to_owned(),
        _ => body.trim().to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_command_is_its_call_and_explain_s_url_is_encoded() {
        let explain = AdminCommand::Explain {
            url: "/api/search?q=red boots&page=2".to_owned(),
        };
        assert_eq!(
            explain.call().map(|call| call.target),
            Ok("/admin/cache/explain?url=%2Fapi%2Fsearch%3Fq%3Dred+boots%26page%3D2".to_owned())
        );
        let purge = AdminCommand::Purge {
            tags: vec!["page:home".to_owned()],
            keys: Vec::new(),
            all: false,
            mode: Some(PurgeMode::Soft),
        };
        assert_eq!(
            purge.call(),
            Ok(Call {
                method: reqwest::Method::POST,
                target: "/admin/cache/purge".to_owned(),
                body: Some(json!({"tags": ["page:home"], "mode": "soft"})),
            })
        );
        let nothing = AdminCommand::Purge {
            tags: Vec::new(),
            keys: Vec::new(),
            all: false,
            mode: None,
        };
        assert!(nothing.call().is_err());
        assert_eq!(
            AdminCommand::Audit { limit: Some(5) }
                .call()
                .map(|call| call.target),
            Ok("/admin/audit?limit=5".to_owned())
        );
    }

    #[test]
    fn config_subcommands_are_the_override_calls() {
        let set = AdminCommand::Config {
            action: Some(ConfigAction::Set {
                pairs: vec![
                    "cache.product.ttl=30s".to_owned(),
                    "cache.tiles.max_entry_bytes=4096".to_owned(),
                ],
                unset: vec!["cache.pages.ttl".to_owned()],
                expires_in: Some("1h".to_owned()),
                canary: Some("pod-a".to_owned()),
                dry_run: true,
            }),
        };
        assert_eq!(
            set.call(),
            Ok(Call {
                method: reqwest::Method::POST,
                target: "/admin/config/overrides".to_owned(),
                body: Some(json!({
                    "set": {"cache.product.ttl": "30s", "cache.tiles.max_entry_bytes": 4096},
                    "unset": ["cache.pages.ttl"],
                    "dryRun": true,
                    "expiresIn": "1h",
                    "canary": "pod-a",
                })),
            })
        );
        let config = |action| AdminCommand::Config { action };
        assert_eq!(
            config(None).call().map(|call| call.target),
            Ok("/admin/config".to_owned())
        );
        assert_eq!(
            config(Some(ConfigAction::Diff { version: 2 }))
                .call()
                .map(|call| call.target),
            Ok("/admin/config/overrides/diff?version=2".to_owned())
        );
        assert_eq!(
            config(Some(ConfigAction::Rollback { version: None }))
                .call()
                .map(|call| call.body),
            Ok(Some(json!({})))
        );
        let bad = config(Some(ConfigAction::Set {
            pairs: vec!["cache.product.ttl".to_owned()],
            unset: Vec::new(),
            expires_in: None,
            canary: None,
            dry_run: false,
        }));
        assert!(bad.call().is_err());
    }

    #[test]
    fn a_problem_s_detail_is_what_stderr_shows() {
        assert_eq!(
            problem_detail(r#"{"detail": "The token lacks purge.", "code": "insufficient_scope"}"#),
            "The token lacks purge. (insufficient_scope)"
        );
        assert_eq!(problem_detail("Bad Gateway\n"), "Bad Gateway");
    }
}
