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
    let state = SandboxState::new(SandboxOptions {
        data_dir: args.data_dir,
        public_url,
    })?;
    tracing::info!(%addr, "sandbox listening");
    sandbox::serve(listener, state, async {
        let _ = tokio::signal::ctrl_c().await;
    })
    .await?;
    Ok(())
}
