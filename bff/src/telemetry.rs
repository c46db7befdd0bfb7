//! Logs and traces: `tracing` everywhere; JSON logs in production and readable ones in
//! development; OpenTelemetry traces over OTLP/HTTP when an endpoint is configured.

use std::io::IsTerminal;

use opentelemetry::trace::TracerProvider as _;
use opentelemetry_otlp::WithExportConfig;
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::propagation::TraceContextPropagator;
use opentelemetry_sdk::trace::{Sampler, SdkTracerProvider};
use tracing_appender::non_blocking::WorkerGuard;
use tracing_subscriber::EnvFilter;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;

use crate::config::{Config, LogFormat};

/// Flushes and stops the trace exporter and the log writer when dropped, so the last spans and
/// lines are not lost on exit.
#[derive(Debug)]
pub struct TelemetryGuard {
    provider: Option<SdkTracerProvider>,
    _log_writer: WorkerGuard,
}

impl Drop for TelemetryGuard {
    fn drop(&mut self) {
        if let Some(provider) = self.provider.take()
            && let Err(err) = provider.shutdown()
        {
            eprintln!("trace exporter did not shut down cleanly: {err}");
        }
    }
}

/// Installs the global subscriber. Call once, from `main`.
pub fn init(config: &Config) -> Result<TelemetryGuard, Box<dyn std::error::Error>> {
    let filter =
        EnvFilter::try_from_default_env().or_else(|_| EnvFilter::try_new(&config.log.filter))?;
    let json = match config.log.format {
        LogFormat::Json => true,
        LogFormat::Pretty => false,
        LogFormat::Auto => config.is_production(),
    };
    let provider = otlp_provider(config)?;
    let otel_layer = provider
        .as_ref()
        .map(|provider| tracing_opentelemetry::layer().with_tracer(provider.tracer("bff")));
    let registry = tracing_subscriber::registry().with(filter).with(otel_layer);
    // Lines are written by a worker thread, so a request never waits on stdout (when its
    // buffer of 128k lines is full, lines are dropped rather than requests slowed); colours
    // only when a person is reading a terminal (never escape codes in a file or a pipe).
    let (writer, log_writer) = tracing_appender::non_blocking(std::io::stdout());
    let ansi = std::io::stdout().is_terminal();
    if json {
        registry
            .with(
                tracing_subscriber::fmt::layer()
                    .with_writer(writer)
                    .json()
                    .flatten_event(true)
                    .with_current_span(true)
                    .with_span_list(false),
            )
            .try_init()?;
    } else {
        registry
            .with(
                tracing_subscriber::fmt::layer()
                    .with_writer(writer)
                    .with_ansi(ansi),
            )
            .try_init()?;
    }
    Ok(TelemetryGuard {
        provider,
        _log_writer: log_writer,
    })
}

fn otlp_provider(config: &Config) -> Result<Option<SdkTracerProvider>, Box<dyn std::error::Error>> {
    let endpoint = config.telemetry.otlp_endpoint.trim();
    if endpoint.is_empty() {
        return Ok(None);
    }
    let exporter = opentelemetry_otlp::SpanExporter::builder()
        .with_http()
        .with_endpoint(endpoint)
        .build()?;
    let provider = SdkTracerProvider::builder()
        .with_batch_exporter(exporter)
        .with_sampler(Sampler::ParentBased(Box::new(Sampler::TraceIdRatioBased(
            config.telemetry.sample_ratio,
        ))))
        .with_resource(
            Resource::builder()
                .with_service_name(config.telemetry.service_name.clone())
                .build(),
        )
        .build();
    opentelemetry::global::set_text_map_propagator(TraceContextPropagator::new());
    opentelemetry::global::set_tracer_provider(provider.clone());
    Ok(Some(provider))
}
