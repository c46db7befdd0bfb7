//! Logs and traces: `tracing` everywhere; JSON logs in production and readable ones in
//! development; OpenTelemetry traces over OTLP/HTTP when an endpoint is configured, or, with
//! none configured, named by the standard `OTEL_*` variables (`otel_env`).
//!
//! A tracer provider is always installed, exporting only when an endpoint is set: so a request
//! always has a trace id (joined from the browser's `traceparent` when it sent one), which its
//! log lines and its `traceresponse` header carry even when no span is exported.

mod otel_env;

pub use otel_env::{TraceExport, TraceSettings};

use std::io::IsTerminal;
use std::sync::OnceLock;

use opentelemetry::trace::{Link, SpanKind, TraceContextExt, TraceId, TracerProvider as _};
use opentelemetry::{Context, KeyValue};
use opentelemetry_otlp::WithExportConfig;
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::propagation::TraceContextPropagator;
use opentelemetry_sdk::trace::{Sampler, SamplingResult, SdkTracerProvider, ShouldSample};
use serde_json::{Map, Value};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Dispatch, Event, Subscriber};
use tracing_appender::non_blocking::WorkerGuard;
use tracing_opentelemetry::OpenTelemetrySpanExt;
use tracing_subscriber::EnvFilter;
use tracing_subscriber::fmt::MakeWriter;
use tracing_subscriber::fmt::format::Writer;
use tracing_subscriber::fmt::time::{FormatTime, SystemTime};
use tracing_subscriber::layer::{Context as LayerContext, Layer, SubscriberExt};
use tracing_subscriber::registry::LookupSpan;

use crate::config::{Config, LogFormat};

/// The span attribute by which the hit path tells the sampler it already sampled a root span
/// (see [`hit_path_sampled`]), so the ratio is not applied twice.
pub const PRESAMPLED: &str = "bff.presampled";

/// Set by [`init`] when spans are exported: the hit path makes spans only then.
static EXPORT_RATIO: OnceLock<f64> = OnceLock::new();

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

/// Installs the global subscriber, tracer provider and propagator. Call once, from `main`, with
/// the settings resolved from `config` and the process environment ([`TraceSettings::resolve`];
/// `config.telemetry.sample_ratio` already set to theirs, so the app shares the ratio).
pub fn init(
    config: &Config,
    trace: &TraceSettings,
) -> Result<TelemetryGuard, Box<dyn std::error::Error>> {
    let filter =
        EnvFilter::try_from_default_env().or_else(|_| EnvFilter::try_new(&config.log.filter))?;
    let json = match config.log.format {
        LogFormat::Json => true,
        LogFormat::Pretty => false,
        LogFormat::Auto => config.is_production(),
    };
    let provider = tracer_provider(trace)?;
    install_globals(&provider, trace);
    // Lines are written by a worker thread, so a request never waits on stdout (when its
    // buffer of 128k lines is full, lines are dropped rather than requests slowed); colours
    // only when a person is reading a terminal (never escape codes in a file or a pipe).
    let (writer, log_writer) = tracing_appender::non_blocking(std::io::stdout());
    let ansi = std::io::stdout().is_terminal();
    tracing::dispatcher::set_global_default(subscriber(filter, &provider, writer, json, ansi))?;
    match &trace.export {
        TraceExport::Off => tracing::info!("traces: not exported"),
        // Not the URL itself: an endpoint may carry a credential.
        TraceExport::Configured(_) => tracing::info!("traces: exported to telemetry.otlp_endpoint"),
        TraceExport::Environment(variable) => {
            tracing::info!(
                variable,
                "traces: exported to the endpoint the environment names"
            );
        }
    }
    for warning in &trace.warnings {
        tracing::warn!(%warning, "telemetry environment");
    }
    Ok(TelemetryGuard {
        provider: Some(provider),
        _log_writer: log_writer,
    })
}

/// The global propagator (W3C trace context) and tracer provider; when spans are exported, the
/// hit path's sampling ratio (once per process).
pub fn install_globals(provider: &SdkTracerProvider, trace: &TraceSettings) {
    opentelemetry::global::set_text_map_propagator(TraceContextPropagator::new());
    opentelemetry::global::set_tracer_provider(provider.clone());
    if trace.export != TraceExport::Off {
        let _ = EXPORT_RATIO.set(trace.sample_ratio);
    }
}

