//! `sandbox`: runs the upstream sandbox on its own.

use std::path::PathBuf;

use clap::Parser;
use sandbox::{SandboxOptions, SandboxState, default_public_url};
use tokio::net::TcpListener;

#[derive(Debug, Parser)]
#[command(about = "Sandbox implementation of the storefront's upstream services")]
struct Args {
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1:8081")]
    listen: String,
    /// Directory for the sandbox's persistent state.
    #[arg(long, default_value = "data")]
    data_dir: PathBuf,
    /// Origin browsers use to reach the sandbox (defaults to http://<listen address>).
    #[arg(long)]
    public_url: Option<String>,
    /// The storefront's origin, for links in e-mails.
    #[arg(long, default_value = "http://localhost:8080")]
    storefront_url: String,
    /// Wipe the database and reseed the demo data.
    #[arg(long)]
    reset: bool,
    /// Lifetime of issued access tokens, in seconds.
    #[arg(long, default_value_t = 900)]
    access_token_ttl: i64,
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into()),
        )
        .init();
    let args = Args::parse();
    let listener = TcpListener::bind(&args.listen).await?;
    let addr = listener.local_addr()?;
    let public_url = args.public_url.unwrap_or_else(|| default_public_url(addr));
    let started = std::time::Instant::now();
    let state = SandboxState::new(SandboxOptions {
        reset: args.reset,
        storefront_url: args.storefront_url,
        access_token_ttl_seconds: args.access_token_ttl,
        ..SandboxOptions::new(args.data_dir, public_url)
    })?;
    tracing::info!(elapsed_ms = started.elapsed().as_millis(), "database ready");
    tracing::info!(%addr, "sandbox listening");
    sandbox::serve(listener, state, async {
        let _ = tokio::signal::ctrl_c().await;
    })
    .await?;
    Ok(())
}
