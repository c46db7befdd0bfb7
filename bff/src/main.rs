//! `bff`: serve the storefront, or check the configuration.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::LazyLock;
use std::time::Duration;

use bff::config::{Config, Secrets};
use clap::{Parser, Subcommand};

/// `bff --version`: the package version and the commit it was built from.
static VERSION: LazyLock<String> = LazyLock::new(|| {
    format!(
        "{} (commit {})",
        env!("CARGO_PKG_VERSION"),
        bff::observe::metrics::BUILD_COMMIT
    )
});

#[derive(Debug, Parser)]
#[command(about = "The storefront's backend-for-frontend", version = VERSION.as_str())]
struct Args {
    /// The configuration file; `BFF__SECTION__KEY` environment variables override it.
    #[arg(
        long,
        env = "BFF_CONFIG",
        default_value = "config/bff.toml",
        global = true
    )]
    config: PathBuf,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Serve the storefront (the default).
    Serve,
    /// Validate the configuration and print the effective values (secrets redacted).
    CheckConfig {
        /// Also connect to what the configuration names (Redis), and fail naming the key
        /// when it cannot (certificate not trusted, authentication failed, ...).
        #[arg(long)]
        connect: bool,
    },
    /// Probe this instance's readiness (`GET /readyz` on the admin listener): exit 0 when it
    /// answers 200 within the timeout, else 1. The image's HEALTHCHECK (no shell in the image).
    Healthcheck {
        /// How long the probe may take in all, as every duration of the configuration is written
        /// ("2s", "500ms").
        #[arg(long, default_value = "2s", value_parser = humantime::parse_duration)]
        timeout: Duration,
    },
    /// Call the admin API of a running instance (`bff admin cache`, `bff admin purge --tag
    /// page:home`): the token from `BFF_ADMIN_TOKEN` or a file, never an argument.
    Admin(Box<bff::admin::cli::AdminArgs>),
}

/// What start-up warns about: deprecated configuration keys, and what start-up's rules on
/// secrets allow with a warning (see `bff::edge::start_up`).
struct Warnings {
    deprecations: Vec<String>,
    secrets: Vec<String>,
}

/// The configuration and secrets, refused when start-up's rules on secrets say so; the
/// warnings to give.
fn load(path: &std::path::Path) -> Result<(Config, Secrets, Warnings), String> {
    let loaded =
        Config::load_reporting(path).map_err(|err| format!("invalid configuration:\n{err}"))?;
    let config = loaded.config;
    let secrets = Secrets::from_env(&config).map_err(|err| format!("invalid secrets:\n{err}"))?;
    let secret_warnings = bff::edge::start_up::check_secrets(&config, &secrets)
        .map_err(|err| format!("invalid secrets:\n{err}"))?;
    let warnings = Warnings {
        deprecations: loaded.deprecations,
        secrets: secret_warnings,
    };
    Ok((config, secrets, warnings))
}

fn main() -> ExitCode {
    let args = Args::parse();
    if let Some(Command::Healthcheck { timeout }) = args.command {
        return healthcheck(&args.config, timeout);
    }
    if let Some(Command::Admin(admin)) = &args.command {
        return bff::admin::cli::run(admin, admin_listen(&args.config));
    }
    let (config, secrets, warnings) = match load(&args.config) {
        Ok(loaded) => loaded,
        Err(message) => {
            eprintln!("{message}");
            return ExitCode::from(2);
        }
    };
    match args.command.unwrap_or(Command::Serve) {
        Command::CheckConfig { connect } => {
            check_config(&args.config, &config, &secrets, &warnings, connect)
        }
        Command::Serve => serve(config, secrets, &warnings, args.config),
        Command::Healthcheck { timeout } => healthcheck(&args.config, timeout),
        Command::Admin(admin) => bff::admin::cli::run(&admin, admin_listen(&args.config)),
    }
}

/// Where `bff admin` finds the admin listener: the configuration's `admin.listen` (with its
/// `BFF__ADMIN__LISTEN` override), or that variable alone when the file does not load (the
/// CLI needs no valid configuration or secrets of its own).
fn admin_listen(path: &std::path::Path) -> Option<std::net::SocketAddr> {
    Config::load(path)
        .ok()
        .map(|config| config.admin.listen)
        .or_else(|| std::env::var("BFF__ADMIN__LISTEN").ok()?.parse().ok())
}

/// `bff check-config`: what the binary would refuse at start-up (the configuration, secrets, and
/// the files it names), and with `connect`, whether Redis answers as configured.
fn check_config(
    path: &std::path::Path,
    config: &Config,
    secrets: &Secrets,
    warnings: &Warnings,
    connect: bool,
) -> ExitCode {
    let text = match config.to_toml() {
        Ok(text) => text,
        Err(err) => {
            eprintln!("{err}");
            return ExitCode::FAILURE;
        }
    };
    if config.redis.enabled() {
        use bff::coordination::replicas::endpoint::Endpoint;
        let mut endpoints = vec![Endpoint::new(
            "redis.url",
            config.redis.url.trim(),
            &config.redis,
        )];
        if config.redis.coordination.is_separate() {
            endpoints.push(Endpoint::new(
                "redis.coordination.url",
                config.redis.coordination.url.trim(),
                &config.redis,
            ));
        }
        if let Some(Err(err)) = endpoints.into_iter().find(Result::is_err) {
            eprintln!("invalid configuration:\n{err}");
            return ExitCode::from(2);
        }
    }
    for warning in warnings.deprecations.iter().chain(&warnings.secrets) {
        eprintln!("warning: {warning}");
    }
    println!(
        "# effective configuration from {}\n{text}\n{secrets}",
        path.display()
    );
    if connect {
        return check_connections(config, secrets);
    }
    ExitCode::SUCCESS
}