/// The subscriber `init` installs: `filter`, the OpenTelemetry layer over `provider`, and log
/// lines to `writer` (JSON with trace, span and request ids, or readable). Public so tests run
/// the production pipeline with a writer of their own. A `Dispatch` built from the concrete
/// subscriber (not a boxed one, which would not pass the dispatch on), so the JSON layer can
/// ask the OpenTelemetry layer for the ids.
pub fn subscriber<W>(
    filter: EnvFilter,
    provider: &SdkTracerProvider,
    writer: W,
    json: bool,
    ansi: bool,
) -> Dispatch
where
    W: for<'w> MakeWriter<'w> + Send + Sync + 'static,
{
    let registry = tracing_subscriber::registry()
        .with(filter)
        .with(tracing_opentelemetry::layer().with_tracer(provider.tracer("bff")));
    if json {
        Dispatch::new(registry.with(JsonLines::new(writer)))
    } else {
        Dispatch::new(
            registry.with(
                tracing_subscriber::fmt::layer()
                    .with_writer(writer)
                    .with_ansi(ansi),
            ),
        )
    }
}

/// The tracer provider: parent-based sampling at the settings' ratio, a batch exporter over
/// OTLP/HTTP when they export (none otherwise: ids, but nothing exported). The resource is the
/// SDK's (its detectors read `OTEL_RESOURCE_ATTRIBUTES` and `OTEL_SERVICE_NAME`), with the
/// configured service name unless the environment names the service.
pub fn tracer_provider(
    trace: &TraceSettings,
) -> Result<SdkTracerProvider, opentelemetry_otlp::ExporterBuildError> {
    // The OTLP exporter's HTTP client needs the process's TLS provider (tls.rs).
    crate::config::tls::install_crypto_provider();
    let mut resource = Resource::builder();
    if let Some(service_name) = &trace.service_name {
        resource = resource.with_service_name(service_name.clone());
    }
    let mut builder = SdkTracerProvider::builder()
        .with_sampler(sampler(trace.sample_ratio))
        .with_resource(resource.build());
    let exporter = opentelemetry_otlp::SpanExporter::builder().with_http();
    let exporter = match &trace.export {
        TraceExport::Off => None,
        TraceExport::Configured(endpoint) => Some(exporter.with_endpoint(endpoint).build()?),
        // No endpoint given: the exporter resolves it from the variable, as the spec says.
        TraceExport::Environment(_) => Some(exporter.build()?),
    };
    if let Some(exporter) = exporter {
        builder = builder.with_batch_exporter(exporter);
    }
    Ok(builder.build())
}

/// Parent-based: a request that arrives with a sampled `traceparent` is sampled, one with an
/// unsampled one is not; a root is sampled at `ratio` (by trace id), or always when the hit path
/// already drew it.
pub fn sampler(ratio: f64) -> Sampler {
    Sampler::ParentBased(Box::new(RootSampler {
        ratio: Sampler::TraceIdRatioBased(ratio),
    }))
}

#[derive(Debug, Clone)]
struct RootSampler {
    ratio: Sampler,
}

impl ShouldSample for RootSampler {
    fn should_sample(
        &self,
        parent_context: Option<&Context>,
        trace_id: TraceId,
        name: &str,
        span_kind: &SpanKind,
        attributes: &[KeyValue],
        links: &[Link],
    ) -> SamplingResult {
        let presampled = attributes.iter().any(|attribute| {
            attribute.key.as_str() == PRESAMPLED
                && attribute.value == opentelemetry::Value::Bool(true)
        });
        let sampler = if presampled {
            &Sampler::AlwaysOn
        } else {
            &self.ratio
        };
        sampler.should_sample(parent_context, trace_id, name, span_kind, attributes, links)
    }
}

