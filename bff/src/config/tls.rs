//! TLS for every outgoing connection (upstreams, tiles, OTLP, Redis): rustls with the `ring`
//! crypto provider, one choice for the whole process, so it sits beside the configuration that
//! every layer reads. Why ring and not aws-lc-rs: README, "TLS provider".

/// Makes ring the process's rustls provider. Idempotent: every HTTP client builder calls it, and
/// only the first call installs (the others find a provider already there).
pub fn install_crypto_provider() {
    // Err only says a provider is already installed: the first call's, which is this one.
    let _ = rustls::crypto::ring::default_provider().install_default();
}