/// `check-config --connect`: connects to Redis as the server would, once; exit 1 naming the
/// key and the cause when it cannot.
fn check_connections(config: &Config, secrets: &Secrets) -> ExitCode {
    if !config.redis.enabled() {
        println!("# redis: not configured");
        return ExitCode::SUCCESS;
    }
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(runtime) => runtime,
        Err(err) => {
            eprintln!("cannot start the async runtime: {err}");
            return ExitCode::FAILURE;
        }
    };
    runtime.block_on(async {
        let metrics = std::sync::Arc::new(bff::observe::metrics::Metrics::new());
        let tiers = match bff::coordination::replicas::Tiers::from_config(
            &config.redis,
            Some(&secrets.redis),
            metrics,
        ) {
            Ok(Some(tiers)) => tiers,
            Ok(None) => return ExitCode::SUCCESS,
            Err(err) => {
                eprintln!("{err}");
                return ExitCode::from(2);
            }
        };
        let mut code = ExitCode::SUCCESS;
        for redis in tiers.distinct() {
            let tiers = redis.tiers().join(", ");
            // With Sentinel, the URL's host is a placeholder: the sentinels name the server.
            redis.follow_primary().await;
            match redis.probe().await {
                Ok(()) => println!("# redis: connected ({tiers})"),
                Err(cause) => {
                    eprintln!("cannot connect to redis ({tiers}): {cause}");
                    code = ExitCode::FAILURE;
                }
            }
        }
        code
    })
}

/// Only the configuration (for `admin.listen`): secrets are the server's business, not the probe's.
fn healthcheck(path: &std::path::Path, timeout: Duration) -> ExitCode {
    let config = match Config::load(path) {
        Ok(config) => config,
        Err(err) => {
            eprintln!("healthcheck: invalid configuration:\n{err}");
            return ExitCode::FAILURE;
        }
    };
    let target = bff::observe::healthcheck::local_target(config.admin.listen);
    match bff::observe::healthcheck::probe(target, timeout) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("healthcheck: {err}");
            ExitCode::FAILURE
        }
    }
}

fn serve(
    mut config: Config,
    secrets: Secrets,
    warnings: &Warnings,
    config_path: PathBuf,
) -> ExitCode {
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(runtime) => runtime,
        Err(err) => {
            eprintln!("cannot start the async runtime: {err}");
            return ExitCode::FAILURE;
        }
    };
    runtime.block_on(async move {
        // The OTEL_* variables apply when the configuration names no endpoint; their sampling
        // ratio then becomes the configuration's, which the web app and the hit path share.
        let trace = bff::observe::telemetry::TraceSettings::resolve(&config.telemetry, |name| {
            std::env::var(name).ok()
        });
        config.telemetry.sample_ratio = trace.sample_ratio;
        let _telemetry = match bff::observe::telemetry::init(&config, &trace) {
            Ok(guard) => guard,
            Err(err) => {
                eprintln!("cannot set up telemetry: {err}");
                return ExitCode::FAILURE;
            }
        };
        for warning in &warnings.deprecations {
            tracing::warn!(%warning, "deprecated configuration key");
        }
        for warning in &warnings.secrets {
            tracing::warn!(%warning, "secrets");
        }
        let public_origin = config.server.public_origin.clone();
        let running = match bff::start(config, secrets, Some(config_path)).await {
            Ok(running) => running,
            Err(err) => {
                tracing::error!(%err, "cannot start");
                eprintln!("cannot start: {err}");
                return ExitCode::FAILURE;
            }
        };
        tracing::info!(main = %running.main_addr, admin = %running.admin_addr, "listening");
        println!(
            "\n  Storefront: {public_origin}\n  Admin:      http://{}/metrics\n",
            running.admin_addr
        );
        reload_on_hangup(running.state.clone());
        shutdown_signal().await;
        tracing::info!("shutdown requested; failing readiness, then draining in-flight requests");
        running.terminate();
        match running.wait().await {
            Ok(()) => ExitCode::SUCCESS,
            Err(err) => {
                tracing::error!(%err, "server stopped with an error");
                ExitCode::FAILURE
            }
        }
    })
}

/// SIGHUP re-reads the configuration (the cache policies apply at once).
fn reload_on_hangup(state: bff::SharedState) {
    #[cfg(unix)]
    tokio::spawn(async move {
        let Ok(mut hangups) =
            tokio::signal::unix::signal(tokio::signal::unix::SignalKind::hangup())
        else {
            tracing::error!("cannot listen for SIGHUP; reload through the admin API instead");
            return;
        };
        while hangups.recv().await.is_some() {
            // The outcome is logged by `reload`.
            let _ = state.reload();
        }
    });
    #[cfg(not(unix))]
    let _ = state;
}

/// SIGINT (Ctrl-C) or SIGTERM (Kubernetes).
async fn shutdown_signal() {
    let interrupt = async {
        if let Err(err) = tokio::signal::ctrl_c().await {
            tracing::error!(%err, "cannot listen for Ctrl-C");
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(err) => {
                tracing::error!(%err, "cannot listen for SIGTERM");
                std::future::pending::<()>().await;
            }
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = interrupt => {},
        () = terminate => {},
    }
}