/// Whether the hit path should make a span for a request with `headers`: only when spans are
/// exported, and then parent-based (a `traceparent`'s sampled flag decides) or, for a root, at
/// the configured ratio. `Some(true)` means "a root this path drew": mark it [`PRESAMPLED`].
/// A hit not sampled costs a header look-up and, for roots, one random draw.
pub fn hit_path_sampled(headers: &axum::http::HeaderMap) -> Option<bool> {
    let ratio = *EXPORT_RATIO.get()?;
    match headers.get("traceparent") {
        Some(value) => {
            let flags = value.as_bytes().rsplit(|byte| *byte == b'-').next()?;
            let sampled = flags.len() == 2
                && u8::from_str_radix(std::str::from_utf8(flags).ok()?, 16).ok()? & 1 == 1;
            sampled.then_some(false)
        }
        None => (fastrand::f64() < ratio).then_some(true),
    }
}

/// Makes `span` a child of the caller's span when `headers` carry a W3C `traceparent`.
pub fn join_caller_trace(span: &tracing::Span, headers: &axum::http::HeaderMap) {
    if !headers.contains_key("traceparent") {
        return;
    }
    let parent = opentelemetry::global::get_text_map_propagator(|propagator| {
        propagator.extract(&opentelemetry_http::HeaderExtractor(headers))
    });
    // Fails only when no OpenTelemetry layer is installed (tests without one): nothing to join.
    let _ = span.set_parent(parent);
}

/// Names the server `span` by `route`, a template chosen after the span was made (a router's
/// fallback has none when the span is made): `http.route` and the exported span's name. The
/// name goes to the OpenTelemetry span itself, as the span may already have been started.
pub fn name_route(span: &tracing::Span, method: &axum::http::Method, route: &'static str) {
    span.record("http.route", route);
    let name = format!("{method} {route}");
    span.record("otel.name", name.as_str());
    span.context().span().update_name(name);
}

/// The W3C trace-context level 2 `traceresponse` of `span`: `00-{trace id}-{span id}-{flags}`,
/// so a support ticket can name the trace; `None` when the span has no valid context.
pub fn traceresponse(span: &tracing::Span) -> Option<axum::http::HeaderValue> {
    let context = span.context();
    let otel_span = context.span();
    let span_context = otel_span.span_context();
    if !span_context.is_valid() {
        return None;
    }
    axum::http::HeaderValue::from_str(&format!(
        "00-{}-{}-{:02x}",
        span_context.trace_id(),
        span_context.span_id(),
        span_context.trace_flags().to_u8()
    ))
    .ok()
}

/// JSON log lines: the event's fields flattened, its level, target and time, the innermost
/// span's name and fields under `span`, and, inside a request, `trace_id`, `span_id` (of the
/// innermost span) and `request_id` (of the request span).
pub struct JsonLines<W> {
    make_writer: W,
    dispatch: OnceLock<tracing::dispatcher::WeakDispatch>,
}

impl<W> JsonLines<W> {
    pub fn new(make_writer: W) -> Self {
        Self {
            make_writer,
            dispatch: OnceLock::new(),
        }
    }
}

/// A span's fields, kept for the log lines of the events inside it.
struct SpanFields(Map<String, Value>);

struct JsonVisitor<'a>(&'a mut Map<String, Value>);

impl Visit for JsonVisitor<'_> {
    fn record_f64(&mut self, field: &Field, value: f64) {
        self.0.insert(field.name().to_owned(), Value::from(value));
    }
    fn record_i64(&mut self, field: &Field, value: i64) {
        self.0.insert(field.name().to_owned(), Value::from(value));
    }
    fn record_u64(&mut self, field: &Field, value: u64) {
        self.0.insert(field.name().to_owned(), Value::from(value));
    }
    fn record_bool(&mut self, field: &Field, value: bool) {
        self.0.insert(field.name().to_owned(), Value::from(value));
    }
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().to_owned(), Value::from(value));
    }
    fn record_error(&mut self, field: &Field, value: &(dyn std::error::Error + 'static)) {
        self.0
            .insert(field.name().to_owned(), Value::from(value.to_string()));
    }
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0
            .insert(field.name().to_owned(), Value::from(format!("{value:?}")));
    }
}

impl<S, W> Layer<S> for JsonLines<W>
where
    S: Subscriber + for<'a> LookupSpan<'a>,
    W: for<'w> MakeWriter<'w> + 'static,
{
    fn on_register_dispatch(&self, dispatch: &Dispatch) {
        let _ = self.dispatch.set(dispatch.downgrade());
    }

    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: LayerContext<'_, S>) {
        if let Some(span) = ctx.span(id) {
            let mut fields = Map::new();
            attrs.record(&mut JsonVisitor(&mut fields));
            span.extensions_mut().insert(SpanFields(fields));
        }
    }

    fn on_record(&self, id: &Id, values: &Record<'_>, ctx: LayerContext<'_, S>) {
        if let Some(span) = ctx.span(id)
            && let Some(fields) = span.extensions_mut().get_mut::<SpanFields>()
        {
            values.record(&mut JsonVisitor(&mut fields.0));
        }
    }

    fn on_event(&self, event: &Event<'_>, ctx: LayerContext<'_, S>) {
        let mut line = Map::new();
        let mut timestamp = String::new();
        if SystemTime
            .format_time(&mut Writer::new(&mut timestamp))
            .is_ok()
        {
            line.insert("timestamp".to_owned(), Value::from(timestamp));
        }
        let metadata = event.metadata();
        line.insert("level".to_owned(), Value::from(metadata.level().as_str()));
        line.insert("target".to_owned(), Value::from(metadata.target()));
        event.record(&mut JsonVisitor(&mut line));
        let mut innermost = None;
        if let Some(scope) = ctx.event_scope(event) {
            let mut request_id = None;
            for span in scope {
                let extensions = span.extensions();
                let Some(fields) = extensions.get::<SpanFields>() else {
                    continue;
                };
                if innermost.is_none() {
                    let mut current = fields.0.clone();
                    current.insert("name".to_owned(), Value::from(span.name()));
                    line.insert("span".to_owned(), Value::Object(current));
                    innermost = Some(span.id());
                }
                if request_id.is_none() {
                    request_id = fields.0.get("request_id").cloned();
                }
            }
            if let Some(request_id) = request_id {
                line.entry("request_id").or_insert(request_id);
            }
        }
        // The extensions are released before the OpenTelemetry layer is asked for the ids (it
        // locks them).
        if let (Some(id), Some(dispatch)) = (
            innermost,
            self.dispatch
                .get()
                .and_then(tracing::dispatcher::WeakDispatch::upgrade),
        ) && let Some(context) = tracing_opentelemetry::get_otel_context(&id, &dispatch)
        {
            let span = context.span();
            let span_context = span.span_context();
            if span_context.is_valid() {
                line.insert(
                    "trace_id".to_owned(),
                    Value::from(span_context.trace_id().to_string()),
                );
                line.insert(
                    "span_id".to_owned(),
                    Value::from(span_context.span_id().to_string()),
                );
            }
        }
        let mut writer = self.make_writer.make_writer_for(metadata);
        let mut text = Value::Object(line).to_string();
        text.push('\n');
        let _ = std::io::Write::write_all(&mut writer, text.as_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::{HeaderMap, HeaderValue};

    #[test]
    fn the_hit_path_samples_nothing_when_spans_are_not_exported() {
        // EXPORT_RATIO is only set by `init`, which unit tests never call.
        let mut headers = HeaderMap::new();
        headers.insert(
            "traceparent",
            HeaderValue::from_static("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"),
        );
        assert_eq!(hit_path_sampled(&headers), None);
    }

    #[test]
    fn a_presampled_root_is_sampled_whatever_the_ratio() {
        let sampler = sampler(0.0);
        let trace_id = TraceId::from_hex("4bf92f3577b34da6a3ce929d0e0e4736").unwrap();
        let presampled = [KeyValue::new(PRESAMPLED, true)];
        let drawn =
            sampler.should_sample(None, trace_id, "GET", &SpanKind::Server, &presampled, &[]);
        assert_eq!(
            drawn.decision,
            opentelemetry_sdk::trace::SamplingDecision::RecordAndSample
        );
        let root = sampler.should_sample(None, trace_id, "GET", &SpanKind::Server, &[], &[]);
        assert_eq!(
            root.decision,
            opentelemetry_sdk::trace::SamplingDecision::Drop
        );
    }
}
